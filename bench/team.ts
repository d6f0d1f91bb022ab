// Team bench (issue 18): what the Redis store costs, and whether a limit holds across instances.
//  1. Throughput: one Switchboard in gateway mode with the embedded store and one with the Redis store (a real
//     redis-server on loopback), each serving one gateway key with limits high enough never to refuse (so every
//     request is authenticated, admitted, counted, settled, and, with Redis, added to the team's request stream);
//     POST /v1/chat/completions at c=N in interleaved rounds (A B, B A, ...), medians of req/s and CPU µs per request
//     of the Switchboard process; Redis's own CPU per request (INFO cpu) beside it. Ratio Redis ÷ embedded.
//  2. Limit accuracy: three instances on one Redis, one key with an RPM limit, all three loaded at once for less than
//     the limit's window: admitted ÷ limit (1.00 is exact; three embedded instances, each counting alone, give ~3).
// Switchboard and the mock run compiled (bench/processes.ts nodeArgs). Run: node --import tsx bench/team.ts
import autocannon from 'autocannon';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { createGatewayKey, gatewayKeysFile } from '../main/gateway/keys.ts';
import { startRedis, type TestRedis } from '../test/support/redis.ts';
import { makeTempDir } from '../test/support/temp.ts';
import { nodeArgs, startChild, type BenchChild } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type TeamBenchOptions = {
  connections: number;
  warmupSec: number;
  durationSec: number;
  rounds: number;
  /** Part 2: the key's RPM, the load's length (shorter than the window) and connections per instance. */
  rpm: number;
  accuracySec: number;
  accuracyConnections: number;
};
export const DEFAULT_OPTIONS: TeamBenchOptions = {
  connections: 32,
  warmupSec: 1,
  durationSec: 4,
  rounds: 4,
  rpm: 1_000,
  accuracySec: 4,
  accuracyConnections: 16,
};

type Store = 'embedded' | 'redis';
const BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Summarise the meeting notes in one short paragraph. '.repeat(16) }],
  max_tokens: 64,
});
const NO_LIMIT = { rpm: 1_000_000_000, tpm: 1_000_000_000_000, concurrency: 1_000_000 };

function config(mock: string, store: Store, redis: TestRedis, prefix: string): string {
  return JSON.stringify({
    listen_port: 11434,
    log_requests: false,
    providers: [{ name: 'mock', base_url: mock, api_key: 'sk-bench', enabled: true }],
    routing: { default_provider: 'mock', rules: [{ pattern: '*', provider: 'mock' }] },
    health_check: { interval_ms: 0, timeout_ms: 5000 },
    gateway: { enabled: true },
    store: store === 'redis' ? { kind: 'redis', url: redis.url, prefix } : { kind: 'embedded' },
  });
}

