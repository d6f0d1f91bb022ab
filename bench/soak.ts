// Soak / leak bench: 1,000 concurrent proxied streams held open ~30 s, then released. For Switchboard and, as a
// reference measured in the same run, the raw node:http floor: the idle process's RSS and open file descriptors,
// the peak RSS while the streams are held, and RSS and descriptors after release, as ratios to the idle figures.
// Every stream must end with its [DONE]; descriptors must come back to the idle count (no leaked sockets).
// Both run compiled JavaScript (bench/processes.ts nodeArgs). Issue 17's targets for Switchboard: peak ≤ 150 MiB while
// the 1,000 streams are held, and RSS back within 10 % of idle after release; returned as `targets` (bench/targets.ts).
// Run: node --import tsx bench/soak.ts [--streams 1000] [--hold 30]   (or npm run bench -- soak)
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { makeTempDir } from '../test/support/temp.ts';
import type { MockBehavior } from '../test/support/mock-provider.ts';
import type { MockServerMessage } from './mock-server.ts';
import { nodeArgs, startChild, type BenchChild } from './processes.ts';
import { check, type TargetCheck } from './targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type SoakOptions = {
  /** Concurrent streams held at once. */
  streams: number;
  /** How long each stream stays open, in seconds (the mock sends one token a second). */
  holdSec: number;
  /** Longest wait after release for descriptors to come back (the lowest RSS seen meanwhile is kept). */
  settleSec: number;
};

export const DEFAULT_SOAK: SoakOptions = { streams: 1000, holdSec: 30, settleSec: 45 };
/** RSS is sampled this long after the descriptors are back (what their sockets held is freed once they close). */
const SETTLE_AFTER_FDS_MS = 10_000;

type Sample = { rssMiB: number; fds: number };

export type SoakTarget = {
  label: string;
  idle: Sample;
  peakRssMiB: number;
  peakFds: number;
  after: Sample;
  /** Seconds after release until descriptors were back at idle (+ slack); null if they never were. */
  fdsBackAfterSec: number | null;
  completed: number;
  failed: number;
  failures: string[];
};

export type SoakResult = {
  name: 'soak';
  options: SoakOptions;
  /** What was measured of each side: Switchboard, then the floor. */
  measured: SoakTarget[];
  /** Issue 17's soak targets for Switchboard, each with its bound and whether it holds. */
  targets: TargetCheck[];
  pass: boolean | null;
  skipped?: string;
  table: string;
};

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}
const fdCount = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;
const sample = (pid: number): Sample => ({ rssMiB: rssMiB(pid), fds: fdCount(pid) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  stream: true,
  messages: [{ role: 'user', content: 'Count slowly to thirty.' }],
});

