// Proxy bench: Switchboard against the raw node:http floor and the mock itself, measured in one run.
// Method: every target is measured in this run against the same mock. CPU per request is the
// figure to trust on a noisy machine; req/s and latency move with whatever else runs.
// Every process runs compiled JavaScript (bench/processes.ts nodeArgs): Switchboard from dist/main/cli.js, the floor and
// the mock from esbuild bundles, so both sides of a ratio pay the same for their code. The top concurrency is run
// `rounds` times, the targets interleaved in each round, and the medians kept; issue 17's targets are returned as
// `targets` (bench/targets.ts) for `npm run bench`'s table.
// Run: node --import tsx bench/proxy.ts   (or npm run bench -- proxy)
import autocannon from 'autocannon';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '../test/support/temp.ts';
import type { MockBehavior } from '../test/support/mock-provider.ts';
import type { MockServerMessage } from './mock-server.ts';
import { nodeArgs, startChild, type BenchChild } from './processes.ts';
import { check, type TargetCheck } from './targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'main', 'cli.ts');

export type ProxyBenchOptions = {
  warmupSec: number;
  durationSec: number;
  connections: number[];
  /** Runs at the highest concurrency (targets interleaved in each); req/s and CPU per request are their medians. */
  rounds: number;
  /** Tokens in the non-stream reply. */
  replyTokens: number;
  /** Sequential streamed requests timed for time to first byte (after streamWarmup untimed ones). */
  streams: number;
  streamWarmup: number;
  /** The stream phase's mock: this many tokens, chunkDelayMs apart, so holding the first chunk shows. */
  streamTokens: number;
  chunkDelayMs: number;
  /** Measure Switchboard when main/cli.ts exists (default true). */
  switchboard: boolean;
};

export const DEFAULT_OPTIONS: ProxyBenchOptions = {
  warmupSec: 1,
  durationSec: 3,
  connections: [1, 16, 64],
  // Five short interleaved runs rather than three long ones: on a shared machine the load of others drifts within
  // seconds, and the median of more, shorter slices moves less from one run of the bench to the next.
  rounds: 5,
  replyTokens: 50,
  streams: 200,
  streamWarmup: 20,
  streamTokens: 4,
  chunkDelayMs: 5,
  switchboard: true,
};

export type TargetName = 'direct' | 'floor' | 'switchboard';

export type LoadRun = {
  connections: number;
  /** 2xx answers per second. */
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  completed: number;
  errors: number;
  non2xx: number;
};

export type TargetResult = {
  target: TargetName;
  label: string;
  baseUrl: string;
  load: LoadRun[];
  /** CPU time of the proxy process per request during the highest-concurrency run; null for direct. */
  cpuUsPerRequest: number | null;
  /** Median time from request start to the first body byte of a streamed reply. */
  streamTtfbMs: number | null;
  peakRssMiB: number | null;
};

export type ProxyBenchResult = {
  name: 'proxy';
  options: ProxyBenchOptions;
  /** What was measured of each side: the mock directly, the floor, Switchboard. */
  measured: TargetResult[];
  /** Why Switchboard was not measured, when it was not. */
  switchboardSkipped?: string;
  /** Issue 17's targets, Switchboard ÷ floor, each with its bound and whether it holds (empty without Switchboard). */
  targets: TargetCheck[];
  /** Errors and non-2xx answers Switchboard gave under load (a run with any does not pass). */
  switchboardFailures: number;
  /** false if a target failed or Switchboard failed requests, null if there was nothing to check (no Switchboard). */
  pass: boolean | null;
  table: string;
};

const LABELS: Record<TargetName, string> = {
  direct: 'client → mock directly',
  floor: 'floor: raw node:http pass-through',
  switchboard: 'Switchboard (serve)',
};

const REQUEST_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-client-any' };

/** A realistic chat request padded to exactly 1024 bytes. */
export function requestBody(stream: boolean): string {
  const make = (user: string): string =>
    JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are a concise assistant. Answer in plain English.' },
        { role: 'user', content: user },
      ],
      temperature: 0.2,
      max_tokens: 256,
      ...(stream ? { stream: true } : {}),
    });
  const sentence = 'Summarise the meeting notes below in one short paragraph for the team. ';
  const room = 1024 - make('').length;
  return make(sentence.repeat(Math.ceil(room / sentence.length)).slice(0, room));
}

