// WAL bench: durable appends/s for 1, 16 and 256 concurrent writers (200-byte records) against a baseline
// measured in the same run (fs.appendFile + fsync per record, no group commit), and recovery time of a big log.
// Each figure is the median of WAL_BENCH_ROUNDS rounds (default 3) of WAL_BENCH_SECONDS (default 1) per case,
// baseline and WAL interleaved, because the machine is noisy: compare ratios, not absolute rates.
// Recovery: a log of WAL_BENCH_RECOVERY_MB megabytes (default 1024) of 200-byte records, opened (every record's
// checksums verified) and replayed in full. The page cache is warm (the log was just written).
// Run: node --import tsx bench/wal.ts   (or npm run bench, which runs every bench)
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { encodeRecordParts, sealFrameRun, writeFrame } from '../main/wal/framing.ts';
import { openWal } from '../main/wal/index.ts';
import { segmentName } from '../main/wal/segment.ts';

const RECORD = Buffer.alloc(200, 0x61);
const WRITERS = [1, 16, 256];
const TARGET_RATIO = 20;
const TARGET_RATE = 20_000;

export interface WalBenchRow {
  writers: number;
  baselinePerSec: number;
  walPerSec: number;
  /** WAL against the baseline with the same number of writers. */
  ratio: number;
  /** WAL against one baseline writer (one appendFile + fsync at a time). */
  ratioVsOneWriter: number;
  recordsPerFsync: number;
}