/** One streamed chat request; resolves with an error text, or null when the stream ended with [DONE]. */
function stream(baseUrl: string, agent: http.Agent): Promise<string | null> {
  return new Promise((resolve) => {
    const req = http.request(
      `${baseUrl}/chat/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) },
      },
      (res) => {
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          tail = (tail + c).slice(-64);
        });
        res.on('end', () =>
          resolve(
            res.statusCode === 200 && tail.trimEnd().endsWith('data: [DONE]')
              ? null
              : `status ${res.statusCode}: …${tail}`,
          ),
        );
        res.on('error', (e) => resolve(e.message));
      },
    );
    req.on('error', (e) => resolve(e.message));
    req.end(BODY);
  });
}

/** A few plain requests so the idle sample is of a warmed-up process (modules loaded, pools created). */
async function warm(baseUrl: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: false });
  for (let i = 0; i < 20; i++) {
    const err = await stream(baseUrl, agent);
    if (err) throw new Error(`warm-up stream to ${baseUrl} failed: ${err}`);
  }
  agent.destroy();
}

async function soak(label: string, child: BenchChild, baseUrl: string, opts: SoakOptions): Promise<SoakTarget> {
  const log = (msg: string): void => void process.stderr.write(`[bench:soak] ${label}: ${msg}\n`);
  await sleep(2000);
  const idle = sample(child.pid);
  log(`idle ${idle.rssMiB.toFixed(0)} MiB, ${idle.fds} fds; opening ${opts.streams} streams`);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  let peakRssMiB = idle.rssMiB;
  let peakFds = idle.fds;
  const watch = setInterval(() => {
    const s = sample(child.pid);
    peakRssMiB = Math.max(peakRssMiB, s.rssMiB);
    peakFds = Math.max(peakFds, s.fds);
  }, 250);
  const results = await Promise.all(Array.from({ length: opts.streams }, () => stream(baseUrl, agent)));
  clearInterval(watch);
  agent.destroy();
  peakRssMiB = Math.max(peakRssMiB, child.peakRssMiB() ?? 0);
  const failures = results.filter((r): r is string => r !== null);
  log(`released: ${opts.streams - failures.length} completed, ${failures.length} failed; settling`);
  // Idle upstream keep-alive sockets close on their own timer (30 s): wait for the descriptors to come back, up to
  // settleSec, and 10 s more, keeping the lowest RSS seen meanwhile (what the process keeps, not a GC moment).
  const released = performance.now();
  let after = sample(child.pid);
  let backAfterSec: number | null = null;
  while (performance.now() - released < opts.settleSec * 1000) {
    await sleep(250);
    const s = sample(child.pid);
    after = { rssMiB: Math.min(after.rssMiB, s.rssMiB), fds: s.fds };
    if (backAfterSec === null && s.fds <= idle.fds + FD_SLACK) backAfterSec = (performance.now() - released) / 1000;
    if (backAfterSec !== null && performance.now() - released > backAfterSec * 1000 + SETTLE_AFTER_FDS_MS) break;
  }
  return {
    label,
    idle,
    peakRssMiB,
    peakFds,
    after,
    fdsBackAfterSec: backAfterSec,
    completed: opts.streams - failures.length,
    failed: failures.length,
    failures: [...new Set(failures)].slice(0, 5),
  };
}

function config(mockBaseUrl: string): string {
  return JSON.stringify({
    listen_port: 11434,
    log_requests: false,
    start_on_login: false,
    providers: [{ name: 'mock', base_url: mockBaseUrl, api_key: 'sk-bench', enabled: true }],
    routing: { default_provider: 'mock', rules: [{ pattern: '*', provider: 'mock' }] },
    app_rules: [],
  });
}

/** Descriptors are back when at most 2 more are open than at idle (a timer or a log file may come and go). */
const FD_SLACK = 2;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

function render(targets: SoakTarget[], opts: SoakOptions): string {
  const md = (cells: (string | number)[]): string => `| ${cells.join(' | ')} |`;
  const lines = [
    `## Soak: ${opts.streams} concurrent streams held ${opts.holdSec} s, then released`,
    '',
    `Mock provider in its own process streaming one token a second; after release, descriptors are watched until ` +
      `they are back at idle (upstream keep-alive sockets close after 30 s; at most ${opts.settleSec} s) and 10 s ` +
      `more, and the lowest RSS in that time is kept. ${os.cpus().length} cores, Node ${process.versions.node}.`,
    '',
    md([
      'target',
      'streams ok / failed',
      'idle RSS MiB',
      'peak RSS MiB',
      'peak ÷ idle',
      'RSS after MiB',
      'after ÷ idle',
      'fds idle / peak / after',
      'fds back after',
    ]),
    md(['---', '--:', '--:', '--:', '--:', '--:', '--:', '--:', '--:']),
    ...targets.map((t) =>
      md([
        t.label,
        `${t.completed} / ${t.failed}`,
        t.idle.rssMiB.toFixed(0),
        t.peakRssMiB.toFixed(0),
        ratio(t.peakRssMiB, t.idle.rssMiB),
        t.after.rssMiB.toFixed(0),
        ratio(t.after.rssMiB, t.idle.rssMiB),
        `${t.idle.fds} / ${t.peakFds} / ${t.after.fds}`,
        t.fdsBackAfterSec === null ? 'never' : `${t.fdsBackAfterSec.toFixed(1)} s`,
      ]),
    ),
    '',
  ];
  for (const t of targets) if (t.failures.length) lines.push(`${t.label} failures: ${t.failures.join('; ')}`, '');
  const sb = targets.find((t) => t.label.startsWith('Switchboard'));
  if (sb) {
    lines.push(
      md(['check', 'limit', 'measured', 'result']),
      md(['---', '---', '--:', '---']),
      ...checks(sb, opts).map((c) => md([c.name, c.limit, c.measured, c.pass ? 'pass' : '**FAIL**'])),
      '',
    );
  }
  return lines.join('\n');
}

/** Issue 17: 1,000 concurrent streams held in at most this much resident memory… */
export const PEAK_MIB = 150;
/** …and back within 10 % of the idle figure after release. */
export const AFTER_RATIO = 1.1;

/** Issue 17's two soak targets, for Switchboard. */
export function soakTargets(t: SoakTarget, opts: SoakOptions): TargetCheck[] {
  const after = t.after.rssMiB / t.idle.rssMiB;
  return [
    check(
      `peak RSS with ${opts.streams.toLocaleString('en-US')} concurrent streams`,
      `≤ ${PEAK_MIB} MiB`,
      `${t.peakRssMiB.toFixed(0)} MiB (idle ${t.idle.rssMiB.toFixed(0)} MiB)`,
      null,
      t.completed === opts.streams && t.peakRssMiB <= PEAK_MIB,
    ),
    check(
      'RSS after the streams are released',
      `≤ ${AFTER_RATIO}× idle`,
      `${t.after.rssMiB.toFixed(0)} MiB vs ${t.idle.rssMiB.toFixed(0)} MiB idle (${ratio(t.after.rssMiB, t.idle.rssMiB)})`,
      null,
      after <= AFTER_RATIO,
    ),
  ];
}

function checks(t: SoakTarget, opts: SoakOptions) {
  return [
    { name: 'streams completed', limit: `${opts.streams}`, measured: `${t.completed}`, pass: t.failed === 0 },
    {
      name: 'file descriptors after release',
      limit: `≤ idle + ${FD_SLACK}`,
      measured: `${t.after.fds} (idle ${t.idle.fds})`,
      pass: t.after.fds <= t.idle.fds + FD_SLACK,
    },
    {
      name: 'peak RSS while held',
      limit: `≤ ${PEAK_MIB} MiB`,
      measured: `${t.peakRssMiB.toFixed(0)} MiB`,
      pass: t.peakRssMiB <= PEAK_MIB,
    },
    {
      name: 'RSS after release',
      limit: `≤ ${AFTER_RATIO}× idle`,
      measured: ratio(t.after.rssMiB, t.idle.rssMiB),
      pass: t.after.rssMiB <= AFTER_RATIO * t.idle.rssMiB,
    },
  ];
}

function setBehavior(mock: BenchChild, behavior: MockBehavior): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the mock did not confirm setBehavior within 5 s')), 5000);
    mock.process.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    mock.process.send({ type: 'setBehavior', behavior } satisfies MockServerMessage);
  });
}