const replyTokens = (n: number): string[] => Array.from({ length: n }, (_, i) => (i === 0 ? 'Word0' : ` word${i}`));

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** One autocannon run; latency comes from its per-response times (its own histogram keeps whole milliseconds). */
function loadRun(baseUrl: string, body: string, connections: number, seconds: number): Promise<LoadRun> {
  let times = new Float64Array(1 << 16);
  let count = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${baseUrl}/chat/completions`,
        method: 'POST',
        headers: REQUEST_HEADERS,
        body,
        connections,
        duration: seconds,
        pipelining: 1,
      },
      (err, result) => {
        if (err) return reject(err);
        const sorted = times.subarray(0, count).sort();
        resolve({
          connections,
          requestsPerSec: result['2xx'] / result.duration,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          completed: result['2xx'] + result.non2xx,
          errors: result.errors,
          non2xx: result.non2xx,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode > 299) return;
      if (count === times.length) {
        const bigger = new Float64Array(times.length * 2);
        bigger.set(times);
        times = bigger;
      }
      times[count++] = responseTime;
    });
  });
}

const agentFor = (): http.Agent => new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request with node:http; resolves with the status, the body, and ms from start to the first body byte. */
function request(
  baseUrl: string,
  body: string,
  agent: http.Agent,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; ttfbMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfbMs = Number.NaN;
    const req = http.request(
      `${baseUrl}/chat/completions`,
      { method: 'POST', headers: { ...REQUEST_HEADERS, 'content-length': Buffer.byteLength(body) }, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (chunks.length === 0) ttfbMs = performance.now() - started;
          chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
            ttfbMs,
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${baseUrl} within 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Proves the target answers what the mock sent, so a fast error page is never measured as speed. */
async function checkTarget(baseUrl: string, expectedContent: string): Promise<void> {
  const agent = agentFor();
  try {
    const plain = await request(baseUrl, requestBody(false), agent);
    if (plain.status !== 200)
      throw new Error(`POST ${baseUrl}/chat/completions answered ${plain.status}: ${plain.text.slice(0, 300)}`);
    const content = (JSON.parse(plain.text) as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message
      ?.content;
    if (content !== expectedContent)
      throw new Error(`${baseUrl} answered content ${JSON.stringify(content?.slice(0, 80))}, not the mock's reply`);
    const streamed = await request(baseUrl, requestBody(true), agent);
    if (streamed.status !== 200 || !streamed.text.trimEnd().endsWith('data: [DONE]')) {
      throw new Error(
        `streamed POST ${baseUrl}/chat/completions answered ${streamed.status} without a final [DONE]: ${streamed.text.slice(0, 300)}`,
      );
    }
  } finally {
    agent.destroy();
  }
}

/**
 * Median time to first byte of sequential streamed requests, one target after another in each round (not one
 * target's whole series, then the next), so the machine's drift hits every target alike.
 */
async function streamTtfbInterleaved(baseUrls: string[], opts: ProxyBenchOptions): Promise<number[]> {
  const agents = baseUrls.map(() => agentFor());
  const body = requestBody(true);
  const times = baseUrls.map(() => new Float64Array(opts.streams));
  try {
    for (let i = 0; i < opts.streamWarmup + opts.streams; i++) {
      for (let t = 0; t < baseUrls.length; t++) {
        const r = await request(baseUrls[t]!, body, agents[t]!);
        if (r.status !== 200)
          throw new Error(`streamed request to ${baseUrls[t]} answered ${r.status}: ${r.text.slice(0, 300)}`);
        if (i >= opts.streamWarmup) times[t]![i - opts.streamWarmup] = r.ttfbMs;
      }
    }
  } finally {
    for (const a of agents) a.destroy();
  }
  return times.map((t) => percentile(t.sort(), 50));
}

function setMockBehavior(mock: BenchChild, behavior: MockBehavior): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the mock did not confirm setBehavior within 5 s')), 5000);
    mock.process.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    mock.process.send({ type: 'setBehavior', behavior } satisfies MockServerMessage);
  });
}

function switchboardConfig(mockBaseUrl: string): string {
  return JSON.stringify(
    {
      listen_port: 11434,
      log_requests: false,
      start_on_login: false,
      providers: [{ name: 'mock', base_url: mockBaseUrl, api_key: 'sk-bench', enabled: true }],
      routing: { default_provider: 'mock', rules: [{ pattern: '*', provider: 'mock' }] },
      app_rules: [],
      // Limits on (the default) but never refusing at c=64, so the limiter's cost is in the measured hot path.
      limits: { rpm: 1_000_000_000, tpm: 1_000_000_000_000, concurrency: 1_000_000 },
    },
    null,
    2,
  );
}

