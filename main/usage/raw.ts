// The usage store's raw records: one JSON line per request in daily files (raw-YYYY-MM-DD.jsonl, by the UTC date
// they were written on) under data/usage/. Lines are appended in batches off the request's path (a short timer), so
// a kill -9 loses at most the batch not yet written; a line torn by a crash mid-write is skipped and counted when the
// files are read, never fatal, and the next append starts on a line of its own. Files past usage.raw_days go.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { UsageRecord } from '../../shared/usage.ts';
import { CostSourceSchema } from '../../shared/usage.ts';
import { utcDate } from './periods.ts';

const RAW_NAME = /^raw-(\d{4}-\d{2}-\d{2})\.jsonl$/;
const NEWLINE = 0x0a;
const BACKWARD_CHUNK = 64 * 1024;
/** Replay reads a file from its position in pieces of this size (never the whole day's file at once). */
const REPLAY_CHUNK = 1024 * 1024;

/** Where a line ends (just past its newline) in the raw files: the file's name and a byte offset. */
export type RawPosition = { file: string; offset: number };

/** Orders positions; null is before every position (nothing read yet). */
export function comparePositions(a: RawPosition | null, b: RawPosition | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.offset - b.offset;
}

export const rawFileName = (t: number): string => `raw-${utcDate(t)}.jsonl`;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';

/** A parsed line as a record, or null when it is not one (a torn line, or anything else). */
export function asRecord(v: unknown): UsageRecord | null {
  if (!v || typeof v !== 'object') return null;
  const r = v as Record<string, unknown>;
  const ok =
    typeof r.id === 'string' &&
    typeof r.time === 'string' &&
    Number.isFinite(Date.parse(r.time)) &&
    isStringOrNull(r.app) &&
    isStringOrNull(r.provider) &&
    isStringOrNull(r.model) &&
    isStringOrNull(r.requested_model) &&
    typeof r.path === 'string' &&
    isInt(r.status) &&
    typeof r.stream === 'boolean' &&
    typeof r.latency_ms === 'number' &&
    isInt(r.prompt_tokens) &&
    isInt(r.completion_tokens) &&
    isInt(r.cache_read_tokens) &&
    isInt(r.cache_write_tokens) &&
    (r.cache_write_5m_tokens === undefined || isInt(r.cache_write_5m_tokens)) &&
    (r.cache_write_1h_tokens === undefined || isInt(r.cache_write_1h_tokens)) &&
    isInt(r.reasoning_tokens) &&
    (r.cost_usd === null || (typeof r.cost_usd === 'number' && Number.isFinite(r.cost_usd))) &&
    CostSourceSchema.safeParse(r.cost_source).success &&
    (r.session === undefined || isStringOrNull(r.session)) &&
    (r.failed_over === undefined ||
      r.failed_over === null ||
      (Array.isArray(r.failed_over) && r.failed_over.every((p) => typeof p === 'string')));
  return ok ? (r as UsageRecord) : null;
}

function parseLine(line: Buffer): UsageRecord | null {
  try {
    return asRecord(JSON.parse(line.toString('utf8')));
  } catch {
    return null;
  }
}

/**
 * Queued lines past this many characters are written at once rather than at the timer: at thousands of requests a
 * second they then reach the file within milliseconds, before V8 promotes them to its old generation (a line that
 * waits 200 ms outlives several scavenges); the timer's flush still syncs what was written (docs/PERFORMANCE.md).
 */
const WRITE_AFTER_CHARS = 16 * 1024;

export class RawLog {
  private fd: number | null = null;
  private file = '';
  private size = 0;
  private pending: string[] = [];
  private pendingChars = 0;
  /** Lines written since the last fdatasync. */
  private unsynced = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly onTimer = (): void => this.flush();
  /** The end of what is written: where the next line will start. */
  private end: RawPosition | null = null;
  /** Batches that could not be written (a full disk): the rollups still count them. */
  writeErrors = 0;

  constructor(
    readonly dir: string,
    private readonly now: () => number = Date.now,
    private readonly flushMs = 200,
  ) {}

  /** Queues one line (with its newline) for the next batch. */
  append(line: string): void {
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= WRITE_AFTER_CHARS) this.write();
    if (this.timer === null) {
      this.timer = setTimeout(this.onTimer, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes the queued lines now, to today's file (UTC), and syncs what was written to the disk. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.write();
    if (this.unsynced && this.fd !== null) {
      this.unsynced = false;
      fs.fdatasync(this.fd, () => {}); // on the disk soon, off the event loop (kill -9 loses nothing written)
    }
  }

  /** Writes the queued lines to today's file (UTC); the next flush syncs them. */
  private write(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    const name = rawFileName(this.now());
    if (name !== this.file) this.open(name);
    if (this.fd === null) {
      this.writeErrors++;
      return;
    }
    try {
      this.size += fs.writeSync(this.fd, text);
      this.end = { file: this.file, offset: this.size };
      this.unsynced = true;
    } catch {
      this.writeErrors++;
    }
  }

  /** Opens a file for appending; a torn last line (a crash mid-write) is closed with a newline first. */
  private open(name: string): void {
    this.closeFile();
    this.file = name;
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const fd = fs.openSync(path.join(this.dir, name), 'a+', 0o600);
      this.fd = fd;
      this.size = fs.fstatSync(fd).size;
      if (this.size > 0) {
        const last = Buffer.alloc(1);
        fs.readSync(fd, last, 0, 1, this.size - 1);
        if (last[0] !== NEWLINE) this.size += fs.writeSync(fd, '\n');
      }
    } catch {
      this.fd = null;
    }
  }

