// Group commit: appends wait in one bounded buffer; one writer writes each batch with one write and one fdatasync.
import { WalError, walErrorFromFs } from './errors.ts';
import { sealFrameRun, writeFrame, type EncodedRecord } from './framing.ts';
import type { WalFile, WalFs } from './fs.ts';
import { scanSegment } from './scan.ts';
import { inDir, segmentName, type SegmentInfo } from './segment.ts';

export interface AppendResult {
  firstSeq: number;
  lastSeq: number;
}

interface Waiter {
  records: number;
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
}

/** A write buffer: frames (seq not yet given) of the appends waiting on them. */
class Batch {
  buf: Buffer;
  used = 0;
  records = 0;
  waiters: Waiter[] = [];

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Adds an append's records (or its frames, already written aside). */
  add(waiter: Waiter, records: readonly EncodedRecord[] | Buffer, bytes: number): void {
    if (this.used + bytes > this.buf.length) {
      // Only when empty (an append bigger than the buffer): give this batch a buffer of its own size.
      this.buf = Buffer.allocUnsafe(this.used + bytes);
    }
    if (Buffer.isBuffer(records)) this.used += records.copy(this.buf, this.used);
    else this.used = writeFrames(this.buf, this.used, records);
    this.records += waiter.records;
    this.waiters.push(waiter);
  }
}

function writeFrames(buf: Buffer, at: number, records: readonly EncodedRecord[]): number {
  for (const record of records) at = writeFrame(buf, at, record);
  return at;
}

/** An append that found the buffer full: its frames, written aside until the writer empties the buffer. */
interface Blocked {
  waiter: Waiter;
  frames: Buffer;
}

export interface CommitterOptions {
  fs: WalFs;
  dir: string;
  segmentBytes: number;
  bufferBytes: number;
  delayMs: number;
  /** Shared with the log: in order, the last one is where batches go. The committer adds to it when it rolls. */
  segments: SegmentInfo[];
  nextSeq: number;
  onCommitted: (records: number) => void;
}

export class Committer {
  /** Records accepted but not yet durable (buffered, blocked on a full buffer, or being written). */
  pendingRecords = 0;
  /** Last seq on disk and fsynced. */
  durableSeq: number;
  /** Batches written and fsynced so far (records per fsync = records / batches). */
  durableBatches = 0;
  /** Set by a failed write or fsync; cleared once the file has been reopened and checked. */
  fault: WalError | null = null;

  private readonly o: CommitterOptions;
  private file: WalFile | null = null;
  /** The buffer appends go into; `spare` is the other one, free while no batch is being written. */
  private filling: Batch;
  private spare: Batch | null;
  private fillingSince = 0;
  private blocked: Blocked[] = [];
  private flushing = false;
  private timer: { kind: 'immediate'; id: NodeJS.Immediate } | { kind: 'timeout'; id: NodeJS.Timeout } | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  private constructor(options: CommitterOptions) {
    this.o = options;
    this.durableSeq = options.nextSeq - 1;
    this.filling = new Batch(options.bufferBytes);
    this.spare = new Batch(options.bufferBytes);
  }

  static async open(options: CommitterOptions): Promise<Committer> {
    const committer = new Committer(options);
    const active = committer.active;
    try {
      committer.file = await options.fs.open(inDir(options.dir, active.name), 'update');
    } catch (err) {
      throw walErrorFromFs(err, `opening ${active.name}`, options.dir);
    }
    return committer;
  }

  private get active(): SegmentInfo {
    return this.o.segments[this.o.segments.length - 1] as SegmentInfo;
  }

  get bufferUsage(): number {
    return Math.min(1, this.filling.used / this.o.bufferBytes);
  }

