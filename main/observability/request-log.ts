// The request log: a ring of the last requests for the status view, live subscribers, and an optional JSONL file.
import fs from 'node:fs';
import path from 'node:path';
import type { RequestLogEntry } from '../../shared/admin.ts';

export type LogFileOptions = { enabled: boolean; file: string; maxBytes: number; keep: number };

export class RequestLog {
  private readonly ring: (RequestLogEntry | undefined)[];
  private next = 0;
  private count = 0;
  private readonly subscribers = new Set<(e: RequestLogEntry) => void>();
  private stream: fs.WriteStream | null = null;
  private fileBytes = 0;
  private fileOptions: LogFileOptions | null = null;

  constructor(readonly capacity = 1000) {
    this.ring = new Array(capacity);
  }

  add(entry: RequestLogEntry): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    for (const fn of this.subscribers) fn(entry);
    if (this.stream) this.writeLine(entry);
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

  subscribe(fn: (e: RequestLogEntry) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Turns the JSONL file on or off (log_requests), with size-based rotation: file, file.1 ... file.<keep>. */
  configureFile(options: LogFileOptions): void {
    const same = this.fileOptions && this.fileOptions.file === options.file && this.fileOptions.enabled === options.enabled;
    this.fileOptions = options;
    if (same) return;
    this.closeFile();
    if (!options.enabled) return;
    fs.mkdirSync(path.dirname(options.file), { recursive: true });
    try {
      this.fileBytes = fs.statSync(options.file).size;
    } catch {
      this.fileBytes = 0;
    }
    this.open();
  }

  private open(): void {
    const s = fs.createWriteStream(this.fileOptions!.file, { flags: 'a', mode: 0o600 });
    s.on('error', () => {
      if (this.stream === s) this.stream = null;
    });
    this.stream = s;
  }

  private writeLine(entry: RequestLogEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    const opts = this.fileOptions!;
    if (this.fileBytes + line.length > opts.maxBytes && this.fileBytes > 0) this.rotate();
    this.fileBytes += Buffer.byteLength(line);
    this.stream?.write(line);
  }

  private rotate(): void {
    const { file, keep } = this.fileOptions!;
    this.stream?.end();
    this.stream = null;
    try {
      fs.rmSync(`${file}.${keep}`, { force: true });
      for (let i = keep - 1; i >= 1; i--) {
        if (fs.existsSync(`${file}.${i}`)) fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
      }
      fs.renameSync(file, `${file}.1`);
    } catch {
      // rotation is best effort; keep appending to the current file
    }
    this.fileBytes = 0;
    this.open();
  }

  closeFile(): void {
    this.stream?.end();
    this.stream = null;
  }
}
