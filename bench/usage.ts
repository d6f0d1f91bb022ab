// Usage bench: what the usage store costs on the hot path (POST /v1/chat/completions) at c=64, as a ratio of Switchboard
// CPU per request with usage.enabled true (every request priced, counted in the rollups, its raw line batched to disk,
// the rollups' snapshots written every 5 s) to usage.enabled false; same mock, same machine, runs interleaved
// (A B A B ...). Then the disk it grows: bytes of the raw files per 100,000 requests, and the rollups' snapshot files
// (bounded by time and by app × provider × model, not by requests: changed cells are appended, the whole rewritten
// only when the appended lines outgrow it).
// Run: node --import tsx bench/usage.ts   (or npm run bench)
import { readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseConfig } from '../shared/config.ts';
import { RequestLog } from '../main/observability/request-log.ts';
import { Engine } from '../main/proxy/engine.ts';
import { newLogEntry } from '../main/proxy/request.ts';
import { Notifier } from '../main/usage/notifier.ts';
import { UsageService } from '../main/usage/service.ts';
import { makeTempDir } from '../test/support/temp.ts';
import { interleavedRounds, median, startMock, startVariants, type Variant } from './on-off.ts';
import type { BenchChild } from './processes.ts';

export type UsageBenchOptions = {
  connections: number;
  warmupSec: number;
  durationSec: number;
  rounds: number;
  maxCpuRatio: number;
};
export const DEFAULT_OPTIONS: UsageBenchOptions = {
  connections: 64,
  warmupSec: 1,
  durationSec: 4,
  rounds: 7,
  maxCpuRatio: 1.25,
}; // the issue sets no target: as the limits bench, this guard catches recording costing over a quarter of a request

/** Minute (2 days), hour (60 days) and day (usage.rollup_days, 400 by default) cells one key can have at most. */
const CELLS_PER_KEY = 2 * 24 * 60 + 60 * 24 + 400;

function config(mockBaseUrl: string, variant: Variant): string {
  return JSON.stringify({
    listen_port: 11434,
    log_requests: false,
    providers: [{ name: 'mock', base_url: mockBaseUrl, api_key: 'sk-bench', enabled: true }],
    routing: { default_provider: 'mock', rules: [{ pattern: '*', provider: 'mock' }] },
    health_check: { interval_ms: 0, timeout_ms: 5000 },
    usage: { enabled: variant === 'on' },
    // The mock is on loopback (local: free without a lookup); an override prices every request as a table price would
    prices: [{ provider: 'mock', input: 0.15, output: 0.6, cache_read: 0.075 }],
  });
}

/** The usage store's files: raw bytes and lines (one per request), the snapshots' bytes and cells. */
async function diskOf(dir: string) {
  let rawBytes = 0;
  let records = 0;
  let rollupBytes = 0;
  let cells = 0;
  for (const name of await readdir(dir)) {
    const file = path.join(dir, name);
    if (/^raw-.*\.jsonl$/.test(name)) {
      const text = await readFile(file, 'utf8');
      rawBytes += Buffer.byteLength(text);
      records += text.split('\n').length - 1;
    } else if (/^rollup-.*\.jsonl$/.test(name)) {
      rollupBytes += (await stat(file)).size;
      for (const line of (await readFile(file, 'utf8')).split('\n'))
        if (line) cells += ((JSON.parse(line) as { cells?: unknown[] }).cells ?? []).length;
    }
  }
  return { rawBytes, records, rollupBytes, cells };
}

/**
 * Recording alone, in this process: CPU µs per request-log entry of the request log's add() with usage on and off
 * (priced, counted, its raw line written; the raw batch and a snapshot included), without a socket's noise.
 */
async function recordingCost(dir: string, mockBaseUrl: string, entries = 100_000) {
  const once = async (v: Variant, n: number, run: number): Promise<number> => {
    const parsed = parseConfig(JSON.parse(config(mockBaseUrl, v)));
    if (!parsed.ok) throw new Error('bench config is invalid');
    const cfg = parsed.config;
    const engine = new Engine(cfg, path.join(dir, 'config.json'), new RequestLog(1000));
    const service = await UsageService.open({
      engine,
      config: () => cfg,
      dir: path.join(dir, `in-process-${v}-${run}`),
      notifier: new Notifier(() => cfg.notifications),
    });
    const list = Array.from({ length: n }, () =>
      Object.assign(newLogEntry('/v1/chat/completions'), {
        app: 'bench',
        provider: 'mock',
        routed_model: 'gpt-4o-mini',
        requested_model: 'gpt-4o-mini',
        status: 200,
        prompt_tokens: 300,
        completion_tokens: 2,
        latency_ms: 2,
      }),
    );
    const c0 = process.cpuUsage();
    for (const e of list) engine.requestLog.add(e);
    await service.store.snapshot(); // the raw lines' last batch, then the rollups
    const c = process.cpuUsage(c0);
    await service.close();
    await engine.close();
    return (c.user + c.system) / n;
  };
  await once('off', 10_000, -1);
  await once('on', 10_000, -1);
  const runs: Record<Variant, number[]> = { off: [], on: [] };
  for (let i = 0; i < 3; i++) for (const v of ['off', 'on'] as const) runs[v].push(await once(v, entries, i));
  return { entries, offUs: median(runs.off), onUs: median(runs.on) };
}

