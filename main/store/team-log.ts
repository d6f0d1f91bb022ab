// The team's traffic on Redis (store "redis"): every request of this instance's request log is added to one Redis
// stream (`<prefix>requests`, trimmed with MAXLEN ~), and every instance reads the stream back: the other instances'
// entries go into its own request log (the ring the UI's log shows, its live stream) and, through the log's team
// subscribers, into its own usage store (rollups, raw records, budgets). So the UI of any instance shows the team's
// traffic, from durable files of its own, with the admin API unchanged.
//
// Counted once per instance: an instance skips its own messages (it counted them when they were served); after a
// restart it catches up from a little before its newest counted record, skipping every message whose entry id its
// usage store already holds (so neither a kill -9 between the raw file and the stream nor the overlap double-counts,
// and what a kill lost from the raw file's last batch comes back from the stream). A new instance reads the whole
// stream. An entry added twice (a batch cut short by Redis dying is sent again) is counted once: the last ids read
// are remembered. Redis down: entries wait in memory (bounded) and are added when it is back; the reader retries.
// Entries only, never keys or bodies (the request log has none). Loaded only when the store is Redis.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { TEAM_LOG_FIELDS, TeamLogEntrySchema } from '../../shared/team.ts';
import { logger } from '../observability/logger.ts';
import type { RequestLog } from '../observability/request-log.ts';
import { connectRedis, type RedisStoreConfig } from './redis-connection.ts';

/** About 50,000 entries (~0.6 KB each: ~30 MB of Redis): the catch-up window, not the archive (the usage store is). */
export const TEAM_LOG_MAXLEN = 50_000;
/** Entries kept in memory while Redis is down; past it the oldest are not added (they stay in the local store). */
export const TEAM_LOG_PENDING_MAX = 10_000;
/** A restarted instance reads the stream from this long before its newest counted record. */
export const CATCH_UP_MARGIN_MS = 10 * 60_000;
/** ...and skips the messages whose entry is among its records of this long before that (a request's duration). */
export const DEDUPE_WINDOW_MS = 2 * 60 * 60_000;

/** Entries added again when Redis comes back without them (those added in the last moments before it died). */
export const RESEND_MAX = 2_000;
/** ...added in the last 30 s before it went down. */
export const RESEND_WINDOW_MS = 30_000;

const BLOCK_MS = 1_000;
const READ_COUNT = 1_000;
const RETRY_MS = 500;

/** What the team log needs of the process's Redis connection (main/store/redis-connection.ts). */
export type TeamLogRedis = {
  client: Redis;
  key(...parts: string[]): string;
  onChange(fn: (up: boolean) => void): () => void;
};

/** The records the usage store already counted, newest first (its raw files backwards); each with its id and time. */
export type CountedRecords = () => AsyncIterable<{ id: string; time: string }>;

export type TeamLogOptions = {
  redis: TeamLogRedis;
  log: RequestLog;
  /** This process's id in the stream (random per start by default). */
  instance: string;
  counted?: CountedRecords;
  maxLen?: number;
  pendingMax?: number;
};

export class TeamLog {
  readonly key: string;
  /** The id of the last message read: the reader's position. */
  lastId = '0';
  /** Entries added to the stream, read from it (others'), skipped as malformed or already counted, dropped unsent. */
  readonly counts = { published: 0, received: 0, malformed: 0, duplicates: 0, dropped: 0, resent: 0 };
  /** After a restart: the stream ids trimmed before this instance read them (its usage misses them), or null. */
  gap: { from: string; to: string } | null = null;
  private pending: string[] = [];
  /** The last entries added (keepSent), and whether Redis went down since (so: are they still there when it is back?). */
  private sent: { id: string; json: string }[] = [];
  private checkOnReturn = false;
  private downAt = 0;
  private flushing: Promise<void> | null = null;
  private flushQueued = false;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly reader: Redis;
  private readonly offLocal: () => void;
  private readonly offChange: () => void;
  private reading: Promise<void> = Promise.resolve();
  /** Entry ids already counted by this instance's store (the catch-up after a restart); emptied once caught up. */
  private seen = new Set<string>();
  /** The team's entry ids read lately (remember()): a message added twice is counted once. */
  private readonly recent = new Set<string>();
  private readonly recentRing: string[] = [];
  private recentNext = 0;
  private readonly startedAt = Date.now();

  private constructor(private readonly o: TeamLogOptions) {
    this.key = o.redis.key('requests');
    // XREAD BLOCK waits longer than the shared client's command timeout: a connection of its own.
    this.reader = o.redis.client.duplicate({ commandTimeout: BLOCK_MS + 2_000 });
    this.reader.on('error', () => {});
    this.reader.connect().catch(() => {});
    this.offLocal = o.log.subscribe((e) => this.publish(e));
    this.offChange = o.redis.onChange((up) => {
      if (!up) {
        if (!this.checkOnReturn && this.sent.length > 0) {
          this.checkOnReturn = true;
          this.downAt = Date.now();
        }
        return;
      }
      if (this.checkOnReturn) void this.recoverLost().finally(() => this.flushSoon());
      else this.flushSoon();
    });
  }

