// The process's Redis connection (store.kind "redis"): one ioredis client made from the config, connecting in the
// background (never blocking start), reconnecting with a bounded backoff, failing a command at once while Redis is
// down (no offline queue, one retry) so the fail-open store answers locally instead of waiting; its up/down state
// and since when, for the admin status and /health. The URL's password never reaches a log: only `redactRedisUrl` is
// logged. The gateway's hot-path calls go through budgeted(): each has `store.timeout_ms`, and the breaker
// (./breaker.ts) stops sending them after a few that failed or were late, until background probes answer quickly
// again (issue 36). This module is loaded only when the store is Redis (a dynamic import), so the desktop user never
// loads ioredis.
import { performance } from 'node:perf_hooks';
import { Redis, type RedisOptions } from 'ioredis';
import { redactRedisUrl, STORE_BUDGET_DEFAULTS, type RedisStoreConfig } from '../../shared/config.ts';
import { logger } from '../observability/logger.ts';
import { redact } from '../observability/redact.ts';
import { StoreBreaker } from './breaker.ts';
import { Deadlines, TIMED_OUT, type TimedOut } from './deadlines.ts';
import type { StoreStatus } from './status.ts';

export type { RedisStoreConfig };

/** Reconnect delays: 50 ms, 100 ms, … capped at 2 s, forever (a Redis that comes back is picked up within 2 s). */
export const reconnectDelay = (attempt: number): number => Math.min(attempt * 50, 2_000);

export const REDIS_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  commandTimeout: 1_000,
  retryStrategy: reconnectDelay,
  // A reconnect after a failover to a replica: reconnect on READONLY rather than failing every write.
  reconnectOnError: (err) => err.message.startsWith('READONLY'),
  // Commands issued in the same tick (the admissions and settles of concurrent requests) go out in one write.
  // A video task's SET is sent at once instead: it must be in Redis's socket before the create reply is written.
  enableAutoPipelining: true,
  autoPipeliningIgnoredCommands: ['set'],
};

/** What the connection's up/down lines say (the gateway's shared state, or another user of the same Redis). */
export type ConnectionWords = { what: string; whileDown: string };
const GATEWAY_WORDS: ConnectionWords = {
  what: 'shared state',
  whileDown: 'limits are counted locally until it is back',
};

const AUTH_REFUSED =
  /WRONGPASS|NOAUTH|invalid password|invalid username-password|AUTH <password>|called without any password/i;
/** The Redis URLs (password masked) whose refused credentials were logged in this outage, by any connection. */
const refusalsLogged = new Set<string>();
/** Upper bounds (seconds) of the budgeted calls' latency histogram (switchboard_store_call_duration_seconds). */
export const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Probes answered within the timeout, in a row, before the breaker closes. */
export const CLOSE_AFTER = 2;

/** The budgeted calls so far: a latency histogram (counts per bucket, not cumulative; the last is +Inf), and outcomes. */
export type CallStats = { counts: number[]; sum: number; count: number; timeouts: number; errors: number };

export class RedisConnection {
  readonly client: Redis;
  readonly prefix: string;
  readonly safeUrl: string;
  readonly timeoutMs: number;
  readonly breaker: StoreBreaker;
  readonly calls: CallStats = {
    counts: new Array<number>(CALL_BUCKETS.length + 1).fill(0),
    sum: 0,
    count: 0,
    timeouts: 0,
    errors: 0,
  };
  private up = false;
  /** Time spent down before the current state (ms). */
  private downMs = 0;
  /** Whether the connection was ever ready since start (a wrong URL: never). */
  private reachedOnce = false;
  private since = Date.now();
  private readonly listeners = new Set<(up: boolean) => void>();
  private readonly breakerListeners = new Set<(open: boolean) => void>();
  private closed = false;
  private readonly deadlines: Deadlines;
  private readonly probeMs: number;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing = false;

