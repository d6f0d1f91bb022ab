// The Redis store as the gateway uses it: while Redis is up every call goes to it; while it is down (or a call to it
// fails) the call is answered from a local embedded store, so requests keep flowing with this instance's own
// limits. The connection logs once per outage and the status says down since when. When Redis is back, new
// admissions count there again; slots admitted locally settle locally, and slots held in Redis by requests that
// ended during the outage expire with their lease (no stuck slot).
// Redis is a dependency with a budget (issue 36): a call on a request's path (hot()) gets the store's timeout and
// feeds its breaker; while the breaker is open (Redis slow) every call is answered locally at once, as when it is
// down. Calls off the path (background(): key re-reads, breaker broadcasts, lease renewals and releases) are sent
// whenever the connection is up and never make a request wait.
// During an outage this instance's local concurrency counts the slots it still holds in Redis (its requests admitted
// there and still open), so across N instances no more than N × the limit are in flight (before: the Redis slots
// plus N local sets, up to (N+1)×).
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.ts';
import type { StoreConfig } from '../../shared/config.ts';
import { TIMED_OUT } from './deadlines.ts';
import { EmbeddedState, type EmbeddedLimits } from './embedded.ts';
import { connectRedis, type RedisConnection, type RedisStoreConfig } from './redis-connection.ts';
import { RedisState } from './redis.ts';
import type {
  CredentialEvent,
  CredentialStore,
  LimitCaps,
  LimitLease,
  LimitVerdict,
  SharedBreakers,
  SharedCircuit,
  SharedLimits,
  SharedState,
  StoreStatus,
  VideoAffinity,
} from './types.ts';

/** Lease ids of slots admitted locally (while Redis was down) start with this. */
const LOCAL = 'local:';

/** A call on a request's path: to Redis when it is usable and answers within the budget, else `local`. */
async function hot<T>(conn: RedisConnection, remote: () => Promise<T>, local: () => Promise<T> | T): Promise<T> {
  if (!conn.usable()) return local();
  try {
    const out = await conn.budgeted(remote());
    return out === TIMED_OUT ? local() : out;
  } catch {
    return local();
  }
}

/** A call off the request's path: to Redis whenever it is connected (its own command timeout), else `local`. */
async function background<T>(conn: RedisConnection, remote: () => Promise<T>, local: () => Promise<T> | T): Promise<T> {
  if (!conn.isUp()) return local();
  try {
    return await remote();
  } catch {
    return local();
  }
}

class FailOpenLimits implements SharedLimits {
  constructor(
    private readonly conn: RedisConnection,
    private readonly remote: SharedLimits & {
      tryBlock?(scope: string, caps: LimitCaps, est: number, id: string): LimitVerdict | null;
    },
    private readonly local: EmbeddedLimits,
  ) {}

  admit(scope: string, caps: LimitCaps, est: number, leaseMs: number): Promise<LimitVerdict> {
    if (!this.conn.usable()) return Promise.resolve(this.admitLocally(scope, caps, est, leaseMs));
    const id = randomUUID();
    // From this instance's block (./redis.ts): no round trip, so no budget to race.
    const quick = this.remote.tryBlock?.(scope, caps, est, id);
    if (quick) {
      if (quick.ok) this.local.hold(quick.lease, caps.windowMs, leaseMs);
      return Promise.resolve(quick);
    }
    const call = this.remote.admit(scope, caps, est, leaseMs, id);
    return this.conn.budgeted(call).then(
      (v) => {
        if (v === TIMED_OUT) {
          // Admitted in Redis after all, too late: its slot is given back there (the request runs on a local one).
          // A reply later still than the client's command timeout never comes, but Redis runs the command all the
          // same: its slot is released by id (sent after it on the same connection, so run after it).
          const release = { scope, id, windowStart: -1, estimatedTokens: est };
          void call
            .then(
              (late) => (late.ok ? this.remote.settle(late.lease, 0) : undefined),
              () =>
                background(
                  this.conn,
                  () => this.remote.settle(release, null),
                  () => undefined,
                ),
            )
            .catch(() => {});
          return this.admitLocally(scope, caps, est, leaseMs);
        }
        // This instance's slot in Redis, counted locally too: what an outage's local admissions must leave free.
        if (v.ok) this.local.hold(v.lease, caps.windowMs, leaseMs);
        return v;
      },
      () => this.admitLocally(scope, caps, est, leaseMs),
    );
  }

  private admitLocally(scope: string, caps: LimitCaps, est: number, leaseMs: number): LimitVerdict {
    const v = this.local.admitSync(scope, caps, est, leaseMs);
    return v.ok ? { ...v, lease: { ...v.lease, id: LOCAL + v.lease.id } } : v;
  }

  async renew(lease: LimitLease, leaseMs: number): Promise<boolean> {
    if (lease.id.startsWith(LOCAL)) return this.local.renew({ ...lease, id: lease.id.slice(LOCAL.length) }, leaseMs);
    this.local.renewSync(lease, leaseMs); // its local count
    // A Redis lease that cannot be renewed now stays the request's: it expires in Redis if Redis lost it.
    return background(
      this.conn,
      () => this.remote.renew(lease, leaseMs),
      () => true,
    );
  }