export async function main(overrides: Partial<UsageBenchOptions> = {}) {
  const opts = { ...DEFAULT_OPTIONS, ...overrides };
  const log = (m: string) => void process.stderr.write(`[bench:usage] ${m}\n`);
  const temp = await makeTempDir('switchboard-bench-usage');
  const children: BenchChild[] = [];
  const env = { ...process.env, NODE_ENV: 'production' };
  try {
    const mockBaseUrl = await startMock(
      { tokens: ['Hello', ' there'], usage: { prompt_tokens: 300, completion_tokens: 2 } },
      env,
      children,
    );
    const { sbs, dirs } = await startVariants('usage', temp.dir, (v) => config(mockBaseUrl, v), env, children);
    const { off, on, runs } = await interleavedRounds('usage', sbs, opts, log, { 'x-switchboard-app': 'bench' });
    await sbs.on.stop(); // a clean stop writes the last raw lines and the snapshots
    log('recording alone, in-process');
    const alone = await recordingCost(path.join(temp.dir, 'in-process'), mockBaseUrl);
    const disk = await diskOf(path.join(dirs.on, 'data', 'usage'));
    const offDisk = await diskOf(path.join(dirs.off, 'data', 'usage'));

    const cpuRatio = on.cpu / off.cpu;
    const rpsRatio = on.rps / off.rps;
    const rawPerRecord = disk.records > 0 ? disk.rawBytes / disk.records : Number.NaN;
    const rawPer100k = rawPerRecord * 100_000;
    const bytesPerCell = disk.cells > 0 ? disk.rollupBytes / disk.cells : Number.NaN;
    const pass = Number.isFinite(cpuRatio)
      ? cpuRatio <= opts.maxCpuRatio &&
        on.failures === 0 &&
        off.failures === 0 &&
        disk.records > 0 &&
        offDisk.records === 0
      : null;
    const f = (n: number, d = 0) =>
      Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '—';
    const mb = (bytes: number) => f(bytes / 1024 / 1024, 1);
    const table = [
      '## Usage: the usage store on the hot path, and its disk',
      '',
      `POST /v1/chat/completions, 1 KB request, c=${opts.connections}, ${opts.durationSec} s per run after ${opts.warmupSec} s warm-up, ` +
        `${opts.rounds} interleaved rounds (medians); ${os.cpus().length} cores, Node ${process.versions.node}.`,
      '',
      '| Switchboard | req/s | CPU µs per request | non-2xx + errors |',
      '|---|--:|--:|--:|',
      `| usage off | ${f(off.rps)} | ${f(off.cpu)} | ${off.failures} |`,
      `| usage on (each request priced, counted, its raw line batched to disk) | ${f(on.rps)} | ${f(on.cpu)} | ${on.failures} |`,
      `| **on ÷ off** | ${f(rpsRatio, 2)}× | ${f(cpuRatio, 2)}× | |`,
      '',
      `Recording alone, in this process (${f(alone.entries)} request-log entries, medians of 3): ` +
        `**${f(alone.onUs - alone.offUs, 1)} µs per request** (${f(alone.onUs, 1)} µs with usage on, ${f(alone.offUs, 1)} µs off: ` +
        'the log entry, its record priced and counted, its raw line written, the rollups snapshotted).',
      '',
      '| Disk (usage on) | |',
      '|---|--:|',
      `| requests recorded | ${f(disk.records)} |`,
      `| raw files | ${mb(disk.rawBytes)} MB (${f(rawPerRecord)} bytes per request) |`,
      `| **raw files per 100,000 requests** | **${mb(rawPer100k)} MB** (kept usage.raw_days, 7 by default) |`,
      `| rollup snapshot files now | ${f(disk.rollupBytes / 1024, 1)} KB (${f(disk.cells)} cell lines, ${f(bytesPerCell)} bytes each) |`,
      `| rollups at most, per app × provider × model | ${f((CELLS_PER_KEY * bytesPerCell) / 1024)} KB (${f(CELLS_PER_KEY)} cells: 2 days of minutes, 60 days of hours, 400 days) |`,
      '',
      `Check: CPU per request with usage on ≤ ${opts.maxCpuRatio}× off, and nothing written with usage off: ${pass === null ? 'skipped (no /proc)' : pass ? 'pass' : '**FAIL**'}.`,
      '',
    ].join('\n');
    return {
      name: 'usage',
      options: opts,
      runs,
      off,
      on,
      cpuRatio,
      rpsRatio,
      disk,
      rawPer100k,
      recordingAlone: alone,
      pass,
      table,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await temp.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await main();
  console.log(result.table);
  if (result.pass === false) process.exitCode = 1;
}