  /** Queues records; resolves once they are durable, with the seqs they were given. bytes: their frames' size. */
  append(records: readonly EncodedRecord[], bytes: number): Promise<AppendResult> {
    if (this.closed) return Promise.reject(closedError(this.o.dir));
    return new Promise<AppendResult>((resolve, reject) => {
      const waiter: Waiter = { records: records.length, resolve, reject };
      this.pendingRecords += records.length;
      const filling = this.filling;
      if (this.blocked.length === 0 && (filling.used === 0 || filling.used + bytes <= this.o.bufferBytes)) {
        if (filling.used === 0) this.fillingSince = Date.now();
        filling.add(waiter, records, bytes);
      } else {
        // The buffer is full: keep the frames aside until the writer takes the buffer.
        const frames = Buffer.allocUnsafe(bytes);
        writeFrames(frames, 0, records);
        this.blocked.push({ waiter, frames });
      }
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing || this.filling.used === 0) return;
    if (this.filling.used >= this.o.bufferBytes || this.blocked.length > 0 || this.closed) {
      this.startFlush();
      return;
    }
    if (this.timer) return;
    const wait = this.o.delayMs - (Date.now() - this.fillingSince);
    // Even with no delay, wait for the current turn of the event loop so that appends made in it share the fsync.
    this.timer =
      wait <= 0
        ? { kind: 'immediate', id: setImmediate(() => this.startFlush()) }
        : { kind: 'timeout', id: setTimeout(() => this.startFlush(), wait) };
  }

  private clearTimer(): void {
    if (!this.timer) return;
    if (this.timer.kind === 'immediate') clearImmediate(this.timer.id);
    else clearTimeout(this.timer.id);
    this.timer = null;
  }

  private startFlush(): void {
    this.clearTimer();
    if (this.flushing || this.filling.used === 0) return;
    this.flushing = true;
    void this.writeLoop();
  }

  /** Takes the filled buffer as the next batch and lets blocked appends into the other one. */
  private takeBatch(): Batch | null {
    if (this.filling.used === 0) return null;
    const batch = this.filling;
    this.filling = this.spare ?? new Batch(this.o.bufferBytes);
    this.spare = null;
    while (this.blocked.length > 0) {
      const { waiter, frames } = this.blocked[0] as Blocked;
      if (this.filling.used > 0 && this.filling.used + frames.length > this.o.bufferBytes) break;
      this.blocked.shift();
      if (this.filling.used === 0) this.fillingSince = Date.now();
      this.filling.add(waiter, frames, frames.length);
    }
    return batch;
  }

  /** A written batch's buffer becomes the spare (unless it was grown for one big append). */
  private recycle(batch: Batch): void {
    if (this.spare || batch.buf.length !== this.o.bufferBytes) return;
    batch.used = 0;
    batch.records = 0;
    batch.waiters = [];
    this.spare = batch;
  }

  /**
   * The one writer. When a batch is durable, the next one (the appends that came during its fsync) is handed to
   * the disk before the finished batch's callers are resumed, so their work overlaps the next fsync.
   */
  private async writeLoop(): Promise<void> {
    this.clearTimer();
    let batch = this.takeBatch();
    let writing = batch ? this.exclusive(() => this.writeBatch(batch as Batch)) : null;
    while (batch && writing) {
      const outcome = await writing;
      const { waiters, records } = batch;
      this.recycle(batch);
      const next = this.takeBatch();
      writing = next ? this.exclusive(() => this.writeBatch(next)) : null;
      this.settle(waiters, records, outcome);
      batch = next;
    }
    this.flushing = false;
    this.schedule();
    if (!this.flushing && this.filling.used === 0 && this.blocked.length === 0) {
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Runs batches and control steps (roll, close) one at a time: they share the active file. */
  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.chain.then(run);
    this.chain = result.catch(() => {});
    return result;
  }

  /** Numbers, writes and fsyncs one batch; never throws (the outcome says what happened). */
  private async writeBatch(batch: Batch): Promise<{ firstSeq: number } | { error: WalError }> {
    try {
      await this.healIfFaulted();
      if (this.active.bytes > 0 && this.active.bytes + batch.used > this.o.segmentBytes) await this.roll();
      const active = this.active;
      const file = this.file as WalFile;
      const firstSeq = this.durableSeq + 1;
      sealFrameRun(batch.buf, batch.used, firstSeq);
      try {
        await file.write(batch.buf.subarray(0, batch.used), active.bytes);
      } catch (err) {
        throw this.markFault(err, `writing ${batch.records} records to ${active.name}`);
      }
      try {
        await file.datasync();
      } catch (err) {
        throw this.markFault(err, `fsync of ${active.name}`);
      }
      active.bytes += batch.used;
      active.lastSeq = firstSeq + batch.records - 1;
      this.durableSeq = active.lastSeq;
      this.durableBatches += 1;
      return { firstSeq };
    } catch (err) {
      return { error: err instanceof WalError ? err : walErrorFromFs(err, 'appending', this.o.dir) };
    }
  }

  /** Resumes the callers of a written batch. */
  private settle(waiters: Waiter[], records: number, outcome: { firstSeq: number } | { error: WalError }): void {
    this.pendingRecords -= records;
    if ('error' in outcome) {
      for (const waiter of waiters) waiter.reject(outcome.error);
      return;
    }
    let seq = outcome.firstSeq;
    for (const waiter of waiters) {
      waiter.resolve({ firstSeq: seq, lastSeq: seq + waiter.records - 1 });
      seq += waiter.records;
    }
    this.o.onCommitted(records);
  }

  private markFault(err: unknown, what: string): WalError {
    this.fault = walErrorFromFs(err, what, this.o.dir);
    return this.fault;
  }

  /**
   * After a failed write or fsync ("fsyncgate"): the kernel may have dropped the dirty pages and marked them
   * clean, so a second fsync on the same descriptor can succeed for data that never reached the disk. So never
   * retry it: drop the descriptor, reopen the file, cut it back to the last acknowledged byte, fsync that, and
   * read the whole segment back to check every acknowledged record is there.
   */
  private async healIfFaulted(): Promise<void> {
    if (!this.fault) return;
    const { fs, dir } = this.o;
    const active = this.active;
    const path = inDir(dir, active.name);
    await this.file?.close().catch(() => {});
    this.file = null;
    let file: WalFile | null = null;
    try {
      file = await fs.open(path, 'update');
      const size = await file.size();
      if (size < active.bytes) throw damaged(active.name, `is ${size} bytes but ${active.bytes} were acknowledged`);
      await file.truncate(active.bytes);
      await file.datasync();
      const scan = scanSegment(await fs.readFile(path), { expected: 0, covered: Number.MAX_SAFE_INTEGER });
      if (scan.damaged || scan.tailBytes > 0 || scan.validEnd !== active.bytes || scan.lastSeq !== active.lastSeq)
        throw damaged(active.name, 'no longer holds every acknowledged record');
    } catch (err) {
      await file?.close().catch(() => {});
      this.fault =
        err instanceof WalError ? err : walErrorFromFs(err, `reopening ${active.name} after a failed write`, dir);
      throw this.fault;
    }
    this.file = file;
    this.fault = null;
  }

  /** Starts a new segment named after the next seq; the old one is already fsynced. */
  private async roll(): Promise<void> {
    const { fs, dir } = this.o;
    const name = segmentName(this.durableSeq + 1);
    const path = inDir(dir, name);
    let file: WalFile;
    try {
      file = await fs.open(path, 'create');
    } catch (err) {
      throw this.markFault(err, `creating ${name}`);
    }
    try {
      await fs.syncDir(dir);
    } catch (err) {
      await file.close().catch(() => {});
      await fs.unlink(path).catch(() => {});
      throw this.markFault(err, `fsync of ${dir} after creating ${name}`);
    }
    await this.file?.close().catch(() => {});
    this.file = file;
    this.o.segments.push({ name, firstSeq: this.durableSeq + 1, lastSeq: null, bytes: 0 });
  }

  /** For compaction: closes the active segment if it holds records, so that a snapshot can cover all of it. */
  rollIfUsed(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw closedError(this.o.dir);
      await this.healIfFaulted();
      if (this.active.bytes > 0) await this.roll();
    });
  }

  /** Flushes everything accepted, then closes the file. Appends after this are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.schedule();
    if (this.flushing || this.filling.used > 0 || this.blocked.length > 0)
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.exclusive(async () => {
      await this.file?.close();
      this.file = null;
    });
  }
}

function closedError(dir: string): WalError {
  return new WalError(
    'closed',
    `the write-ahead log in ${dir} is closed`,
    'Open the log again (openWal) before appending.',
  );
}

function damaged(name: string, what: string): WalError {
  return new WalError(
    'damaged',
    `${name} ${what}`,
    'Restart Switchboard: opening the log checks every record, keeps damaged files aside and reports what was lost.',
  );
}
