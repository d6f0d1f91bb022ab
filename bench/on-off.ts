// The on/off comparison two benches share (limits, usage): one mock provider, two `switchboard serve` children with a
// config each (a feature off, then on), loaded at c=N on POST /v1/chat/completions in interleaved rounds (A B, B A,
// ...) so the machine's noise falls on both, and the medians of req/s and CPU µs per request of each.
import autocannon from 'autocannon';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, type BenchChild } from './processes.ts';
import { requestBody } from './proxy.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type Variant = 'off' | 'on';
export type OnOffOptions = { connections: number; warmupSec: number; durationSec: number; rounds: number };
/** Headers each load request carries (e.g. the app it names). */
export type LoadHeaders = Record<string, string>;
export type OnOffSummary = { rps: number; cpu: number; failures: number };
export type Run = { rps: number; cpuUsPerRequest: number | null; non2xx: number; errors: number };

export function load(
  url: string,
  connections: number,
  seconds: number,
  headers: Record<string, string> = {},
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/v1/chat/completions`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: requestBody(false),
        connections,
        duration: seconds,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};

/** Starts the mock provider (its behaviour as given) and returns its /v1 base URL. */
export async function startMock(behavior: unknown, env: NodeJS.ProcessEnv, children: BenchChild[]): Promise<string> {
  const mock = await startChild(
    'mock provider',
    ['--import', 'tsx', 'bench/mock-server.ts', '--port', '0', '--behavior', JSON.stringify(behavior)],
    { cwd: ROOT, env, ipc: true },
  );
  children.push(mock);
  return `http://127.0.0.1:${mock.port}/v1`;
}

/** One `switchboard serve` per variant, each with its own folder (`<dir>/<variant>`) and config. */
export async function startVariants(
  name: string,
  dir: string,
  config: (v: Variant) => string,
  env: NodeJS.ProcessEnv,
  children: BenchChild[],
): Promise<{ sbs: Record<Variant, BenchChild>; dirs: Record<Variant, string> }> {
  const sbs = {} as Record<Variant, BenchChild>;
  const dirs = {} as Record<Variant, string>;
  for (const v of ['off', 'on'] as const) {
    dirs[v] = path.join(dir, v);
    const configPath = path.join(dirs[v], 'config.json');
    await mkdir(dirs[v], { recursive: true });
    await writeFile(configPath, config(v), { mode: 0o600 });
    sbs[v] = await startChild(
      `Switchboard ${name} ${v}`,
      ['--import', 'tsx', 'main/cli.ts', 'serve', '--config', configPath, '--port', '0'],
      { cwd: ROOT, env: { ...env, XDG_CONFIG_HOME: path.join(dirs[v], 'xdg') }, timeoutMs: 30_000 },
    );
    children.push(sbs[v]);
  }
  return { sbs, dirs };
}

/** The interleaved rounds, and each variant's medians (CPU NaN where /proc cannot be read). */
export async function interleavedRounds(
  name: string,
  sbs: Record<Variant, BenchChild>,
  opts: OnOffOptions,
  log: (m: string) => void,
  headers: LoadHeaders = {},
): Promise<Record<Variant, OnOffSummary> & { runs: Record<Variant, Run[]> }> {
  const runs: Record<Variant, Run[]> = { off: [], on: [] };
  for (let round = 0; round < opts.rounds; round++) {
    for (const v of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const child = sbs[v];
      const url = `http://127.0.0.1:${child.port}`;
      log(`round ${round + 1} ${name} ${v} c=${opts.connections}`);
      if (opts.warmupSec > 0) await load(url, opts.connections, opts.warmupSec, headers);
      const before = child.cpuMicros();
      const r = await load(url, opts.connections, opts.durationSec, headers);
      const after = child.cpuMicros();
      const done = r['2xx'] + r.non2xx;
      runs[v].push({
        rps: r['2xx'] / r.duration,
        cpuUsPerRequest: before !== null && after !== null && done > 0 ? (after - before) / done : null,
        non2xx: r.non2xx,
        errors: r.errors,
      });
    }
  }
  const summary = (v: Variant): OnOffSummary => ({
    rps: median(runs[v].map((r) => r.rps)),
    cpu: median(runs[v].map((r) => r.cpuUsPerRequest ?? Number.NaN)),
    failures: runs[v].reduce((n, r) => n + r.non2xx + r.errors, 0),
  });
  return { off: summary('off'), on: summary('on'), runs };
}
