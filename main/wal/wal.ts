// WalLog: the write-ahead log an owner appends to, replays at start and compacts with its own snapshots.
import path from 'node:path';
import { Committer, type AppendResult } from './committer.ts';
import { compactLog, type CompactionResult, type SnapshotProvider } from './compaction.ts';
import { WalError, walErrorFromFs } from './errors.ts';
import { decodeFrame, encodeRecordParts, type AppendRecord, type EncodedRecord, type WalRecord } from './framing.ts';
import { nodeFs, type WalFs } from './fs.ts';
import { lockFolder } from './lock.ts';
import { recoverFolder, type RecoveryReport } from './recovery.ts';
import { scanSegment } from './scan.ts';
import { inDir, type SegmentInfo } from './segment.ts';
import { readSnapshot, type Snapshot } from './snapshot.ts';

export interface WalOptions {
  /** The data folder (see defaultWalDir). Created if missing. */
  dir: string;
  /** A segment is closed and a new one started past this size. Default 16 MiB. */
  segmentBytes?: number;
  /** Group-commit buffer: a batch is written when it holds this much. Default 1 MiB. */
  bufferBytes?: number;
  /** Longest wait before a partly filled buffer is written. Default 0: the end of the current event-loop turn. */
  groupCommitDelayMs?: number;
  /** Compact automatically when the segments pass this size (needs setSnapshotProvider). Default 64 MiB; 0: never. */
  autoCompactBytes?: number;
  /** File-system calls (tests inject faults with FaultyFs). Default: node:fs. */
  fs?: WalFs;
  /** Called with errors of work nobody awaits (automatic compaction). */
  onError?: (err: unknown) => void;
  /** Clock for last_compaction and damaged-file names. */
  now?: () => Date;
}

/** The WAL status object of GET /api/v1/wal/status. */
export interface WalStatus {
  /** Durable records after the last snapshot: what a restart replays. */
  total_entries: number;
  /** Records accepted by append() and not yet durable. */
  pending_entries: number;
  /** Records after the last snapshot that the log should hold but could not read (damaged or missing). */
  corrupted_entries: number;
  /** Fill fraction (0..1) of the group-commit buffer. */
  buffer_usage: number;
  /** Time of the last compaction (ISO 8601 UTC), or null if the folder has none. */
  last_compaction: string | null;
}

/** More than the status object, for logs, metrics and tests. */
export interface WalInfo {
  dir: string;
  lastSeq: number;
  snapshotSeq: number;
  segments: { name: string; firstSeq: number; lastSeq: number | null; bytes: number }[];
  logBytes: number;
  /** Batches written and fsynced since open: each is one write + one fdatasync (group commit). */
  durableBatches: number;
  /** The write fault the log is recovering from, or null. */
  fault: WalError | null;
  lastError: unknown;
  recovery: RecoveryReport;
}

export const DEFAULTS = {
  segmentBytes: 16 * 1024 * 1024,
  bufferBytes: 1024 * 1024,
  groupCommitDelayMs: 0,
  autoCompactBytes: 64 * 1024 * 1024,
} as const;

/** The default data folder: data/ beside config.json. */
export function defaultWalDir(configFile: string): string {
  return path.join(path.dirname(configFile), 'data');
}

function positive(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < min)
    throw new RangeError(`WAL option ${name} must be a number ≥ ${min}, got ${value}`);
  return v;
}