// ---- the report ----

const fmt = (n: number | null | undefined, digits = 0): string =>
  n === null || n === undefined || Number.isNaN(n)
    ? '—'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratioOf = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null ||
  a === undefined ||
  b === null ||
  b === undefined ||
  !Number.isFinite(a) ||
  !Number.isFinite(b) ||
  b === 0
    ? null
    : a / b;
const fmtRatio = (r: number | null): string => (r === null ? '—' : `${r.toFixed(2)}×`);

/** Issue 17's proxy targets, each Switchboard ÷ the floor of the same run. */
export const BOUNDS = { cpu: 1.2, rps: 0.85, rss: 1.3, ttfb: 1.1 } as const;

export function makeTargets(
  floor: TargetResult | undefined,
  sb: TargetResult | undefined,
  opts: ProxyBenchOptions,
): TargetCheck[] {
  if (!floor || !sb) return [];
  const top = Math.max(...opts.connections);
  const rps = (t: TargetResult): number | undefined => t.load.find((l) => l.connections === top)?.requestsPerSec;
  const one = (
    target: string,
    bound: string,
    unit: string,
    digits: number,
    a: number | null | undefined,
    b: number | null | undefined,
    ok: (r: number) => boolean,
  ): TargetCheck => {
    const r = ratioOf(a, b);
    return check(target, bound, `${fmt(a, digits)} ${unit} vs ${fmt(b, digits)} ${unit}`, r, r !== null && ok(r));
  };
  return [
    one(
      `CPU per request at concurrency ${top}`,
      `≤ ${BOUNDS.cpu}× the floor`,
      'µs',
      0,
      sb.cpuUsPerRequest,
      floor.cpuUsPerRequest,
      (r) => r <= BOUNDS.cpu,
    ),
    one(
      `requests per second at concurrency ${top}`,
      `≥ ${BOUNDS.rps}× the floor`,
      'req/s',
      0,
      rps(sb),
      rps(floor),
      (r) => r >= BOUNDS.rps,
    ),
    one(
      'peak RSS under the proxy bench',
      `≤ ${BOUNDS.rss}× the floor`,
      'MiB',
      0,
      sb.peakRssMiB,
      floor.peakRssMiB,
      (r) => r <= BOUNDS.rss,
    ),
    one(
      'stream time to first byte',
      `≤ ${BOUNDS.ttfb}× the floor`,
      'ms',
      2,
      sb.streamTtfbMs,
      floor.streamTtfbMs,
      (r) => r <= BOUNDS.ttfb,
    ),
  ];
}