  private closeFile(): void {
    if (this.fd !== null) {
      // A new day's file, or the store closing: what this file was written is synced before it is let go.
      if (this.unsynced) {
        try {
          fs.fdatasyncSync(this.fd);
        } catch {
          // the lines are written; only their sync failed
        }
      }
      fs.closeSync(this.fd);
    }
    this.fd = null;
    this.unsynced = false;
  }

  /** Where the next line goes (after a flush): what a snapshot of the rollups has counted up to. */
  position(): RawPosition | null {
    this.flush();
    return this.end;
  }

  /** The raw files present, oldest first. */
  async files(): Promise<string[]> {
    try {
      return (await fsp.readdir(this.dir)).filter((n) => RAW_NAME.test(n)).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /**
   * Reads every record after `from`, oldest first, handing each with the position just past its line. Lines that are
   * not records (a torn last line) are skipped and counted. The end reached becomes where the next line is written.
   */
  async replay(
    from: RawPosition | null,
    onRecord: (r: UsageRecord, at: RawPosition) => void,
    chunkBytes = REPLAY_CHUNK,
  ): Promise<{ records: number; skipped: number }> {
    let records = 0;
    let skipped = 0;
    const line = (bytes: Buffer, file: string, offset: number): void => {
      if (bytes.length === 0) return;
      const r = parseLine(bytes);
      if (r) {
        records++;
        onRecord(r, { file, offset });
      } else skipped++;
    };
    this.end = from;
    // From the snapshot's position on, in pieces: a busy day's file is tens of MB, and the snapshot (every 5 s) leaves
    // little of it to replay; reading it whole kept a buffer that large until the next GC, which an idle process
    // never runs.
    const piece = Buffer.allocUnsafeSlow(chunkBytes);
    for (const file of await this.files()) {
      if (from && file < from.file) continue;
      const fh = await fsp.open(path.join(this.dir, file), 'r');
      try {
        const size = (await fh.stat()).size;
        let pos = from && file === from.file ? Math.min(from.offset, size) : 0;
        let carry: Buffer | null = null; // a line begun in an earlier piece
        while (pos < size) {
          const { bytesRead } = await fh.read(piece, 0, Math.min(chunkBytes, size - pos), pos);
          if (bytesRead === 0) break;
          const data: Buffer = carry
            ? Buffer.concat([carry, piece.subarray(0, bytesRead)])
            : piece.subarray(0, bytesRead);
          const base = pos - (carry?.length ?? 0); // the file offset of data[0]
          pos += bytesRead;
          let start = 0;
          for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, start)) {
            line(data.subarray(start, nl), file, base + nl + 1);
            start = nl + 1;
          }
          carry = start < data.length ? Buffer.from(data.subarray(start)) : null;
        }
        if (carry) line(carry, file, pos); // the last line, without its newline (torn, or not yet ended)
        this.end = { file, offset: pos };
      } finally {
        await fh.close();
      }
    }
    return { records, skipped };
  }

  /** Every record, newest first (the order they were written in, backwards); lines that are not records are skipped. */
  async *backward(): AsyncGenerator<UsageRecord> {
    this.flush();
    const files = await this.files();
    for (let i = files.length - 1; i >= 0; i--) {
      let fh: fsp.FileHandle;
      try {
        fh = await fsp.open(path.join(this.dir, files[i]!), 'r');
      } catch {
        continue; // removed by the retention meanwhile
      }
      try {
        let pos = (await fh.stat()).size;
        let carry: Buffer = Buffer.alloc(0);
        while (pos > 0) {
          const n = Math.min(BACKWARD_CHUNK, pos);
          pos -= n;
          const chunk = Buffer.alloc(n);
          await fh.read(chunk, 0, n, pos);
          const buf = carry.length ? Buffer.concat([chunk, carry]) : chunk;
          let stop = buf.length;
          for (let nl = buf.lastIndexOf(NEWLINE, stop - 1); nl !== -1; nl = buf.lastIndexOf(NEWLINE, stop - 1)) {
            const r = nl + 1 < stop ? parseLine(buf.subarray(nl + 1, stop)) : null;
            if (r) yield r;
            stop = nl;
            if (nl === 0) break;
          }
          carry = buf.subarray(0, stop);
        }
        if (carry.length) {
          const r = parseLine(carry);
          if (r) yield r;
        }
      } finally {
        await fh.close();
      }
    }
  }

  /** Deletes the files of UTC dates before `oldest` ("YYYY-MM-DD"), never the one being written. */
  async removeBefore(oldest: string): Promise<string[]> {
    const removed: string[] = [];
    for (const name of await this.files()) {
      const date = RAW_NAME.exec(name)![1]!;
      if (date >= oldest || name === this.file) continue;
      await fsp.rm(path.join(this.dir, name), { force: true });
      removed.push(name);
    }
    return removed;
  }

  close(): void {
    // Written, then synced by closeFile before the descriptor goes (an async sync could outlive it).
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.write();
    this.closeFile();
    this.file = '';
  }
}