  /** Starts publishing this instance's entries and reading the team's (catching up first; never throws). */
  static async start(o: TeamLogOptions): Promise<TeamLog> {
    const t = new TeamLog(o);
    await t.prepareCatchUp();
    t.reading = t.readLoop();
    return t;
  }

  /**
   * From the usage store's newest records: where to start reading, and the ids not to count twice. Records are
   * written when requests end, so the newest is the latest time among them (a long request's may be older); the
   * scan stops past the window or after as many records as the stream and the queue can hold (nothing older can be
   * read again), so the set stays bounded.
   */
  private async prepareCatchUp(): Promise<void> {
    if (!this.o.counted) return;
    let newest = Number.NEGATIVE_INFINITY;
    const most = (this.o.maxLen ?? TEAM_LOG_MAXLEN) + (this.o.pendingMax ?? TEAM_LOG_PENDING_MAX);
    try {
      for await (const r of this.o.counted()) {
        const t = Date.parse(r.time);
        if (t > newest) newest = t;
        if (t < newest - CATCH_UP_MARGIN_MS - DEDUPE_WINDOW_MS || this.seen.size >= most) break;
        this.seen.add(r.id);
      }
    } catch (err) {
      logger.warn({ err }, 'team log: the usage store could not be read; reading the whole stream');
    }
    if (Number.isFinite(newest)) this.lastId = `${Math.max(0, newest - CATCH_UP_MARGIN_MS)}-0`;
  }

  private publish(e: RequestLogEntry): void {
    if (this.closed) return;
    if (this.pending.length >= (this.o.pendingMax ?? TEAM_LOG_PENDING_MAX)) {
      this.pending.shift();
      if (this.counts.dropped++ === 0)
        logger.warn('team log: Redis is unreachable and the queue is full; the oldest entries stay local only');
    }
    this.pending.push(JSON.stringify(e));
    this.flushSoon();
  }

