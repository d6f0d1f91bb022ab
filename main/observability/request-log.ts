// The request log: a ring of the last requests for the status view, live subscribers, and an optional JSONL file.
// An entry is in the ring as soon as it is added; the subscribers (usage store, metrics, the live log, the team's
// publisher) and the file get the entries of one event-loop turn together, in order, right after that turn's I/O
// (setImmediate): under load one turn ends ~17 requests, and their bookkeeping run back to back costs 3.8 µs an entry
// against 6.2 µs run after each reply (docs/PERFORMANCE.md). A later request is always read after the delivery.
import fs from 'node:fs';
import path from 'node:path';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { EntryRing } from './entry-ring.ts';
import { byStartTime } from './log-tail.ts';
import { logger } from './logger.ts';
import { redact } from './redact.ts';

export type LogFileOptions = { enabled: boolean; file: string; maxBytes: number; keep: number };

/**
 * Store "redis": the team's request log (main/store/team-log.ts), read only when someone looks: the newest entries of
 * every instance, and the other instances' new ones while a live view is open. Null answers: Redis cannot be read.
 */
export interface TeamLogView {
  recent(n: number): Promise<RequestLogEntry[] | null>;
  follow(fn: (e: RequestLogEntry) => void): () => void;
}

export class RequestLog {
  /** The newest entries, kept in columns so that they die young (entry-ring.ts). */
  private readonly ring: EntryRing;
  private total = 0;
  private readonly subscribers = new Set<(e: RequestLogEntry) => void>();
  /** Store "redis": this instance's name, stamped on its entries (`instance`). */
  instance: string | null = null;
  /** Store "redis": the team's log, for the admin API's log views. */
  team: TeamLogView | null = null;
  private fd: number | null = null;
  private pending: string[] = [];
  private fileBytes = 0;
  /** Entries added since the last delivery to the subscribers and the file. */
  private undelivered: RequestLogEntry[] = [];
  private readonly deliverLater = (): void => this.deliver();
  private fileOptions: LogFileOptions | null = null;

  constructor(readonly capacity = 1000) {
    this.ring = new EntryRing(capacity);
  }

  /** Entries added since start, this instance's own (the memory trim's sign of activity). */
  get added(): number {
    return this.total;
  }

  /** Logs a finished request: the ring keeps it as it is now. */
  add(entry: RequestLogEntry): void {
    // Attempt errors quote providers: scrubbed where they are made, and again here, where they are shown and stored.
    for (const a of entry.attempts) if (a.error) a.error = redact(a.error);
    if (this.instance !== null) entry.instance = this.instance;
    this.ring.push(entry);
    this.total++;
    this.undelivered.push(entry);
    if (this.undelivered.length === 1) setImmediate(this.deliverLater);
  }

  /**
   * Gives the entries added since the last delivery to the subscribers and the file, oldest first (it runs on its
   * own after the turn they were added in; tests and shutdown call it to have them now). A subscriber that throws
   * is logged; the others still get the entry.
   */
  deliver(): void {
    const list = this.undelivered;
    if (list.length === 0) return;
    this.undelivered = [];
    for (const entry of list) {
      for (const fn of this.subscribers) notify(fn, entry);
      if (this.fd !== null) this.pending.push(`${JSON.stringify(entry)}\n`);
    }
    if (this.pending.length > 0) this.flush();
  }

  /** The newest `n` entries, oldest first. */
  recent(n = this.capacity): RequestLogEntry[] {
    return this.ring.recent(n);
  }

  /**
   * The newest `n` entries ordered by when their requests started, oldest first: what the log view shows (an entry
   * is added when its request finishes, so a long stream is added after shorter requests that started later).
   */
  recentByStart(n = this.capacity): RequestLogEntry[] {
    return byStartTime(this.ring.recent(n));
  }

  /**
   * Entries of an earlier run (the tail of requests.jsonl, read at start): into the ring only, before any of this
   * run's, never to the subscribers (they were counted when they were served) nor written to the file again.
   */
  restore(entries: RequestLogEntry[]): void {
    for (const e of entries) this.ring.pushObject(e);
  }

  /** Every entry of this instance (the team's other instances' ones: `team.follow`). */
  subscribe(fn: (e: RequestLogEntry) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Turns the JSONL file on or off (log_requests), with size-based rotation: file, file.1 ... file.<keep>. */
  configureFile(options: LogFileOptions): void {
    const same =
      this.fileOptions && this.fileOptions.file === options.file && this.fileOptions.enabled === options.enabled;
    this.fileOptions = options;
    if (same) return;
    this.closeFile();
    if (!options.enabled) return;
    fs.mkdirSync(path.dirname(options.file), { recursive: true });
    this.openFile();
  }

  private openFile(): void {
    const file = this.fileOptions!.file;
    try {
      this.fd = fs.openSync(file, 'a', 0o600);
      this.fileBytes = fs.fstatSync(this.fd).size;
    } catch {
      this.fd = null;
    }
  }

  /** The lines of one delivery, written together (one write per event-loop turn, off the request's path). */
  private flush(): void {
    const lines = this.pending;
    this.pending = [];
    const opts = this.fileOptions;
    if (!opts || this.fd === null) return;
    let batch = '';
    for (const line of lines) {
      if (this.fileBytes + batch.length + line.length > opts.maxBytes && this.fileBytes + batch.length > 0) {
        this.writeOut(batch);
        batch = '';
        this.rotate();
        if (this.fd === null) return;
      }
      batch += line;
    }
    this.writeOut(batch);
  }

  private writeOut(text: string): void {
    if (!text || this.fd === null) return;
    try {
      this.fileBytes += fs.writeSync(this.fd, text);
    } catch {
      // a full disk must not take the router down; the ring still has the entries
    }
  }

  private rotate(): void {
    const { file, keep } = this.fileOptions!;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    try {
      fs.rmSync(`${file}.${keep}`, { force: true });
      for (let i = keep - 1; i >= 1; i--) {
        if (fs.existsSync(`${file}.${i}`)) fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
      }
      fs.renameSync(file, `${file}.1`);
    } catch {
      // rotation is best effort; keep appending to the current file
    }
    this.openFile();
  }

  closeFile(): void {
    this.deliver(); // writes what it delivers
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

function notify(fn: (e: RequestLogEntry) => void, entry: RequestLogEntry): void {
  try {
    fn(entry);
  } catch (err) {
    logger.error({ err }, 'request log: a subscriber failed on an entry');
  }
}
