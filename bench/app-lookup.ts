// What naming the calling app by its OS process costs: Switchboard with an app rule that forces the lookup
// (no header names the app), against the same Switchboard without app rules (no lookup), in one run.
// Worst case: a new connection per request (the lookup runs every time); usual case: keep-alive (once per connection).
// Run: node --import tsx bench/app-lookup.ts   (or npm run bench)
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '../test/support/temp.ts';
import { lookupClientProcess } from '../main/proxy/apps/os-process.ts';
import { type BenchChild, startChild } from './processes.ts';
import { requestBody } from './proxy.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Variant = { name: string; appRules: boolean; child?: BenchChild };
type Row = {
  variant: string;
  connection: 'new per request' | 'keep-alive';
  medianMs: number;
  cpuUsPerRequest: number | null;
};

function config(mockBaseUrl: string, appRules: boolean): string {
  return JSON.stringify({
    listen_port: 11434,
    log_requests: false,
    start_on_login: false,
    providers: [{ name: 'mock', base_url: mockBaseUrl, api_key: 'sk-bench', enabled: true }],
    routing: { default_provider: 'mock', rules: [{ pattern: '*', provider: 'mock' }] },
    // An app that is never the caller: the router must look the caller up to know that.
    app_rules: appRules ? [{ app: 'some-editor', default_provider: 'mock' }] : [],
    health_check: { interval_ms: 0, timeout_ms: 1000 },
    // This bench measures something else: the limiter must never refuse its sequential requests.
    limits: { enabled: false },
  });
}

function post(port: number, body: string, agent: http.Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': '' },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(
  child: BenchChild,
  keepAlive: boolean,
  n: number,
): Promise<{ medianMs: number; cpuUsPerRequest: number | null }> {
  const body = requestBody(false);
  const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false;
  for (let i = 0; i < 20; i++) await post(child.port, body, agent);
  const cpu0 = child.cpuMicros();
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await post(child.port, body, agent));
  const cpu1 = child.cpuMicros();
  if (agent) agent.destroy();
  times.sort((a, b) => a - b);
  return {
    medianMs: times[Math.floor(times.length / 2)]!,
    cpuUsPerRequest: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / n : null,
  };
}

export async function main(
  opts: { requests?: number } = {},
): Promise<{ name: string; rows: Row[]; lookupMedianMs: number; table: string }> {
  const n = opts.requests ?? 400;
  const temp = await makeTempDir('switchboard-bench-apps');
  const children: BenchChild[] = [];
  try {
    const mock = await startChild('mock provider', ['--import', 'tsx', 'bench/mock-server.ts', '--port', '0'], {
      cwd: ROOT,
    });
    children.push(mock);
    const mockBaseUrl = `http://127.0.0.1:${mock.port}/v1`;
    const variants: Variant[] = [
      { name: 'no app rules (baseline)', appRules: false },
      { name: 'app rule, caller found by OS lookup', appRules: true },
    ];
    for (const v of variants) {
      const dir = path.join(temp.dir, v.appRules ? 'rules' : 'plain');
      const file = path.join(dir, 'config.json');
      await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
      await writeFile(file, config(mockBaseUrl, v.appRules));
      v.child = await startChild(v.name, ['--import', 'tsx', 'main/cli.ts', 'serve', '--config', file, '--port', '0'], {
        cwd: ROOT,
        timeoutMs: 30_000,
      });
      children.push(v.child);
    }
    const rows: Row[] = [];
    for (const keepAlive of [false, true]) {
      for (const v of variants) {
        const r = await measure(v.child!, keepAlive, n);
        rows.push({ variant: v.name, connection: keepAlive ? 'keep-alive' : 'new per request', ...r });
      }
    }
    // The lookup itself, in this process, for a connection to one of the servers.
    const lookupTimes: number[] = [];
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    server.on('request', (_req, res) => res.end());
    for (let i = 0; i < 50; i++) {
      await new Promise<void>((resolve) => {
        server.once('connection', async (socket) => {
          const t0 = performance.now();
          await lookupClientProcess({
            localAddress: socket.localAddress!,
            localPort: socket.localPort!,
            remoteAddress: socket.remoteAddress!,
            remotePort: socket.remotePort!,
          });
          lookupTimes.push(performance.now() - t0);
          resolve();
        });
        http.get({ host: '127.0.0.1', port, agent: false }, (res) => res.resume());
      });
    }
    server.close();
    lookupTimes.sort((a, b) => a - b);
    const lookupMedianMs = lookupTimes[Math.floor(lookupTimes.length / 2)]!;

    const lines = [
      '## App identification by OS process: its cost',
      '',
      `${n} sequential 1 KB chat requests per row (after 20 warm-up), mock provider in its own process; ratio = with lookup ÷ baseline, same connection mode.`,
      '',
      '| connection | variant | median latency ms | CPU µs/request | latency ratio | CPU ratio |',
      '| --- | --- | --: | --: | --: | --: |',
    ];
    for (const mode of ['new per request', 'keep-alive'] as const) {
      const base = rows.find((r) => r.connection === mode && r.variant.startsWith('no app'))!;
      for (const r of rows.filter((x) => x.connection === mode)) {
        const lr = r.medianMs / base.medianMs;
        const cr = r.cpuUsPerRequest !== null && base.cpuUsPerRequest ? r.cpuUsPerRequest / base.cpuUsPerRequest : null;
        lines.push(
          `| ${mode} | ${r.variant} | ${r.medianMs.toFixed(2)} | ${r.cpuUsPerRequest?.toFixed(0) ?? '—'} | ${lr.toFixed(2)}× | ${cr === null ? '—' : `${cr.toFixed(2)}×`} |`,
        );
      }
    }
    lines.push(
      '',
      `One Linux /proc lookup on its own: median ${lookupMedianMs.toFixed(2)} ms (bounded at 250 ms; runs once per connection, only when app rules exist and no header named the app).`,
      '',
    );
    return { name: 'app-lookup', rows, lookupMedianMs, table: lines.join('\n') };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await temp.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await main()).table);
}