function renderTable(
  targets: TargetResult[],
  checks: TargetCheck[],
  opts: ProxyBenchOptions,
  skipped: string | undefined,
): string {
  const cs = opts.connections;
  const head = [
    'target',
    ...cs.map((c) => `req/s c=${c}`),
    ...cs.map((c) => `p50 / p99 ms c=${c}`),
    `CPU µs/req (c=${Math.max(...cs)})`,
    'stream TTFB ms',
    'peak RSS MiB',
  ];
  const row = (t: TargetResult): string[] => [
    t.label,
    ...cs.map((c) => fmt(t.load.find((l) => l.connections === c)?.requestsPerSec)),
    ...cs.map((c) => {
      const l = t.load.find((x) => x.connections === c);
      return `${fmt(l?.p50Ms, 2)} / ${fmt(l?.p99Ms, 2)}`;
    }),
    fmt(t.cpuUsPerRequest),
    fmt(t.streamTtfbMs, 2),
    fmt(t.peakRssMiB),
  ];
  const ratioRow = (label: string, a: TargetResult, b: TargetResult): string[] => [
    label,
    ...cs.map((c) =>
      fmtRatio(
        ratioOf(
          a.load.find((l) => l.connections === c)?.requestsPerSec,
          b.load.find((l) => l.connections === c)?.requestsPerSec,
        ),
      ),
    ),
    ...cs.map((c) => {
      const la = a.load.find((l) => l.connections === c);
      const lb = b.load.find((l) => l.connections === c);
      return `${fmtRatio(ratioOf(la?.p50Ms, lb?.p50Ms))} / ${fmtRatio(ratioOf(la?.p99Ms, lb?.p99Ms))}`;
    }),
    fmtRatio(ratioOf(a.cpuUsPerRequest, b.cpuUsPerRequest)),
    fmtRatio(ratioOf(a.streamTtfbMs, b.streamTtfbMs)),
    fmtRatio(ratioOf(a.peakRssMiB, b.peakRssMiB)),
  ];
  const byName = (n: TargetName): TargetResult | undefined => targets.find((t) => t.target === n);
  const direct = byName('direct');
  const floor = byName('floor');
  const sb = byName('switchboard');
  const rows = targets.map(row);
  if (floor && direct) rows.push(ratioRow('floor ÷ direct', floor, direct));
  if (sb && floor) rows.push(ratioRow('**Switchboard ÷ floor**', sb, floor));
  const md = (cells: string[]): string => `| ${cells.join(' | ')} |`;

  const lines = [
    `## Proxy: Switchboard vs the raw node:http floor`,
    '',
    `1 KB request, ${opts.replyTokens}-token non-stream reply, mock provider in its own process on loopback; ` +
      `${opts.durationSec} s per run after ${opts.warmupSec} s warm-up (c=${Math.max(...cs)}: median of ${opts.rounds} ` +
      `interleaved runs); all three compiled JavaScript; TTFB: median of ${opts.streams} sequential streams ` +
      `(${opts.streamTokens} tokens, ${opts.chunkDelayMs} ms apart); ${os.cpus().length} cores, Node ${process.versions.node}.`,
    '',
    md(head),
    md(head.map((_, i) => (i === 0 ? '---' : '--:'))),
    ...rows.map(md),
    '',
  ];
  const failing = targets.flatMap((t) =>
    t.load
      .filter((l) => l.errors + l.non2xx > 0)
      .map((l) => `${t.label} c=${l.connections}: ${l.errors} errors, ${l.non2xx} non-2xx`),
  );
  if (failing.length) lines.push(`Failures under load: ${failing.join('; ')}.`, '');
  if (skipped) {
    lines.push(`Switchboard not measured: ${skipped}`, '');
  } else {
    lines.push(
      md(['target', 'bound', 'Switchboard vs floor', 'ratio', 'holds']),
      md(['---', '---', '---', '--:', ':-:']),
    );
    for (const c of checks)
      lines.push(md([c.target, c.bound, c.measured, fmtRatio(c.ratio), c.holds ? 'yes' : '**no**']));
    lines.push('');
  }
  return lines.join('\n');
}

// ---- the run ----

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};