export interface WalRecoveryResult {
  megabytes: number;
  records: number;
  segments: number;
  openMs: number;
  replayMs: number;
  /** Scaled linearly to 1 GB when the log was smaller. */
  totalMsFor1GB: number;
  extrapolated: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `writers` loops each doing `op` until the time is up; returns completed ops per second. */
async function closedLoop(writers: number, seconds: number, op: () => Promise<unknown>): Promise<number> {
  let done = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (performance.now() < end) {
        await op();
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

async function baseline(dir: string, writers: number, seconds: number): Promise<number> {
  const file = path.join(dir, `baseline-${writers}-${Math.random().toString(36).slice(2)}.log`);
  const handle = await fsp.open(file, 'a');
  try {
    return await closedLoop(writers, seconds, async () => {
      await handle.appendFile(RECORD);
      await handle.sync();
    });
  } finally {
    await handle.close();
    await fsp.rm(file, { force: true });
  }
}

async function walRun(dir: string, writers: number, seconds: number): Promise<{ rate: number; perFsync: number }> {
  const walDir = path.join(dir, `wal-${writers}-${Math.random().toString(36).slice(2)}`);
  const wal = await openWal({ dir: walDir, autoCompactBytes: 0 });
  try {
    const record = [{ type: 1, data: RECORD }];
    const rate = await closedLoop(writers, seconds, () => wal.append(record));
    const { durableBatches, lastSeq } = wal.info();
    return { rate, perFsync: lastSeq / Math.max(1, durableBatches) };
  } finally {
    await wal.close();
    await fsp.rm(walDir, { recursive: true, force: true });
  }
}

/** Writes a log of about `megabytes` MB straight in the WAL's file format (16 MiB segments), fsynced once. */
async function writeBigLog(dir: string, megabytes: number): Promise<{ records: number; segments: number }> {
  await fsp.mkdir(dir, { recursive: true });
  const segmentBytes = 16 * 1024 * 1024;
  const frame = encodeRecordParts({ type: 1, data: RECORD });
  const perSegment = Math.floor(segmentBytes / frame.frameBytes);
  const total = Math.floor((megabytes * 1024 * 1024) / frame.frameBytes);
  const buf = Buffer.allocUnsafe(perSegment * frame.frameBytes);
  let seq = 1;
  let segments = 0;
  while (seq <= total) {
    const count = Math.min(perSegment, total - seq + 1);
    let at = 0;
    for (let i = 0; i < count; i++) at = writeFrame(buf, at, frame);
    sealFrameRun(buf, at, seq);
    const handle = await fsp.open(path.join(dir, segmentName(seq)), 'w');
    await handle.write(buf, 0, at, 0);
    await handle.datasync();
    await handle.close();
    seq += count;
    segments += 1;
  }
  return { records: total, segments };
}

async function recovery(dir: string, megabytes: number): Promise<WalRecoveryResult> {
  const logDir = path.join(dir, 'recovery');
  const { records, segments } = await writeBigLog(logDir, megabytes);
  let started = performance.now();
  const wal = await openWal({ dir: logDir, autoCompactBytes: 0 });
  const openMs = performance.now() - started;
  started = performance.now();
  let replayed = 0;
  for await (const record of wal.replay()) {
    if (record.seq !== replayed + 1) throw new Error(`recovery bench: seq ${record.seq} after ${replayed}`);
    replayed += 1;
  }
  const replayMs = performance.now() - started;
  if (replayed !== records || wal.status().corrupted_entries !== 0)
    throw new Error(`recovery bench: replayed ${replayed} of ${records}`);
  await wal.close();
  await fsp.rm(logDir, { recursive: true, force: true });
  const scale = 1024 / megabytes;
  return {
    megabytes,
    records,
    segments,
    openMs,
    replayMs,
    totalMsFor1GB: (openMs + replayMs) * scale,
    extrapolated: megabytes !== 1024,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function main(): Promise<{
  table: string;
  pass: boolean;
  rows: WalBenchRow[];
  recovery: WalRecoveryResult;
}> {
  const seconds = Number(process.env.WAL_BENCH_SECONDS ?? 1);
  const rounds = Number(process.env.WAL_BENCH_ROUNDS ?? 3);
  const recoveryMb = Number(process.env.WAL_BENCH_RECOVERY_MB ?? 1024);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'switchboard-wal-bench-'));
  try {
    const samples = new Map<number, { baseline: number[]; wal: number[]; perFsync: number[] }>();
    for (const writers of WRITERS) samples.set(writers, { baseline: [], wal: [], perFsync: [] });
    for (let round = 0; round < rounds; round++) {
      for (const writers of WRITERS) {
        const s = samples.get(writers) as { baseline: number[]; wal: number[]; perFsync: number[] };
        const runBaseline = async () => s.baseline.push(await baseline(dir, writers, seconds));
        const runWal = async () => {
          const { rate, perFsync } = await walRun(dir, writers, seconds);
          s.wal.push(rate);
          s.perFsync.push(perFsync);
        };
        // Alternate which goes first, so neither always gets the quieter moment.
        if (round % 2 === 0) await runBaseline().then(runWal);
        else await runWal().then(runBaseline);
      }
    }
    const oneWriterBaseline = median(samples.get(1)?.baseline ?? [1]);
    const rows: WalBenchRow[] = WRITERS.map((writers) => {
      const s = samples.get(writers) as { baseline: number[]; wal: number[]; perFsync: number[] };
      const baselinePerSec = median(s.baseline);
      const walPerSec = median(s.wal);
      return {
        writers,
        baselinePerSec,
        walPerSec,
        ratio: walPerSec / baselinePerSec,
        ratioVsOneWriter: walPerSec / oneWriterBaseline,
        recordsPerFsync: median(s.perFsync),
      };
    });
    const rec = await recovery(dir, recoveryMb);

    const top = rows[rows.length - 1] as WalBenchRow;
    const rateOk = top.walPerSec >= TARGET_RATE;
    // The target's baseline is "appendFile + fsync per record, no group commit": one record per fsync, which is
    // one writer (about 7,400/s on an ext4 disk here). Concurrent baseline writers are shown too, and not hidden when lower.
    const ratioOk = top.ratioVsOneWriter >= TARGET_RATIO;
    const lines = [
      `## WAL: durable appends/s, 200-byte records (median of ${rounds} × ${seconds} s, node ${process.version}, ${os.cpus().length} cores)`,
      '',
      '| writers | baseline: appendFile + fsync per record (/s) | WAL, group commit (/s) | × baseline, same writers | × baseline, 1 writer | records per fsync |',
      '|--:|--:|--:|--:|--:|--:|',
      ...rows.map(
        (r) =>
          `| ${r.writers} | ${fmt(r.baselinePerSec)} | ${fmt(r.walPerSec)} | ${r.ratio.toFixed(1)}× | ${r.ratioVsOneWriter.toFixed(1)}× | ${r.recordsPerFsync.toFixed(1)} |`,
      ),
      '',
      `256 writers: ${fmt(top.walPerSec)} durable appends/s (target ≥ ${fmt(TARGET_RATE)}: ${rateOk ? 'met' : 'NOT met'}); ` +
        `${top.ratioVsOneWriter.toFixed(1)}× the one-record-per-fsync baseline (target ≥ ${TARGET_RATIO}×: ${ratioOk ? 'met' : 'NOT met'}); ` +
        `${top.ratio.toFixed(1)}× 256 concurrent baseline writers (${top.ratio >= TARGET_RATIO ? 'also' : 'not'} ≥ ${TARGET_RATIO}×).`,
      'Concurrent baseline writers are not one fsync per record on disk: ext4 (jbd2) folds concurrent fsyncs into',
      'shared journal commits, so their rate grows with writers (libuv runs 4 at a time).',
      '',
      `### Recovery of a ${fmt(rec.megabytes)} MB log (${fmt(rec.records)} records, ${rec.segments} segments, warm page cache)`,
      '',
      '| open (scan + verify every CRC) | replay every record | total | total for 1 GB |',
      '|--:|--:|--:|--:|',
      `| ${(rec.openMs / 1000).toFixed(2)} s | ${(rec.replayMs / 1000).toFixed(2)} s | ${((rec.openMs + rec.replayMs) / 1000).toFixed(2)} s | ${(rec.totalMsFor1GB / 1000).toFixed(2)} s${rec.extrapolated ? ' (extrapolated linearly; set WAL_BENCH_RECOVERY_MB=1024 to measure)' : ' (measured)'} |`,
      '',
    ];
    return { table: lines.join('\n'), pass: rateOk && ratioOk, rows, recovery: rec };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await main();
  console.log(result.table);
}