function load(port: number, key: string, connections: number, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}/v1/chat/completions`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: BODY,
        connections,
        duration: seconds,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

const median = (xs: number[]): number => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};

/** Redis's own CPU so far (user + sys), in µs. */
async function redisCpuMicros(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const get = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);
  return (get('used_cpu_user') + get('used_cpu_sys')) * 1e6;
}

/** Polls until a request with `key` is answered 200 by the instance (a key made while it runs reaches Redis first). */
async function keyWorks(port: number, key: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: BODY,
    });
    await r.arrayBuffer();
    if (r.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the key is not accepted on port ${port}: ${r.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function startInstances(
  n: number,
  dir: string,
  store: Store,
  mock: string,
  redis: TestRedis,
  prefix: string,
  limits: Record<string, number>,
  children: BenchChild[],
): Promise<{ sbs: BenchChild[]; key: string }> {
  const dirs = Array.from({ length: n }, (_, i) => path.join(dir, `${store}-${prefix.replace(/\W/g, '')}-${i}`));
  for (const d of dirs) {
    await mkdir(d, { recursive: true });
    await writeFile(path.join(d, 'config.json'), config(mock, store, redis, prefix), { mode: 0o600 });
  }
  let key = '';
  const make = async () =>
    (key = (await createGatewayKey(gatewayKeysFile(dirs[0]!), { kind: 'key', name: 'bench', limits })).secret);
  // Embedded: the one key file copied to every instance before it starts. Redis: made on instance 0 while it runs
  // (as `switchboard keys create --gateway` would), which copies it into Redis for all.
  if (store === 'embedded') {
    await make();
    for (const d of dirs.slice(1)) await copyFile(gatewayKeysFile(dirs[0]!), gatewayKeysFile(d));
  }
  const sbs: BenchChild[] = [];
  for (const [i, d] of dirs.entries()) {
    const sb = await startChild(
      `Switchboard ${store} ${i}`,
      nodeArgs('switchboard', ['serve', '--config', path.join(d, 'config.json'), '--port', '0']),
      {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: 'production', XDG_CONFIG_HOME: path.join(d, 'xdg') },
        timeoutMs: 30_000,
      },
    );
    children.push(sb);
    sbs.push(sb);
  }
  if (store === 'redis') {
    // The store connects in the background: a key made before it is up may wait for the file's next change.
    await new Promise((r) => setTimeout(r, 1_000));
    await make();
  }
  for (const sb of sbs) await keyWorks(sb.port, key);
  return { sbs, key };
}

export async function main(overrides: Partial<TeamBenchOptions> = {}) {
  const opts = { ...DEFAULT_OPTIONS, ...overrides };
  const log = (m: string) => void process.stderr.write(`[bench:team] ${m}\n`);
  const temp = await makeTempDir('switchboard-bench-team');
  const children: BenchChild[] = [];
  const redis = await startRedis();
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  try {
    const mock = await startChild('mock provider', nodeArgs('mock-server', ['--port', '0']), {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      ipc: true,
    });
    children.push(mock);
    const mockUrl = `http://127.0.0.1:${mock.port}/v1`;

    // 1. Throughput, interleaved.
    const one: Record<Store, { sb: BenchChild; key: string }> = {} as never;
    for (const store of ['embedded', 'redis'] as const) {
      const { sbs, key } = await startInstances(1, temp.dir, store, mockUrl, redis, 'tp:', NO_LIMIT, children);
      one[store] = { sb: sbs[0]!, key };
    }
    type Run = { rps: number; cpu: number; redisCpu: number; failures: number };
    const runs: Record<Store, Run[]> = { embedded: [], redis: [] };
    for (let round = 0; round < opts.rounds; round++) {
      for (const store of round % 2 === 0 ? (['embedded', 'redis'] as const) : (['redis', 'embedded'] as const)) {
        const { sb, key } = one[store];
        log(`round ${round + 1} ${store} c=${opts.connections}`);
        if (opts.warmupSec > 0) await load(sb.port, key, opts.connections, opts.warmupSec);
        const cpu0 = sb.cpuMicros();
        const rcpu0 = await redisCpuMicros(client);
        const r = await load(sb.port, key, opts.connections, opts.durationSec);
        const cpu1 = sb.cpuMicros();
        const rcpu1 = await redisCpuMicros(client);
        const done = r['2xx'] + r.non2xx;
        runs[store].push({
          rps: r['2xx'] / r.duration,
          cpu: cpu0 !== null && cpu1 !== null && done > 0 ? (cpu1 - cpu0) / done : Number.NaN,
          redisCpu: done > 0 ? (rcpu1 - rcpu0) / done : Number.NaN,
          failures: r.non2xx + r.errors,
        });
      }
    }
    const sum = (s: Store) => ({
      rps: median(runs[s].map((r) => r.rps)),
      cpu: median(runs[s].map((r) => r.cpu)),
      redisCpu: median(runs[s].map((r) => r.redisCpu)),
      failures: runs[s].reduce((n, r) => n + r.failures, 0),
    });
    const embedded = sum('embedded');
    const onRedis = sum('redis');
    await Promise.all([one.embedded.sb.stop(), one.redis.sb.stop()]);

    // 2. Limit accuracy across three instances: the same load on three embedded instances, then on three on Redis.
    const accuracy = {} as Record<Store, { attempted: number; admitted: number; ratio: number; errors: number }>;
    for (const store of ['embedded', 'redis'] as const) {
      const limits = { rpm: opts.rpm, tpm: 0, concurrency: 0 };
      const { sbs, key } = await startInstances(3, temp.dir, store, mockUrl, redis, 'acc:', limits, children);
      log(`accuracy ${store}: 3 instances × c=${opts.accuracyConnections}, ${opts.accuracySec} s, rpm ${opts.rpm}`);
      const results = await Promise.all(
        sbs.map((sb) => load(sb.port, key, opts.accuracyConnections, opts.accuracySec)),
      );
      // keyWorks made one admitted request on each instance before the load.
      const admitted = results.reduce((n, r) => n + r['2xx'], 0) + sbs.length;
      const attempted = results.reduce((n, r) => n + r['2xx'] + r.non2xx, 0) + sbs.length;
      const errors = results.reduce((n, r) => n + r.errors, 0);
      accuracy[store] = { attempted, admitted, ratio: admitted / opts.rpm, errors };
      await Promise.all(sbs.map((sb) => sb.stop()));
    }

    const cpuRatio = onRedis.cpu / embedded.cpu;
    const rpsRatio = onRedis.rps / embedded.rps;
    const exact = accuracy.redis.ratio >= 0.99 && accuracy.redis.ratio <= 1.01;
    const pass = exact && accuracy.redis.attempted > opts.rpm && embedded.failures === 0 && onRedis.failures === 0;
    const f = (n: number, d = 0) =>
      Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '—';
    const table = [
      '## Team gateway: the Redis store against the embedded one',
      '',
      `Gateway mode, one key, POST /v1/chat/completions (~1 KB), c=${opts.connections}, ${opts.durationSec} s per run after ` +
        `${opts.warmupSec} s warm-up, ${opts.rounds} interleaved rounds (medians); redis-server on loopback; ` +
        `${os.cpus().length} cores, Node ${process.versions.node}.`,
      '',
      '| store | req/s | Switchboard CPU µs per request | Redis CPU µs per request | non-2xx + errors |',
      '|---|--:|--:|--:|--:|',
      `| embedded | ${f(embedded.rps)} | ${f(embedded.cpu)} | — | ${embedded.failures} |`,
      `| redis (limits by Lua, key lookup, request stream) | ${f(onRedis.rps)} | ${f(onRedis.cpu)} | ${f(onRedis.redisCpu)} | ${onRedis.failures} |`,
      `| **redis ÷ embedded** | ${f(rpsRatio, 2)}× | ${f(cpuRatio, 2)}× | | |`,
      '',
      `Limit accuracy: one key with ${f(opts.rpm)} RPM, three instances loaded at once (c=${opts.accuracyConnections} each, ` +
        `${opts.accuracySec} s, within one window).`,
      '',
      '| store | requests sent | admitted | admitted ÷ limit |',
      '|---|--:|--:|--:|',
      `| embedded (each instance counts alone) | ${f(accuracy.embedded.attempted)} | ${f(accuracy.embedded.admitted)} | ${f(accuracy.embedded.ratio, 2)} |`,
      `| redis | ${f(accuracy.redis.attempted)} | ${f(accuracy.redis.admitted)} | ${f(accuracy.redis.ratio, 2)} |`,
      '',
      `Check: with Redis, admitted ÷ limit within 1 ± 0.01 under more load than the limit, no failed request: ${pass ? 'pass' : '**FAIL**'}.`,
      '',
    ].join('\n');
    return { name: 'team', options: opts, runs, embedded, redis: onRedis, cpuRatio, rpsRatio, accuracy, pass, table };
  } finally {
    client.disconnect();
    await Promise.all(children.map((c) => c.stop()));
    await redis.stop();
    await temp.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await main();
  console.log(result.table);
  if (!result.pass) process.exitCode = 1;
}