/** Several runs at one concurrency as one: the median of each figure, the failures summed. */
function medianRun(runs: LoadRun[]): LoadRun {
  return {
    connections: runs[0]!.connections,
    requestsPerSec: median(runs.map((r) => r.requestsPerSec)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    completed: runs.reduce((n, r) => n + r.completed, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  };
}

export async function main(overrides: Partial<ProxyBenchOptions> = {}): Promise<ProxyBenchResult> {
  const opts: ProxyBenchOptions = { ...DEFAULT_OPTIONS, ...overrides };
  const log = (msg: string): void => void process.stderr.write(`[bench:proxy] ${msg}\n`);
  const children: BenchChild[] = [];
  const temp = await makeTempDir('switchboard-bench');
  const env = { ...process.env, NODE_ENV: 'production' };
  try {
    const tokens = replyTokens(opts.replyTokens);
    const loadBehavior: MockBehavior = { tokens };
    const mock = await startChild(
      'mock provider',
      nodeArgs('mock-server', ['--port', '0', '--behavior', JSON.stringify(loadBehavior)]),
      { cwd: ROOT, env, ipc: true },
    );
    children.push(mock);
    const mockBaseUrl = `http://127.0.0.1:${mock.port}/v1`;
    const floor = await startChild('floor', nodeArgs('floor', ['--port', '0', '--upstream', mockBaseUrl]), {
      cwd: ROOT,
      env,
    });
    children.push(floor);

    const targets: { result: TargetResult; child?: BenchChild }[] = [
      { result: emptyResult('direct', mockBaseUrl) },
      { result: emptyResult('floor', `http://127.0.0.1:${floor.port}/v1`), child: floor },
    ];

    for (const t of targets) await checkTarget(t.result.baseUrl, tokens.join(''));

    let switchboardSkipped: string | undefined;
    if (!opts.switchboard) switchboardSkipped = 'turned off for this run.';
    else if (!existsSync(CLI)) switchboardSkipped = `${path.relative(ROOT, CLI)} does not exist yet.`;
    else {
      const configPath = path.join(temp.dir, 'config.json');
      await writeFile(configPath, switchboardConfig(mockBaseUrl), { mode: 0o600 });
      const sbEnv = {
        ...env,
        XDG_CONFIG_HOME: path.join(temp.dir, 'xdg-config'),
        XDG_DATA_HOME: path.join(temp.dir, 'xdg-data'),
        XDG_STATE_HOME: path.join(temp.dir, 'xdg-state'),
      };
      try {
        const sb = await startChild(
          'Switchboard',
          nodeArgs('switchboard', ['serve', '--config', configPath, '--port', '0']),
          { cwd: ROOT, env: sbEnv, timeoutMs: 30_000 },
        );
        children.push(sb);
        const result = emptyResult('switchboard', `http://127.0.0.1:${sb.port}/v1`);
        await checkTarget(result.baseUrl, tokens.join(''));
        targets.push({ result, child: sb });
      } catch (err) {
        switchboardSkipped = `it failed to start or to proxy: ${(err as Error).message}`;
        log(switchboardSkipped);
      }
    }

    // Interleaved by concurrency, so drift on a noisy machine hits every target alike; the top concurrency is run
    // `rounds` times, each round in the other order, and the medians kept.
    const top = Math.max(...opts.connections);
    const loadBody = requestBody(false);
    for (const c of opts.connections) {
      const rounds = c === top ? Math.max(1, opts.rounds) : 1;
      const runs = targets.map((): LoadRun[] => []);
      const cpus = targets.map((): number[] => []);
      for (let round = 0; round < rounds; round++) {
        const order = targets.map((_, i) => i);
        if (round % 2 === 1) order.reverse();
        for (const i of order) {
          const t = targets[i]!;
          const what = `${t.result.target} c=${c}${rounds > 1 ? ` (round ${round + 1} of ${rounds})` : ''}`;
          if (opts.warmupSec > 0) await loadRun(t.result.baseUrl, loadBody, c, opts.warmupSec);
          const cpuBefore = t.child?.cpuMicros() ?? null;
          const run = await loadRun(t.result.baseUrl, loadBody, c, opts.durationSec);
          const cpuAfter = t.child?.cpuMicros() ?? null;
          runs[i]!.push(run);
          let cpu = '';
          if (cpuBefore !== null && cpuAfter !== null && run.completed > 0) {
            cpus[i]!.push((cpuAfter - cpuBefore) / run.completed);
            cpu = `, ${fmt(cpus[i]!.at(-1))} µs CPU a request`;
          }
          // Each run's figures in the log: the table keeps medians, the spread between rounds shows here.
          log(`${what}: ${fmt(run.requestsPerSec)} req/s${cpu}`);
        }
      }
      targets.forEach((t, i) => {
        t.result.load.push(medianRun(runs[i]!));
        if (c === top && cpus[i]!.length) t.result.cpuUsPerRequest = median(cpus[i]!);
      });
    }

    await setMockBehavior(mock, { tokens: replyTokens(opts.streamTokens), chunkDelayMs: opts.chunkDelayMs });
    log('stream time to first byte (targets interleaved)');
    const ttfbs = await streamTtfbInterleaved(
      targets.map((t) => t.result.baseUrl),
      opts,
    );
    targets.forEach((t, i) => {
      t.result.streamTtfbMs = ttfbs[i]!;
    });
    for (const t of targets) t.result.peakRssMiB = t.child?.peakRssMiB() ?? null;

    const results = targets.map((t) => t.result);
    const sb = results.find((t) => t.target === 'switchboard');
    const checks = makeTargets(
      results.find((t) => t.target === 'floor'),
      sb,
      opts,
    );
    const failures = sb ? sb.load.reduce((n, l) => n + l.errors + l.non2xx, 0) : 0;
    return {
      name: 'proxy',
      options: opts,
      measured: results,
      ...(switchboardSkipped ? { switchboardSkipped } : {}),
      targets: checks,
      switchboardFailures: failures,
      pass: sb ? failures === 0 && checks.every((c) => c.holds) : null,
      table: renderTable(results, checks, opts, switchboardSkipped),
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await temp.cleanup();
  }
}

function emptyResult(target: TargetName, baseUrl: string): TargetResult {
  return {
    target,
    label: LABELS[target],
    baseUrl,
    load: [],
    cpuUsPerRequest: null,
    streamTtfbMs: null,
    peakRssMiB: null,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await main();
  console.log(result.table);
  if (result.pass === false || (result.switchboardSkipped && existsSync(CLI))) process.exitCode = 1;
}
