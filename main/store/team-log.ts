// The team's request log on Redis (store "redis"): every request of this instance's request log is added to one
// Redis stream (`<prefix>requests`, trimmed with MAXLEN ~), a bounded catch-up buffer for the live log view: the
// admin API's `GET /logs` reads its newest entries, `GET /logs/stream` follows it while someone watches, and the usage
// page's raw records are read from it. Nothing reads it otherwise: an idle instance costs the team nothing per request
// (issue 36; the team's usage is counted in Redis rollups by the instance that served each request, main/usage/team.ts,
// and no longer read back from this stream by every instance).
//
// Entries only, never keys or bodies (the request log has none). Added in one pipeline per event-loop turn, off the
// request's path, on the gateway's connection; while Redis is down or slow (its breaker open) they wait in memory
// (bounded: past it the oldest are dropped from the team's view, counted and logged once) and are added when it is
// back. An entry added twice (a batch cut short by a dropped connection, sent again) is shown once. Loaded only when
// the store is Redis.
import type { Redis } from 'ioredis';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { requestLogEntrySchema } from '../../shared/request-log-schema.ts';
import { TEAM_LOG_FIELDS } from '../../shared/team.ts';
import { logger } from '../observability/logger.ts';
import type { RequestLog, TeamLogView } from '../observability/request-log.ts';

/** About 50,000 entries (~0.6 KB each: ~30 MB of Redis): the catch-up window of the live view, not an archive. */
export const TEAM_LOG_MAXLEN = 50_000;
/** How long an entry waits for others before the batch is added (the live view's delay; one write per batch). */
export const TEAM_LOG_FLUSH_MS = 20;
/** At most this many entries a pipeline; the rest go in the next, at once. */
const LOG_BATCH_MAX = 1_000;
/** KEYS: the stream. ARGV: MAXLEN, the instance, then the entries (JSON). Answers the 1-based entries that failed. */
const ADD_ENTRIES = `local failed = {}
for i = 3, #ARGV do
  local r = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', '${TEAM_LOG_FIELDS.instance}', ARGV[2], '${TEAM_LOG_FIELDS.entry}', ARGV[i])
  if type(r) == 'table' and r.err then failed[#failed + 1] = i - 2 end
end
return failed`;
/** Entries kept in memory while Redis is down; past it the oldest are dropped from the team's view. */
export const TEAM_LOG_PENDING_MAX = 10_000;

const BLOCK_MS = 1_000;
const RETRY_MS = 500;
const PAGE = 500;

/** What the team log needs of the process's Redis connection (main/store/redis-connection.ts). */
export type TeamLogRedis = {
  client: Redis;
  key(...parts: string[]): string;
  /** Connected and not slow: entries are sent. */
  usable(): boolean;
  onChange(fn: (up: boolean) => void): () => void;
  onBreaker(fn: (open: boolean) => void): () => void;
};

export type TeamLogOptions = {
  redis: TeamLogRedis;
  log: RequestLog;
  /** This instance's name in the team (the stream's `i` field, the entries' `instance`). */
  instance: string;
  maxLen?: number;
  pendingMax?: number;
  /** TEAM_LOG_FLUSH_MS unless set (tests). */
  flushMs?: number;
};

export class TeamLog implements TeamLogView {
  readonly key: string;
  /** Entries added to the stream, dropped unsent, read from it and skipped as malformed. */
  readonly counts = { published: 0, dropped: 0, malformed: 0 };
  private pending: { json: string; at: number }[] = [];
  private flushing: Promise<void> | null = null;
  private flushQueued = false;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly offLocal: () => void;
  private readonly offChange: () => void;
  private readonly offBreaker: () => void;
  /** The live view's followers, and the reader serving them (a connection of its own: XREAD BLOCK). */
  private readonly followers = new Set<(e: RequestLogEntry) => void>();
  private reader: Redis | null = null;
  private reading: Promise<void> | null = null;

  constructor(private readonly o: TeamLogOptions) {
    this.key = o.redis.key('requests');
    this.offLocal = o.log.subscribe((e) => this.publish(e));
    this.offChange = o.redis.onChange((up) => up && this.flushSoon());
    this.offBreaker = o.redis.onBreaker((open) => !open && this.flushSoon());
  }