export async function main(overrides: Partial<SoakOptions> = {}): Promise<SoakResult> {
  const opts: SoakOptions = { ...DEFAULT_SOAK, ...overrides };
  if (process.platform !== 'linux') {
    const skipped = 'it reads RSS and descriptors from /proc (Linux only).';
    return {
      name: 'soak',
      options: opts,
      measured: [],
      targets: [],
      pass: null,
      skipped,
      table: `## Soak\n\nNot run: ${skipped}\n`,
    };
  }
  const children: BenchChild[] = [];
  const temp = await makeTempDir('switchboard-soak');
  const env = { ...process.env, NODE_ENV: 'production' };
  const quick: MockBehavior = { tokens: ['a', 'b'] };
  const slow: MockBehavior = {
    tokens: Array.from({ length: opts.holdSec + 1 }, (_, i) => ` ${i}`),
    chunkDelayMs: 1000,
  };
  try {
    const mock = await startChild(
      'mock provider',
      nodeArgs('mock-server', ['--port', '0', '--behavior', JSON.stringify(quick)]),
      { cwd: ROOT, env, ipc: true },
    );
    children.push(mock);
    const mockBaseUrl = `http://127.0.0.1:${mock.port}/v1`;
    const configPath = path.join(temp.dir, 'config.json');
    await writeFile(configPath, config(mockBaseUrl), { mode: 0o600 });
    const sb = await startChild(
      'Switchboard',
      nodeArgs('switchboard', ['serve', '--config', configPath, '--port', '0']),
      {
        cwd: ROOT,
        env: {
          ...env,
          XDG_CONFIG_HOME: path.join(temp.dir, 'xdg-config'),
          XDG_DATA_HOME: path.join(temp.dir, 'xdg-data'),
          XDG_STATE_HOME: path.join(temp.dir, 'xdg-state'),
        },
        timeoutMs: 30_000,
      },
    );
    children.push(sb);
    const floor = await startChild('floor', nodeArgs('floor', ['--port', '0', '--upstream', mockBaseUrl]), {
      cwd: ROOT,
      env,
    });
    children.push(floor);
    const targets: SoakTarget[] = [];
    for (const [label, child] of [
      ['Switchboard (serve)', sb],
      ['floor: raw node:http pass-through', floor],
    ] as const) {
      const baseUrl = `http://127.0.0.1:${child.port}/v1`;
      await setBehavior(mock, quick);
      await warm(baseUrl);
      await setBehavior(mock, slow);
      targets.push(await soak(label, child, baseUrl, opts));
    }
    const verdict = checks(targets[0]!, opts).every((c) => c.pass);
    return {
      name: 'soak',
      options: opts,
      measured: targets,
      targets: soakTargets(targets[0]!, opts),
      pass: verdict,
      table: render(targets, opts),
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await temp.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { streams: { type: 'string' }, hold: { type: 'string' } } });
  const result = await main({
    ...(values.streams ? { streams: Number(values.streams) } : {}),
    ...(values.hold ? { holdSec: Number(values.hold) } : {}),
  });
  console.log(result.table);
  if (result.pass === false) process.exitCode = 1;
}