export async function openWal(options: WalOptions): Promise<WalLog> {
  const fs = options.fs ?? nodeFs;
  const dir = options.dir;
  const segmentBytes = positive('segmentBytes', options.segmentBytes, DEFAULTS.segmentBytes, 1);
  const bufferBytes = positive('bufferBytes', options.bufferBytes, DEFAULTS.bufferBytes, 1);
  const delayMs = positive('groupCommitDelayMs', options.groupCommitDelayMs, DEFAULTS.groupCommitDelayMs, 0);
  const autoCompactBytes = positive('autoCompactBytes', options.autoCompactBytes, DEFAULTS.autoCompactBytes, 0);
  const now = options.now ?? (() => new Date());

  try {
    await fs.mkdirp(dir);
  } catch (err) {
    throw walErrorFromFs(err, `creating ${dir}`, dir);
  }
  const unlock = await lockFolder(fs, dir);
  try {
    const recovered = await recoverFolder(fs, dir, now);
    let log: WalLog | null = null;
    const committer = await Committer.open({
      fs,
      dir,
      segmentBytes,
      bufferBytes,
      delayMs,
      segments: recovered.segments,
      nextSeq: recovered.nextSeq,
      onCommitted: () => log?.maybeAutoCompact(),
    });
    log = new WalLog({ fs, dir, now, autoCompactBytes, onError: options.onError, committer, recovered, unlock });
    return log;
  } catch (err) {
    await unlock();
    throw err;
  }
}

interface WalParts {
  fs: WalFs;
  dir: string;
  now: () => Date;
  autoCompactBytes: number;
  onError: ((err: unknown) => void) | undefined;
  committer: Committer;
  recovered: Awaited<ReturnType<typeof recoverFolder>>;
  unlock: () => Promise<void>;
}

export class WalLog {
  readonly dir: string;
  private readonly fs: WalFs;
  private readonly now: () => Date;
  private readonly committer: Committer;
  private readonly segments: SegmentInfo[];
  private readonly unlock: () => Promise<void>;
  private readonly autoCompactBytes: number;
  private readonly onError: ((err: unknown) => void) | undefined;
  private readonly recovery: RecoveryReport;
  private readonly lost: [number, number][];
  private readonly corrupted: number;
  private snapshot: { name: string; seq: number; createdAt: string } | null;
  private provider: SnapshotProvider | null = null;
  private compacting: Promise<CompactionResult> | null = null;
  private nextAutoCompactAt: number;
  private readersNow = 0;
  private closing: Promise<void> | null = null;
  private lastError: unknown = null;

  /** Use openWal(). */
  constructor(parts: WalParts) {
    this.fs = parts.fs;
    this.dir = parts.dir;
    this.now = parts.now;
    this.committer = parts.committer;
    this.segments = parts.recovered.segments;
    this.unlock = parts.unlock;
    this.autoCompactBytes = parts.autoCompactBytes;
    this.onError = parts.onError;
    this.recovery = parts.recovered.report;
    this.lost = parts.recovered.lost;
    this.corrupted = parts.recovered.lostRecords;
    this.snapshot = parts.recovered.snapshot;
    this.nextAutoCompactAt = parts.autoCompactBytes;
  }

  /** Appends records; resolves once all of them are durable (fsynced), with the seqs they were given. */
  append(records: readonly AppendRecord[]): Promise<AppendResult> {
    if (this.closing)
      return Promise.reject(
        new WalError('closed', `the write-ahead log in ${this.dir} is closed`, 'Open it again with openWal().'),
      );
    const encoded: EncodedRecord[] = [];
    let bytes = 0;
    try {
      for (const record of records) {
        const parts = encodeRecordParts(record);
        bytes += parts.frameBytes;
        encoded.push(parts);
      }
    } catch (err) {
      return Promise.reject(err);
    }
    if (encoded.length === 0) {
      const next = this.committer.durableSeq + 1;
      return Promise.resolve({ firstSeq: next, lastSeq: next - 1 });
    }
    return this.committer.append(encoded, bytes);
  }

  /** The durable records after `afterSeq` (default: the current snapshot's seq), in seq order. */
  async *replay(options: { afterSeq?: number } = {}): AsyncGenerator<WalRecord> {
    const after = options.afterSeq ?? this.snapshot?.seq ?? 0;
    const segments = this.segments.map((s) => ({ ...s }));
    this.readersNow += 1;
    try {
      for (const segment of segments) {
        if (segment.bytes === 0 || (segment.lastSeq !== null && segment.lastSeq <= after)) continue;
        let buf: Buffer;
        try {
          buf = (await this.fs.readFile(inDir(this.dir, segment.name))).subarray(0, segment.bytes);
        } catch (err) {
          throw walErrorFromFs(err, `reading ${segment.name}`, this.dir);
        }
        const records: WalRecord[] = [];
        scanSegment(buf, { expected: 0, covered: Number.MAX_SAFE_INTEGER }, (offset, seq) => {
          if (seq > after) records.push(decodeFrame(buf, offset));
        });
        yield* records;
      }
    } finally {
      this.readersNow -= 1;
    }
  }