  constructor(
    readonly config: RedisStoreConfig,
    options: RedisOptions = {},
    private readonly words: ConnectionWords = GATEWAY_WORDS,
  ) {
    this.prefix = config.prefix;
    this.safeUrl = redactRedisUrl(config.url);
    this.timeoutMs = config.timeout_ms ?? STORE_BUDGET_DEFAULTS.timeout_ms;
    this.probeMs = config.probe_ms ?? STORE_BUDGET_DEFAULTS.probe_ms;
    this.deadlines = new Deadlines(this.timeoutMs);
    this.breaker = new StoreBreaker(
      { tripAfter: config.trip_after ?? STORE_BUDGET_DEFAULTS.trip_after, closeAfter: CLOSE_AFTER },
      Date.now,
      (open, why) => this.breakerChanged(open, why),
    );
    this.client = new Redis(config.url, { ...REDIS_OPTIONS, ...options });
    this.client.on('ready', () => this.mark(true));
    this.client.on('close', () => this.mark(false));
    this.client.on('end', () => this.mark(false));
    // Each distinct error is logged once until the connection is up again (ioredis repeats it at every retry); without
    // a listener ioredis would print each one. A refused password used to log nothing at all (issue 33, item 8).
    this.client.on('error', (err: Error) => this.failed(err));
    this.client.connect().catch(() => {});
  }

  /** Prefixes a key: `key("rl", "k1")` → "switchboard:rl:k1". */
  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  isUp(): boolean {
    return this.up;
  }

  /** Whether hot-path calls go to Redis now: connected, and the breaker closed. */
  usable(): boolean {
    return this.up && this.breaker.closed;
  }

  /** Ever connected since start. */
  get reached(): boolean {
    return this.reachedOnce;
  }

  /**
   * A hot-path call's outcome within the store's timeout: its value, or TIMED_OUT (then it counts against the
   * breaker, as an error does; the error is thrown on). Its latency goes to the call histogram.
   */
  async budgeted<T>(call: Promise<T>): Promise<T | TimedOut> {
    const started = performance.now();
    let out: T | TimedOut;
    try {
      out = await this.deadlines.race(call);
    } catch (err) {
      this.observe(performance.now() - started);
      this.calls.errors++;
      this.breaker.failure(`an error: ${redact((err as Error).message ?? String(err)).slice(0, 200)}`);
      throw err;
    }
    if (out === TIMED_OUT) {
      this.observe(performance.now() - started);
      this.calls.timeouts++;
      this.breaker.failure(`no answer within ${this.timeoutMs} ms`);
      return out;
    }
    this.observe(performance.now() - started);
    this.breaker.success();
    return out;
  }

  private observe(ms: number): void {
    const s = ms / 1000;
    const c = this.calls;
    let i = 0;
    while (i < CALL_BUCKETS.length && s > CALL_BUCKETS[i]!) i++;
    c.counts[i]!++;
    c.sum += s;
    c.count++;
  }

  status(): StoreStatus {
    const state = !this.up ? 'down' : this.breaker.closed ? 'up' : 'slow';
    const since = state === 'slow' || (this.up && this.breaker.since > this.since) ? this.breaker.since : this.since;
    return {
      kind: 'redis',
      up: this.up,
      since: new Date(since).toISOString(),
      url: this.safeUrl,
      state,
      reached: this.reachedOnce,
      fail_open: state !== 'up',
    };
  }

  /** Seconds the hot path was answered locally so far: while down (after being reached) or while the breaker was open. */
  failOpenSeconds(): number {
    return this.breaker.openSeconds() + (this.downMs + (!this.up ? Date.now() - this.since : 0)) / 1000;
  }

  /** Called with true/false each time the breaker opens or closes. */
  onBreaker(fn: (open: boolean) => void): () => void {
    this.breakerListeners.add(fn);
    return () => this.breakerListeners.delete(fn);
  }