  private publish(e: RequestLogEntry): void {
    if (this.closed) return;
    if (this.pending.length >= (this.o.pendingMax ?? TEAM_LOG_PENDING_MAX)) {
      this.pending.shift();
      if (this.counts.dropped++ === 0)
        logger.warn(
          'team log: Redis is unreachable and the queue is full; the oldest entries are shown on this instance only',
        );
    }
    this.pending.push({ json: JSON.stringify(e), at: Date.now() });
    this.flushSoon();
  }

  /**
   * One pipeline of XADDs every TEAM_LOG_FLUSH_MS, off the request's path: under load a write to Redis per batch
   * of entries, not per request (issue 36: each write to Redis is a system call on both sides).
   */
  private flushSoon(): void {
    if (this.flushQueued || this.closed) return;
    this.flushQueued = true;
    setTimeout(() => {
      this.flushQueued = false;
      void this.flush();
    }, this.o.flushMs ?? TEAM_LOG_FLUSH_MS).unref();
  }

  /** Adds what is pending to the stream; what fails waits for the next try (Redis back, or every 500 ms). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    if (!this.pending.length) return Promise.resolve();
    if (!this.o.redis.usable()) {
      this.retryLater();
      return Promise.resolve();
    }
    const batch = this.pending.slice(0, LOG_BATCH_MAX);
    this.pending = this.pending.slice(batch.length);
    const maxLen = String(this.o.maxLen ?? TEAM_LOG_MAXLEN);
    // One EVAL for the batch (issue 36: a pipeline made an ioredis command per entry, a cost per request): the script
    // adds each entry with its own XADD and answers the positions that failed. Not a script defined here with
    // defineCommand: ioredis breaks an auto-pipeline that meets a command defined after it was made (ioredis#1931).
    this.flushing = (
      this.o.redis.client.eval(
        ADD_ENTRIES,
        1,
        this.key,
        maxLen,
        this.o.instance,
        ...batch.map((b) => b.json),
      ) as Promise<number[]>
    )
      .then((failedAt) => {
        const failed = failedAt.map((i) => batch[i - 1]!).filter(Boolean);
        this.counts.published += batch.length - failed.length;
        if (failed.length) this.requeue(failed);
        else if (this.pending.length) this.flushSoon();
      })
      .catch(() => this.requeue(batch))
      .finally(() => (this.flushing = null));
    return this.flushing;
  }

  private requeue(failed: { json: string; at: number }[]): void {
    this.pending = failed.concat(this.pending);
    const max = this.o.pendingMax ?? TEAM_LOG_PENDING_MAX;
    if (this.pending.length > max) {
      this.counts.dropped += this.pending.length - max;
      this.pending = this.pending.slice(this.pending.length - max);
    }
    this.retryLater();
  }

  private retryLater(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.flushSoon();
    }, RETRY_MS).unref();
  }

  /** Entries waiting for Redis, and the age of the oldest (the metrics' lag). */
  queue(): { waiting: number; lagSeconds: number; dropped: number } {
    const oldest = this.pending[0]?.at;
    return {
      waiting: this.pending.length,
      lagSeconds: oldest ? (Date.now() - oldest) / 1000 : 0,
      dropped: this.counts.dropped,
    };
  }

