// Start-up bench (issue 17's "start-up to first answered request ≤ 300 ms"): the time from spawning a process to its
// first answered POST /v1/chat/completions, for `switchboard serve` as `npm run serve` runs it (the compiled build,
// dist/main/cli.js), for the raw node:http pass-through floor compiled the same way (esbuild), and for serve through
// tsx (`npm run dev`, how it ran before issue 17) for comparison. Interleaved runs, medians; the load average is
// printed because an absolute bound on a shared 2-core machine moves with whatever else runs.
// Run: node --import tsx bench/startup.ts   (or npm run bench -- startup)
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '../test/support/temp.ts';
import { startMock } from './on-off.ts';
import { nodeArgs, startChild, type BenchChild } from './processes.ts';
import { check } from './targets.ts';
import { requestBody } from './proxy.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type StartupBenchOptions = { runs: number };
export const DEFAULT_OPTIONS: StartupBenchOptions = { runs: 5 };

type Target = 'switchboard' | 'floor' | 'tsx';
type Sample = { listeningMs: number; firstAnswerMs: number };

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};

/** POST one chat request; the time until its answer is whole, which must be a 200. */
async function firstAnswer(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: requestBody(false),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`first request answered ${res.status}: ${text.slice(0, 200)}`);
}

export async function main(overrides: Partial<StartupBenchOptions> = {}) {
  const opts = { ...DEFAULT_OPTIONS, ...overrides };
  const log = (m: string) => void process.stderr.write(`[bench:startup] ${m}\n`);
  const temp = await makeTempDir('switchboard-bench-startup');
  const children: BenchChild[] = [];
  const env = { ...process.env, NODE_ENV: 'production' };
  try {
    const mockBaseUrl = await startMock({ tokens: ['Hello', ' there'] }, env, children);
    const configPath = path.join(temp.dir, 'config.json');
    await writeFile(
      configPath,
      JSON.stringify({
        log_requests: false,
        providers: [{ name: 'mock', base_url: mockBaseUrl, api_key: 'sk-bench', enabled: true }],
        routing: { default_provider: 'mock', rules: [{ pattern: '*', provider: 'mock' }] },
        health_check: { interval_ms: 0, timeout_ms: 5000 },
      }),
      { mode: 0o600 },
    );
    const args: Record<Target, string[]> = {
      switchboard: nodeArgs('switchboard', ['serve', '--config', configPath, '--port', '0']),
      floor: nodeArgs('floor', ['--port', '0', '--upstream', mockBaseUrl]),
      tsx: ['--import', 'tsx', 'main/cli.ts', 'serve', '--config', configPath, '--port', '0'],
    };
    const samples: Record<Target, Sample[]> = { switchboard: [], floor: [], tsx: [] };
    const load: number[] = [os.loadavg()[0] ?? 0];
    for (let run = 0; run < opts.runs; run++) {
      const order: Target[] = run % 2 === 0 ? ['floor', 'switchboard', 'tsx'] : ['tsx', 'switchboard', 'floor'];
      for (const t of order) {
        log(`run ${run + 1} ${t}`);
        const t0 = performance.now();
        const child = await startChild(t, args[t], {
          cwd: ROOT,
          env: { ...env, XDG_CONFIG_HOME: path.join(temp.dir, 'xdg') },
          timeoutMs: 30_000,
        });
        const listening = performance.now();
        try {
          await firstAnswer(`http://127.0.0.1:${child.port}/v1`);
          samples[t].push({ listeningMs: listening - t0, firstAnswerMs: performance.now() - t0 });
        } finally {
          await child.stop();
        }
      }
    }
    load.push(os.loadavg()[0] ?? 0);
    const m = (t: Target, k: keyof Sample) => median(samples[t].map((s) => s[k]));
    const sb = { listening: m('switchboard', 'listeningMs'), answered: m('switchboard', 'firstAnswerMs') };
    const floor = { listening: m('floor', 'listeningMs'), answered: m('floor', 'firstAnswerMs') };
    const dev = { listening: m('tsx', 'listeningMs'), answered: m('tsx', 'firstAnswerMs') };
    const f = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
    const table = [
      '## Start-up: spawn to the first answered request',
      '',
      `Each process spawned as a user starts it (\`npm run serve\`: node dist/main/cli.js, the CLI bundle through its V8 code cache; the floor compiled the same ` +
        `way), a 1 KB chat request sent once it prints its address; ${opts.runs} interleaved runs (medians); ` +
        `${os.cpus().length} cores, Node ${process.versions.node}, load average ${load.map((l) => l.toFixed(1)).join(' → ')}.`,
      '',
      '| process | spawn → listening ms | spawn → first answer ms |',
      '| --- | --: | --: |',
      `| floor: raw node:http pass-through | ${f(floor.listening)} | ${f(floor.answered)} |`,
      `| Switchboard (serve, compiled) | ${f(sb.listening)} | ${f(sb.answered)} |`,
      `| Switchboard through tsx (npm run dev; before issue 17) | ${f(dev.listening)} | ${f(dev.answered)} |`,
      `| **Switchboard ÷ floor** | ${(sb.listening / floor.listening).toFixed(2)}× | ${(sb.answered / floor.answered).toFixed(2)}× |`,
      `| compiled ÷ tsx | ${(sb.listening / dev.listening).toFixed(2)}× | ${(sb.answered / dev.answered).toFixed(2)}× |`,
      '',
      `Issue 17's target, start-up to first answered request ≤ 300 ms: ${sb.answered <= 300 ? 'met' : 'not met'} (${f(sb.answered)} ms).`,
      '',
    ].join('\n');
    const targets = [
      check(
        'start-up to first answered request',
        '≤ 300 ms',
        `${f(sb.answered)} ms (floor ${f(floor.answered)} ms; load ${load.map((l) => l.toFixed(1)).join('→')})`,
        sb.answered / floor.answered,
        sb.answered <= 300,
      ),
    ];
    return { name: 'startup', options: opts, samples, switchboard: sb, floor, tsx: dev, load, table, targets };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await temp.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await main()).table);
}
