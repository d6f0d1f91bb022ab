// The process's Redis connection (store.kind "redis"): one ioredis client made from the config, connecting in the
// background (never blocking start), reconnecting with a bounded backoff, failing a command at once while Redis is
// down (no offline queue, one retry) so the fail-open store answers locally instead of waiting; its up/down state
// and since when, for the admin status. The URL's password never reaches a log: only `redactRedisUrl` is logged.
// This module is loaded only when the store is Redis (a dynamic import), so the desktop user never loads ioredis.
import { Redis, type RedisOptions } from 'ioredis';
import { redactRedisUrl, type StoreConfig } from '../../shared/config.ts';
import { logger } from '../observability/logger.ts';
import { redact } from '../observability/redact.ts';
import type { StoreStatus } from './status.ts';

export type RedisStoreConfig = Extract<StoreConfig, { kind: 'redis' }>;

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

export class RedisConnection {
  readonly client: Redis;
  readonly prefix: string;
  readonly safeUrl: string;
  private up = false;
  private since = new Date().toISOString();
  private readonly listeners = new Set<(up: boolean) => void>();
  private closed = false;

  constructor(
    readonly config: RedisStoreConfig,
    options: RedisOptions = {},
    private readonly words: ConnectionWords = GATEWAY_WORDS,
  ) {
    this.prefix = config.prefix;
    this.safeUrl = redactRedisUrl(config.url);
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

  status(): StoreStatus {
    return { kind: 'redis', up: this.up, since: this.since, url: this.safeUrl };
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
    if (AUTH_REFUSED.test(message)) {
      // The same refusal reaches every connection to this URL (the gateway's state, its team log, the agents' store):
      // said once for all of them, with what each does until it is fixed.
      if (refusalsLogged.has(this.safeUrl)) return;
      refusalsLogged.add(this.safeUrl);
      logger.warn(
        { store: this.safeUrl, error: message },
        'Redis refused the credentials of store.url in config.json, or SWITCHBOARD_REDIS_URL: fix them there. ' +
          'Until then the gateway counts limits locally and, with agents on Redis, the agent API answers 503',
      );
      return;
    }
    logger.warn(
      { store: this.safeUrl, error: message },
      `${this.words.what}: Redis cannot be used; ${this.words.whileDown}`,
    );
  }

  private mark(up: boolean): void {
    if (up) {
      this.logged.clear();
      refusalsLogged.delete(this.safeUrl);
    }
    if (up === this.up || this.closed) return;
    this.up = up;
    this.since = new Date().toISOString();
    if (up) logger.info({ store: this.safeUrl }, `${this.words.what}: Redis is up`);
    else logger.warn({ store: this.safeUrl }, `${this.words.what}: Redis is down; ${this.words.whileDown}`);
    for (const fn of this.listeners) fn(up);
  }

  async close(): Promise<void> {
    this.closed = true;
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