  /** One pipeline of XADDs per event-loop turn, off the request's path. */
  private flushSoon(): void {
    if (this.flushQueued || this.closed) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      void this.flush();
    });
  }

  /** Adds what is pending to the stream; what fails waits for the next try (Redis back, or every 500 ms). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    if (!this.pending.length) return Promise.resolve();
    const batch = this.pending;
    this.pending = [];
    const maxLen = String(this.o.maxLen ?? TEAM_LOG_MAXLEN);
    const p = this.o.redis.client.pipeline();
    for (const json of batch)
      p.xadd(
        this.key,
        'MAXLEN',
        '~',
        maxLen,
        '*',
        TEAM_LOG_FIELDS.instance,
        this.o.instance,
        TEAM_LOG_FIELDS.entry,
        json,
      );
    this.flushing = p
      .exec()
      .then((results) => {
        const failed = batch.filter((_, i) => !results || results[i]?.[0]);
        this.counts.published += batch.length - failed.length;
        batch.forEach((json, i) => {
          const id = results?.[i]?.[0] ? null : results?.[i]?.[1];
          if (typeof id === 'string') this.keepSent(id, json);
        });
        if (failed.length) this.requeue(failed);
      })
      .catch(() => this.requeue(batch))
      .finally(() => (this.flushing = null));
    return this.flushing;
  }

  private requeue(failed: string[]): void {
    this.pending = failed.concat(this.pending);
    const max = this.o.pendingMax ?? TEAM_LOG_PENDING_MAX;
    if (this.pending.length > max) {
      this.counts.dropped += this.pending.length - max;
      this.pending = this.pending.slice(this.pending.length - max);
    }
    if (!this.retry && !this.closed)
      this.retry = setTimeout(() => {
        this.retry = null;
        this.flushSoon();
      }, RETRY_MS).unref();
  }

  /** The last entries added (stream id and JSON), to add again if Redis comes back without them. */
  private keepSent(id: string, json: string): void {
    this.sent.push({ id, json });
    if (this.sent.length > RESEND_MAX * 2) this.sent = this.sent.slice(-RESEND_MAX);
  }

  /**
   * Redis is back after an outage: when it came back without this instance's last entry (restarted without its data,
   * or a failover to a replica that had not got it), the last entries added are added again. An instance that had
   * read them counts them once (remember()); one that had not gets them.
   */
  private async recoverLost(): Promise<void> {
    this.checkOnReturn = false;
    // Only the last moments before the outage: older entries were read by every running instance long before.
    const lately = this.sent.filter((e) => compareIds(e.id, `${this.downAt - RESEND_WINDOW_MS}-0`) >= 0);
    const last = lately[lately.length - 1];
    if (!last) return;
    try {
      const found = (await this.o.redis.client.xrange(this.key, last.id, last.id)) as unknown[];
      if (found.length) return;
    } catch {
      this.checkOnReturn = true; // not answered: try again at the next reconnection
      return;
    }
    const again = lately.slice(-RESEND_MAX).map((e) => e.json);
    this.sent = [];
    this.counts.resent += again.length;
    this.pending = again.concat(this.pending);
    logger.warn(`team log: Redis came back without the last entries; ${again.length} added again`);
  }

  /** Entries waiting for Redis. */
  get waiting(): number {
    return this.pending.length;
  }

  private async readLoop(): Promise<void> {
    let first = true;
    while (!this.closed) {
      try {
        if (first) await this.warnIfTrimmed();
        first = false;
        const res = (await this.reader.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.key,
          this.lastId,
        )) as [string, [string, string[]][]][] | null;
        if (!res) continue;
        for (const [, messages] of res) for (const [id, fields] of messages) this.take(id, fields);
      } catch {
        if (this.closed) return;
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
  }

  /**
   * After a restart: says so when the stream was trimmed (XINFO: more entries added than it holds) and starts after
   * where this instance stopped: the team's records trimmed in that gap are not in its usage.
   */
  private async warnIfTrimmed(): Promise<void> {
    if (this.lastId === '0') return;
    let info: unknown[];
    try {
      info = (await this.reader.xinfo('STREAM', this.key)) as unknown[];
    } catch (err) {
      if (/no such key/i.test((err as Error).message)) return; // no stream yet
      throw err; // not connected yet: the read loop tries again
    }
    const field = (name: string): unknown => {
      const at = info.indexOf(name);
      return at >= 0 ? info[at + 1] : undefined;
    };
    const first = field('recorded-first-entry-id') ?? (field('first-entry') as unknown[] | undefined)?.[0];
    const trimmed = Number(field('entries-added') ?? 0) > Number(field('length') ?? 0);
    if (!trimmed || typeof first !== 'string' || compareIds(first, this.lastId) <= 0) return;
    this.gap = { from: this.lastId, to: first };
    logger.warn(
      `team log: the stream ${this.key} was trimmed past this instance's last record: it starts at ${first}, this instance stopped at ${this.lastId}; the team's requests trimmed in between are not in this instance's usage`,
    );
  }

  private take(id: string, fields: string[]): void {
    this.lastId = id;
    let instance: string | undefined;
    let json: string | undefined;
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === TEAM_LOG_FIELDS.instance) instance = fields[i + 1];
      else if (fields[i] === TEAM_LOG_FIELDS.entry) json = fields[i + 1];
    }
    if (instance === this.o.instance) return;
    let parsed;
    try {
      parsed = TeamLogEntrySchema.safeParse(JSON.parse(json ?? ''));
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      if (this.counts.malformed++ === 0)
        logger.warn(`team log: skipped stream message ${id} of ${this.key}: not a request log entry`);
      return;
    }
    const entry = parsed.data as RequestLogEntry;
    if (this.seen.size) {
      if (this.seen.has(entry.id)) {
        this.counts.duplicates++;
        return;
      }
      // Past the catch-up (messages written after this process started): nothing left to skip.
      if (Number(id.split('-')[0]) > this.startedAt) this.seen = new Set();
    }
    // Added twice: a pipeline cut by Redis dying after it ran some XADDs but before it answered is sent again.
    if (this.recent.has(entry.id)) {
      this.counts.duplicates++;
      return;
    }
    this.remember(entry.id);
    this.counts.received++;
    this.o.log.addFromTeam(entry);
  }

  /** The last entry ids read (as many as can be sent again: twice the queue), oldest forgotten first. */
  private remember(id: string): void {
    const cap = 2 * (this.o.pendingMax ?? TEAM_LOG_PENDING_MAX);
    const old = this.recentRing[this.recentNext];
    if (old !== undefined) this.recent.delete(old);
    this.recentRing[this.recentNext] = id;
    this.recentNext = (this.recentNext + 1) % cap;
    this.recent.add(id);
  }

  /** Stops reading and publishing; what is pending gets one last try. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.offLocal();
    this.offChange();
    await this.flush().catch(() => {});
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.reader.disconnect();
    await this.reading;
  }
}

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am !== bm ? am - bm : as - bs;
}

/**
 * The team log of a running Switchboard (main/app.ts, store "redis"): a Redis connection of its own (the gateway's
 * opens on first use; the team's traffic is read from start), this process's request log, and its usage store's
 * records for the catch-up. Never blocks on Redis: it connects and catches up in the background.
 */
export async function startTeamLog(
  config: RedisStoreConfig,
  log: RequestLog,
  counted?: CountedRecords,
): Promise<{ team: TeamLog; close(): Promise<void> }> {
  const conn = connectRedis(config);
  const team = await TeamLog.start({
    redis: conn,
    log,
    instance: `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`,
    ...(counted ? { counted } : {}),
  });
  return {
    team,
    close: async () => {
      await team.close();
      await conn.close();
    },
  };
}
