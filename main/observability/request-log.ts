// The request log: a ring of the last requests for the status view, live subscribers, and an optional JSONL file.
import fs from 'node:fs';
import path from 'node:path';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { redact } from './redact.ts';

export type LogFileOptions = { enabled: boolean; file: string; maxBytes: number; keep: number };

export class RequestLog {
  private readonly ring: (RequestLogEntry | undefined)[];
  private next = 0;
  private count = 0;
  private total = 0;
  private readonly subscribers = new Set<(e: RequestLogEntry) => void>();
  /** Subscribers that also get the team's entries (other instances' requests, read from Redis: addFromTeam). */
  private readonly teamSubscribers = new Set<(e: RequestLogEntry) => void>();
  private fd: number | null = null;
  private pending: string[] = [];
  private flushScheduled = false;
  private fileBytes = 0;
  private fileOptions: LogFileOptions | null = null;

  constructor(readonly capacity = 1000) {
    this.ring = new Array(capacity);
  }

  /** Entries added since start, this instance's own (the memory trim's sign of activity). */
  get added(): number {
    return this.total;
  }

  add(entry: RequestLogEntry): void {
    // Attempt errors quote providers: scrubbed where they are made, and again here, where they are shown and stored.
    for (const a of entry.attempts) if (a.error) a.error = redact(a.error);
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    this.total++;
    for (const fn of this.subscribers) fn(entry);
    for (const fn of this.teamSubscribers) fn(entry);
    if (this.fd !== null) this.writeLine(entry);
  }

  /**
   * An entry of another instance of the team (store "redis": main/store/team-log.ts): shown in the ring and given to
   * the team's subscribers (the usage store, the admin log stream), never to the local ones (metrics, the publisher)
   * nor to this instance's requests.jsonl. Already scrubbed by the instance that served it.
   */
  addFromTeam(entry: RequestLogEntry): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    for (const fn of this.teamSubscribers) fn(entry);
  }

  /** The newest `n` entries, oldest first. */
  recent(n = this.capacity): RequestLogEntry[] {
    const take = Math.min(n, this.count);
    const out: RequestLogEntry[] = [];
    for (let i = take; i > 0; i--) {
      out.push(this.ring[(this.next - i + this.capacity) % this.capacity]!);
    }
    return out;
  }

  /** Every entry of this instance; with `scope` "team", the team's entries too (addFromTeam). */
  subscribe(fn: (e: RequestLogEntry) => void, scope: 'local' | 'team' = 'local'): () => void {
    const set = scope === 'team' ? this.teamSubscribers : this.subscribers;
    set.add(fn);
    return () => set.delete(fn);
  }

  get subscriberCount(): number {
    return this.subscribers.size + this.teamSubscribers.size;
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

  /** Lines are batched and written off the request's path, one write per event-loop turn. */
  private writeLine(entry: RequestLogEntry): void {
    this.pending.push(`${JSON.stringify(entry)}\n`);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
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
    this.flush();
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