  async settle(lease: LimitLease, actual: number | null): Promise<void> {
    if (lease.id.startsWith(LOCAL)) return this.local.settle({ ...lease, id: lease.id.slice(LOCAL.length) }, actual);
    this.local.release(lease);
    // Sent whenever connected, the breaker open or not (a slow Redis takes it when it can); not sent while Redis is
    // down: its lease expires there.
    return background(
      this.conn,
      () => this.remote.settle(lease, actual),
      () => undefined,
    );
  }
}

class FailOpenCredentials implements CredentialStore {
  private readonly listeners = new Set<(event: CredentialEvent) => void>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly remote: CredentialStore,
    /** The records as last read from Redis: answers while it is down. */
    private readonly cache: CredentialStore,
  ) {
    // Events missed while Redis was down: everyone re-reads when it is back.
    conn.onChange((up) => {
      if (up) for (const fn of this.listeners) fn({ kind: 'resync', id: '*' });
    });
  }

  all(): Promise<Map<string, string>> {
    return background(
      this.conn,
      async () => {
        const all = await this.remote.all();
        for (const [k, v] of all) await this.cache.put(k, v);
        return all;
      },
      () => this.cache.all(),
    );
  }
  get(sha256: string): Promise<string | null> {
    return hot(
      this.conn,
      async () => {
        const v = await this.remote.get(sha256);
        if (v !== null) await this.cache.put(sha256, v);
        return v;
      },
      () => this.cache.get(sha256),
    );
  }
  private needRedis(): ApiError {
    return new ApiError(
      'store_unavailable',
      `Keys are stored in Redis (${this.conn.safeUrl}), which is not reachable: the key was not changed.`,
      'Retry when Redis is back; GET /admin/v1/status shows the store as up again.',
    );
  }
  async put(sha256: string, record: string): Promise<void> {
    if (!this.conn.isUp()) throw this.needRedis();
    await this.remote.put(sha256, record);
    await this.cache.put(sha256, record);
  }
  async putIfAbsent(sha256: string, record: string): Promise<boolean> {
    if (!this.conn.isUp()) throw this.needRedis();
    return this.remote.putIfAbsent(sha256, record);
  }
  async publish(event: CredentialEvent): Promise<void> {
    await background(
      this.conn,
      () => this.remote.publish(event),
      () => undefined,
    );
  }
  subscribe(fn: (event: CredentialEvent) => void): () => void {
    this.listeners.add(fn);
    const off = this.remote.subscribe(fn);
    return () => {
      this.listeners.delete(fn);
      off();
    };
  }
}

class FailOpenVideos implements VideoAffinity {
  constructor(
    private readonly conn: RedisConnection,
    private readonly remote: VideoAffinity,
    private readonly local: VideoAffinity,
  ) {}
  async remember(taskId: string, provider: string, ttlMs: number): Promise<void> {
    // The shared write is issued first, synchronously (hot() calls remote() before its first await, and ioredis
    // writes the command to its socket at once): the video create reply is written after it, so a poll through
    // another instance, which can only come after that reply, finds the task.
    const shared = hot(
      this.conn,
      () => this.remote.remember(taskId, provider, ttlMs),
      () => undefined,
    );
    await this.local.remember(taskId, provider, ttlMs);
    await shared;
  }
  async get(taskId: string): Promise<string | null> {
    const remote = await hot(
      this.conn,
      () => this.remote.get(taskId),
      () => null,
    );
    return remote ?? this.local.get(taskId);
  }
}

class FailOpenBreakers implements SharedBreakers {
  constructor(
    private readonly conn: RedisConnection,
    private readonly remote: SharedBreakers,
    private readonly local: SharedBreakers,
  ) {}
  async open(provider: string, openUntil: number): Promise<void> {
    await this.local.open(provider, openUntil);
    await background(
      this.conn,
      () => this.remote.open(provider, openUntil),
      () => undefined,
    );
  }
  async close(provider: string): Promise<void> {
    await this.local.close(provider);
    await background(
      this.conn,
      () => this.remote.close(provider),
      () => undefined,
    );
  }
  get(provider: string): Promise<SharedCircuit> {
    return background(
      this.conn,
      () => this.remote.get(provider),
      () => this.local.get(provider),
    );
  }
  claimProbe(provider: string, owner: string, ttlMs: number): Promise<boolean> {
    return hot(
      this.conn,
      () => this.remote.claimProbe(provider, owner, ttlMs),
      () => this.local.claimProbe(provider, owner, ttlMs),
    );
  }
  subscribe(fn: (provider: string, circuit: SharedCircuit) => void): () => void {
    return this.remote.subscribe(fn);
  }
}

export class FailOpenState implements SharedState {
  readonly kind = 'redis' as const;
  readonly limits: SharedLimits;
  readonly credentials: CredentialStore;
  readonly videos: VideoAffinity;
  readonly breakers: SharedBreakers;

  constructor(
    readonly redis: RedisState,
    readonly local: EmbeddedState = new EmbeddedState(),
  ) {
    const c = redis.conn;
    this.limits = new FailOpenLimits(c, redis.limits, local.limits);
    this.credentials = new FailOpenCredentials(c, redis.credentials, local.credentials);
    this.videos = new FailOpenVideos(c, redis.videos, local.videos);
    this.breakers = new FailOpenBreakers(c, redis.breakers, local.breakers);
  }

  status(): StoreStatus {
    return this.redis.status();
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}

/** The Redis store for a config, wrapped to fail open. Connects in the background. */
export function openRedisState(config: RedisStoreConfig): FailOpenState {
  return new FailOpenState(new RedisState(connectRedis(config)));
}

export type { StoreConfig };