  /** A stream message as an entry (null: not one: another version's, or a foreign writer's). */
  private entryOf(id: string, fields: string[]): { instance: string | undefined; entry: RequestLogEntry } | null {
    let instance: string | undefined;
    let json: string | undefined;
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === TEAM_LOG_FIELDS.instance) instance = fields[i + 1];
      else if (fields[i] === TEAM_LOG_FIELDS.entry) json = fields[i + 1];
    }
    let parsed;
    try {
      parsed = requestLogEntrySchema().safeParse(JSON.parse(json ?? ''));
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      if (this.counts.malformed++ === 0)
        logger.warn(`team log: skipped stream message ${id} of ${this.key}: not a request log entry`);
      return null;
    }
    return { instance, entry: parsed.data };
  }

  /**
   * The team's newest `n` entries, oldest first (this instance's waiting ones sent first, so a request answered before
   * the call is in it); null when Redis cannot be read.
   */
  async recent(n: number): Promise<RequestLogEntry[] | null> {
    if (!this.o.redis.usable()) return null;
    await this.flush();
    let messages: [string, string[]][];
    try {
      messages = (await this.o.redis.client.xrevrange(this.key, '+', '-', 'COUNT', n)) as [string, string[]][];
    } catch {
      return null;
    }
    const seen = new Set<string>();
    const out: RequestLogEntry[] = [];
    for (const [id, fields] of messages) {
      const m = this.entryOf(id, fields);
      if (!m || seen.has(m.entry.id)) continue;
      seen.add(m.entry.id);
      out.push(m.entry);
    }
    return out.reverse();
  }

  /**
   * The team's entries newest first, `limit` at most, before an entry's id or a time (for the raw usage records);
   * `more`: older ones remain. Null when Redis cannot be read.
   */
  async history(
    limit: number,
    before: { id: string } | { time: number } | null,
  ): Promise<{ entries: RequestLogEntry[]; more: boolean } | null> {
    if (!this.o.redis.usable()) return null;
    if (before && 'time' in before && before.time < 1) return { entries: [], more: false }; // nothing is older
    await this.flush();
    const out: RequestLogEntry[] = [];
    const seen = new Set<string>();
    let end = before && 'time' in before ? `(${Math.max(0, Math.floor(before.time))}-0` : '+';
    let collecting = !(before && 'id' in before);
    try {
      for (;;) {
        const page = (await this.o.redis.client.xrevrange(this.key, end, '-', 'COUNT', PAGE)) as [string, string[]][];
        for (const [id, fields] of page) {
          const m = this.entryOf(id, fields);
          if (!m || seen.has(m.entry.id)) continue;
          seen.add(m.entry.id);
          if (!collecting) {
            collecting = before !== null && 'id' in before && m.entry.id === before.id;
            continue;
          }
          if (out.length === limit) return { entries: out, more: true };
          out.push(m.entry);
        }
        if (page.length < PAGE) return { entries: out, more: false };
        end = `(${page[page.length - 1]![0]}`;
      }
    } catch {
      return null;
    }
  }

  /**
   * Calls `fn` with each entry the team's other instances add from now on (this instance's own are its request
   * log's); returns the unsubscribe. The stream is read only while someone follows it.
   */
  follow(fn: (e: RequestLogEntry) => void): () => void {
    this.followers.add(fn);
    if (!this.reading && !this.closed) this.reading = this.readLoop().finally(() => (this.reading = null));
    return () => {
      this.followers.delete(fn);
      if (this.followers.size === 0) this.stopReading();
    };
  }

  private stopReading(): void {
    this.reader?.disconnect();
    this.reader = null;
  }

  private async readLoop(): Promise<void> {
    // XREAD BLOCK waits longer than the shared client's command timeout: a connection of its own.
    const reader = this.o.redis.client.duplicate({ commandTimeout: BLOCK_MS + 2_000 });
    reader.on('error', () => {});
    this.reader = reader;
    let lastId = '$';
    const seen = new Set<string>();
    while (this.reader === reader && this.followers.size > 0 && !this.closed) {
      try {
        const res = (await reader.xread('COUNT', 1000, 'BLOCK', BLOCK_MS, 'STREAMS', this.key, lastId)) as
          [string, [string, string[]][]][] | null;
        for (const [, messages] of res ?? [])
          for (const [id, fields] of messages) {
            lastId = id;
            const m = this.entryOf(id, fields);
            if (!m || m.instance === this.o.instance || seen.has(m.entry.id)) continue;
            seen.add(m.entry.id);
            if (seen.size > 10_000) seen.clear();
            for (const f of this.followers) f(m.entry);
          }
      } catch {
        if (this.reader !== reader) break;
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
    reader.disconnect();
  }

  /** Stops publishing and reading; what is pending gets one last try. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.offLocal();
    this.offChange();
    this.offBreaker();
    await this.flush().catch(() => {});
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.followers.clear();
    this.stopReading();
    await this.reading;
  }
}