  /** The newest snapshot ({seq, data, createdAt}), or null. Replay continues after its seq. */
  async loadSnapshot(): Promise<Snapshot | null> {
    if (!this.snapshot) return null;
    try {
      return await readSnapshot(this.fs, this.dir, this.snapshot.name);
    } catch (err) {
      throw walErrorFromFs(err, `reading ${this.snapshot.name}`, this.dir);
    }
  }

  /** The snapshot source automatic compaction (and compact() without an argument) uses. */
  setSnapshotProvider(provider: SnapshotProvider | null): void {
    this.provider = provider;
  }

  /** Writes a snapshot and drops the log it covers (POST /api/v1/wal/compact). Concurrent calls share one run. */
  compact(provider?: SnapshotProvider): Promise<CompactionResult> {
    if (this.closing)
      return Promise.reject(
        new WalError('closed', `the write-ahead log in ${this.dir} is closed`, 'Open it again with openWal().'),
      );
    if (this.compacting) return this.compacting;
    const source = provider ?? this.provider;
    if (!source)
      return Promise.reject(
        new Error('compact() needs a snapshot provider: pass one or call setSnapshotProvider() first'),
      );
    const run = compactLog(
      {
        fs: this.fs,
        dir: this.dir,
        now: this.now,
        segments: this.segments,
        // A failed roll leaves the fault to the next append; compaction goes on (it may be what frees the disk).
        rollActiveSegment: () => this.committer.rollIfUsed().catch(() => {}),
        durableSeq: () => this.committer.durableSeq,
        snapshotSeq: () => this.snapshot?.seq ?? 0,
        readers: () => this.readersNow,
        installSnapshot: (snapshot) => {
          this.snapshot = snapshot;
        },
      },
      source,
    );
    this.compacting = run;
    const clear = () => {
      this.compacting = null;
      this.nextAutoCompactAt = Math.max(this.autoCompactBytes, this.logBytes() + this.autoCompactBytes / 2);
    };
    run.then(clear, clear);
    return run;
  }

  /** Called after each durable batch. */
  maybeAutoCompact(): void {
    if (this.autoCompactBytes <= 0 || !this.provider || this.compacting || this.closing) return;
    if (this.logBytes() < this.nextAutoCompactAt) return;
    this.compact().catch((err: unknown) => {
      this.lastError = err;
      this.onError?.(err);
    });
  }

  private logBytes(): number {
    let total = 0;
    for (const segment of this.segments) total += segment.bytes;
    return total;
  }

  status(): WalStatus {
    const snapshotSeq = this.snapshot?.seq ?? 0;
    let lostAfter = 0;
    for (const [from, to] of this.lost) if (to > snapshotSeq) lostAfter += to - Math.max(from, snapshotSeq + 1) + 1;
    return {
      total_entries: Math.max(0, this.committer.durableSeq - snapshotSeq - lostAfter),
      pending_entries: this.committer.pendingRecords,
      corrupted_entries: this.corrupted,
      buffer_usage: this.committer.bufferUsage,
      last_compaction: this.snapshot?.createdAt ?? null,
    };
  }

  info(): WalInfo {
    return {
      dir: this.dir,
      lastSeq: this.committer.durableSeq,
      snapshotSeq: this.snapshot?.seq ?? 0,
      segments: this.segments.map((s) => ({ ...s })),
      logBytes: this.logBytes(),
      durableBatches: this.committer.durableBatches,
      fault: this.committer.fault,
      lastError: this.lastError,
      recovery: this.recovery,
    };
  }

  /** Waits for buffered appends and a running compaction, closes the files and releases the folder. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.compacting?.catch(() => {});
        await this.committer.close();
      } finally {
        await this.unlock();
      }
    })();
    return this.closing;
  }
}