  private breakerChanged(open: boolean, why: string): void {
    if (this.closed) return;
    if (open) {
      logger.warn(
        { store: this.safeUrl, timeout_ms: this.timeoutMs },
        `${this.words.what}: Redis at ${this.safeUrl} is slow (${why}, ${this.breaker.trips > 1 ? 'again' : 'after a few calls in a row'}); ${this.words.whileDown}, probing it every ${this.probeMs} ms`,
      );
      this.startProbes();
    } else {
      logger.info(
        { store: this.safeUrl },
        `${this.words.what}: Redis at ${this.safeUrl} answers within ${this.timeoutMs} ms again; its state is used again`,
      );
      this.stopProbes();
    }
    for (const fn of this.breakerListeners) fn(open);
  }

  /** While the breaker is open: a PING every probe_ms (one at a time), each within the timeout. */
  private startProbes(): void {
    if (this.probeTimer) return;
    this.probeTimer = setInterval(() => void this.probe(), this.probeMs);
    this.probeTimer.unref();
  }

  private stopProbes(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }

  private async probe(): Promise<void> {
    if (this.probing || !this.up || this.closed) return;
    this.probing = true;
    try {
      const out = await this.deadlines.race(this.client.ping());
      this.breaker.probed(out !== TIMED_OUT);
    } catch {
      this.breaker.probed(false);
    } finally {
      this.probing = false;
    }
  }

  /** Called with true/false each time the connection goes up or down. */
  onChange(fn: (up: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A second connection on the same server (pub/sub needs its own), with the same options. */
  duplicate(): Redis {
    const dup = this.client.duplicate({ autoResubscribe: false });
    dup.on('error', () => {});
    return dup;
  }

  /** The errors logged in this outage (cleared when Redis is up), so a retry loop logs each one once. */
  private readonly logged = new Set<string>();

  private failed(err: Error): void {
    if (this.closed) return;
    const message = redact(err.message ?? String(err)).slice(0, 300);
    if (this.logged.has(message) || this.logged.size >= 20) return;
    this.logged.add(message);
    const where = 'store.url in config.json, or SWITCHBOARD_REDIS_URL';
    if (AUTH_REFUSED.test(message)) {
      // The same refusal reaches every connection to this URL (the gateway's state, its team log, the agents' store):
      // said once for all of them, with what each does until it is fixed. The URL (password masked) is in the message
      // itself: an operator reading the journal sees which Redis.
      if (refusalsLogged.has(this.safeUrl)) return;
      refusalsLogged.add(this.safeUrl);
      logger.warn(
        { store: this.safeUrl, error: message },
        `${this.words.what}: Redis refused the credentials of ${where} (${this.safeUrl}): fix them there. ` +
          'Until then the gateway counts limits locally and, with agents on Redis, the agent API answers 503',
      );
      return;
    }
    logger.warn(
      { store: this.safeUrl, error: message },
      `${this.words.what}: cannot reach Redis at ${this.safeUrl} (${message}); ${this.words.whileDown}, retrying every ${reconnectDelay(Number.MAX_SAFE_INTEGER) / 1000} s at most`,
    );
  }

  private mark(up: boolean): void {
    if (up) {
      this.logged.clear();
      refusalsLogged.delete(this.safeUrl);
    }
    if (up === this.up || this.closed) return;
    const now = Date.now();
    if (!up) this.breaker.reset();
    else {
      this.downMs += now - this.since;
      this.reachedOnce = true;
      this.breaker.reset(); // a fresh connection: calls are tried again
      this.stopProbes();
    }
    this.up = up;
    this.since = now;
    if (up) logger.info({ store: this.safeUrl }, `${this.words.what}: Redis at ${this.safeUrl} is up`);
    else
      logger.warn(
        { store: this.safeUrl },
        `${this.words.what}: Redis at ${this.safeUrl} is down; ${this.words.whileDown}`,
      );
    for (const fn of this.listeners) fn(up);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopProbes();
    this.client.disconnect();
  }
}

/** The process's connection for a Redis store config (one per config: the caller keeps it). */
export function connectRedis(
  config: RedisStoreConfig,
  options?: RedisOptions,
  words?: ConnectionWords,
): RedisConnection {
  return new RedisConnection(config, options, words);
}
