// The Redis shared state: limits as Lua scripts (one round trip, atomic across instances, on Redis's clock), key
// records in one hash with a pub/sub channel of changes, video-task affinity as keys with a TTL, breaker state per
// provider with a probe lock (SET NX PX). Every key starts with the store's prefix. Used through ./fail-open.ts.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisConnection } from './redis-connection.ts';
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
import type { LimitName } from '../../shared/config.ts';

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: counters hash, leases zset. ARGV: windowMs, rpm, tpm, concurrency, estimate, lease id, leaseMs. */
const ADMIT = `${NOW}
local windowMs = tonumber(ARGV[1])
local rpm, tpm, conc, est = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local leaseMs = tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local h = redis.call('HMGET', KEYS[1], 'ws', 'req', 'tok')
local ws, req, tok = tonumber(h[1]), tonumber(h[2]) or 0, tonumber(h[3]) or 0
if (not ws) or now - ws >= windowMs then ws, req, tok = now, 0, 0 end
local inflight = redis.call('ZCARD', KEYS[2])
local over = ''
if tpm > 0 and est > tpm then over = 'never_fits'
elseif rpm > 0 and req + 1 > rpm then over = 'rpm'
elseif tpm > 0 and tok + est > tpm then over = 'tpm'
elseif conc > 0 and inflight + 1 > conc then over = 'concurrency' end
if over == '' then
  req, tok, inflight = req + 1, tok + est, inflight + 1
  redis.call('ZADD', KEYS[2], now + leaseMs, ARGV[6])
  redis.call('PEXPIRE', KEYS[2], leaseMs * 2)
end
redis.call('HSET', KEYS[1], 'ws', string.format('%d', ws), 'req', req, 'tok', tok)
redis.call('PEXPIRE', KEYS[1], windowMs * 2)
return {over == '' and 1 or 0, over, req, tok, inflight, ws + windowMs - now, string.format('%d', ws)}`;

/** KEYS: leases zset. ARGV: lease id, leaseMs. 1 when renewed, 0 when it had expired (and was reclaimed). */
const RENEW = `${NOW}
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if (not s) or tonumber(s) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1`;

/** KEYS: counters hash, leases zset. ARGV: lease id, window start, estimate, actual tokens (-1: unknown). */
const SETTLE = `redis.call('ZREM', KEYS[2], ARGV[1])
local actual = tonumber(ARGV[4])
if actual >= 0 and redis.call('HGET', KEYS[1], 'ws') == ARGV[2] then
  local tok = (tonumber(redis.call('HGET', KEYS[1], 'tok')) or 0) - tonumber(ARGV[3]) + actual
  if tok < 0 then tok = 0 end
  redis.call('HSET', KEYS[1], 'tok', tok)
end
return 1`;

/**
 * The admissions and releases of one event-loop turn in one script run (issue 36: each command and each write that
 * wakes Redis costs; a request's admission and settle were two of each). KEYS: each operation's counters hash and leases
 * zset, in order. ARGV: the count, then per operation `a` windowMs rpm tpm concurrency estimate id leaseMs (an
 * admission: ADMIT's arguments) or `s` id windowStart estimate actual (a release: SETTLE's), run in the order sent, as
 * the single scripts would be. Answers ADMIT's seven values for each admission, in order.
 */
const BATCH = `${NOW}
local out = {}
local a, k = 2, 1
for i = 1, tonumber(ARGV[1]) do
  local hk, zk = KEYS[k], KEYS[k + 1]
  k = k + 2
  if ARGV[a] == 'a' then
    local windowMs = tonumber(ARGV[a + 1])
    local rpm, tpm, conc, est = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
    local id, leaseMs = ARGV[a + 6], tonumber(ARGV[a + 7])
    a = a + 8
    redis.call('ZREMRANGEBYSCORE', zk, '-inf', now)
    local h = redis.call('HMGET', hk, 'ws', 'req', 'tok')
    local ws, req, tok = tonumber(h[1]), tonumber(h[2]) or 0, tonumber(h[3]) or 0
    if (not ws) or now - ws >= windowMs then ws, req, tok = now, 0, 0 end
    local inflight = redis.call('ZCARD', zk)
    local over = ''
    if tpm > 0 and est > tpm then over = 'never_fits'
    elseif rpm > 0 and req + 1 > rpm then over = 'rpm'
    elseif tpm > 0 and tok + est > tpm then over = 'tpm'
    elseif conc > 0 and inflight + 1 > conc then over = 'concurrency' end
    if over == '' then
      req, tok, inflight = req + 1, tok + est, inflight + 1
      redis.call('ZADD', zk, now + leaseMs, id)
      redis.call('PEXPIRE', zk, leaseMs * 2)
    end
    redis.call('HSET', hk, 'ws', string.format('%d', ws), 'req', req, 'tok', tok)
    redis.call('PEXPIRE', hk, windowMs * 2)
    local n = #out
    out[n + 1], out[n + 2], out[n + 3], out[n + 4] = over == '' and 1 or 0, over, req, tok
    out[n + 5], out[n + 6], out[n + 7] = inflight, ws + windowMs - now, string.format('%d', ws)
  else
    local id, wsArg, est, actual = ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
    a = a + 5
    redis.call('ZREM', zk, id)
    if actual >= 0 and redis.call('HGET', hk, 'ws') == wsArg then
      local tok = (tonumber(redis.call('HGET', hk, 'tok')) or 0) - est + actual
      if tok < 0 then tok = 0 end
      redis.call('HSET', hk, 'tok', tok)
    end
  end
end
return out`;

type Scripts = {
  sbAdmit(...args: (string | number)[]): Promise<[number, string, number, number, number, number, string]>;
  sbRenew(...args: (string | number)[]): Promise<number>;
  sbSettle(...args: (string | number)[]): Promise<number>;
  sbLimitBatch(...args: (string | number)[]): Promise<(number | string)[]>;
};

/** An operation waiting for this turn's batch. */
type Op =
  | {
      kind: 'a';
      keys: [string, string];
      args: (string | number)[];
      resolve: (v: AdmitReply) => void;
      reject: (e: unknown) => void;
    }
  | { kind: 's'; keys: [string, string]; args: (string | number)[]; resolve: () => void; reject: (e: unknown) => void };
type AdmitReply = [number, string, number, number, number, number, string];

export class RedisLimits implements SharedLimits {
  private readonly r: Redis & Scripts;

  constructor(private readonly conn: RedisConnection) {
    const r = conn.client as Redis & Partial<Scripts>;
    if (!r.sbAdmit) {
      r.defineCommand('sbAdmit', { numberOfKeys: 2, lua: ADMIT });
      r.defineCommand('sbRenew', { numberOfKeys: 1, lua: RENEW });
      r.defineCommand('sbSettle', { numberOfKeys: 2, lua: SETTLE });
      r.defineCommand('sbLimitBatch', { lua: BATCH }); // its first argument: how many keys
    }
    this.r = r as Redis & Scripts;
  }

  /** This turn's admissions and releases, sent together at its end (setImmediate, as ioredis's auto-pipelining does). */
  private ops: Op[] = [];
  private scheduled = false;

  private enqueue(op: Op): void {
    this.ops.push(op);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.send());
  }

  private send(): void {
    this.scheduled = false;
    const ops = this.ops;
    this.ops = [];
    if (!ops.length) return;
    const keys: string[] = [];
    const args: (string | number)[] = [ops.length];
    for (const op of ops) {
      keys.push(op.keys[0], op.keys[1]);
      args.push(op.kind, ...op.args);
    }
    this.r.sbLimitBatch(keys.length, ...keys, ...args).then(
      (out) => {
        let at = 0;
        for (const op of ops) {
          if (op.kind === 's') op.resolve();
          else {
            op.resolve(out.slice(at, at + 7) as AdmitReply);
            at += 7;
          }
        }
      },
      (err: unknown) => {
        for (const op of ops) op.reject(err);
      },
    );
  }

  private keys(scope: string): [string, string] {
    return [this.conn.key('rl', scope), this.conn.key('rl', scope, 'leases')];
  }

  async admit(scope: string, caps: LimitCaps, est: number, leaseMs: number, id = randomUUID()): Promise<LimitVerdict> {
    const keys = this.keys(scope);
    const args = [caps.windowMs, caps.rpm, caps.tpm, caps.concurrency, est, id, leaseMs];
    const [ok, over, requests, tokens, inFlight, resetMs, ws] = await new Promise<AdmitReply>((resolve, reject) =>
      this.enqueue({ kind: 'a', keys, args, resolve, reject }),
    );
    const counts = { requests, tokens, inFlight, resetMs };
    if (ok === 1) return { ok: true, lease: { scope, id, windowStart: Number(ws), estimatedTokens: est }, ...counts };
    return { ok: false, over: over as LimitName | 'never_fits', ...counts };
  }

  async renew(lease: LimitLease, leaseMs: number): Promise<boolean> {
    return (await this.r.sbRenew(this.keys(lease.scope)[1], lease.id, leaseMs)) === 1;
  }

  async settle(lease: LimitLease, actual: number | null): Promise<void> {
    const keys = this.keys(lease.scope);
    const args = [lease.id, String(lease.windowStart), lease.estimatedTokens, actual ?? -1];
    await new Promise<void>((resolve, reject) => this.enqueue({ kind: 's', keys, args, resolve, reject }));
  }
}

/** One subscriber connection for the store's channels, made on first use; ioredis resubscribes after a reconnect. */
class Channels {
  private sub: Redis | null = null;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();

  constructor(private readonly conn: RedisConnection) {}

  on(channel: string, fn: (message: string) => void): () => void {
    if (!this.sub) {
      const sub = this.conn.duplicate();
      this.sub = sub;
      sub.on('message', (ch: string, message: string) => {
        for (const h of this.handlers.get(ch) ?? []) {
          try {
            h(message);
          } catch {
            // a handler's failure is its own
          }
        }
      });
      // Every (re)connection subscribes to every channel afresh (no offline queue: nothing is sent while down).
      sub.on('ready', () => void sub.subscribe(...this.handlers.keys()).catch(() => {}));
      sub.connect().catch(() => {});
    }
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      if (this.sub.status === 'ready') void this.sub.subscribe(channel).catch(() => {});
    }
    set.add(fn);
    return () => set.delete(fn);
  }

  close(): void {
    this.sub?.disconnect();
    this.sub = null;
  }
}

export class RedisCredentials implements CredentialStore {
  private readonly hash: string;
  private readonly channel: string;

  constructor(
    private readonly conn: RedisConnection,
    private readonly channels: Channels,
  ) {
    this.hash = conn.key('keys');
    this.channel = conn.key('keys', 'events');
  }

  async all(): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.conn.client.hgetall(this.hash)));
  }
  get(sha256: string): Promise<string | null> {
    return this.conn.client.hget(this.hash, sha256);
  }
  async put(sha256: string, record: string): Promise<void> {
    await this.conn.client.hset(this.hash, sha256, record);
  }
  async putIfAbsent(sha256: string, record: string): Promise<boolean> {
    return (await this.conn.client.hsetnx(this.hash, sha256, record)) === 1;
  }
  async publish(event: CredentialEvent): Promise<void> {
    await this.conn.client.publish(this.channel, JSON.stringify(event));
  }
  subscribe(fn: (event: CredentialEvent) => void): () => void {
    return this.channels.on(this.channel, (m) => fn(JSON.parse(m) as CredentialEvent));
  }
}

export class RedisVideos implements VideoAffinity {
  constructor(private readonly conn: RedisConnection) {}
  async remember(taskId: string, provider: string, ttlMs: number): Promise<void> {
    await this.conn.client.set(this.conn.key('video', taskId), provider, 'PX', ttlMs);
  }
  get(taskId: string): Promise<string | null> {
    return this.conn.client.get(this.conn.key('video', taskId));
  }
}

/** How long an open breaker's record outlives its cool-down (so the half-open probe stays single until a verdict). */
const BREAKER_LINGER_MS = 10 * 60_000;

export class RedisBreakers implements SharedBreakers {
  private readonly channel: string;
  constructor(
    private readonly conn: RedisConnection,
    private readonly channels: Channels,
  ) {
    this.channel = conn.key('breaker', 'events');
  }

  async open(provider: string, openUntil: number): Promise<void> {
    const c: SharedCircuit = { state: 'open', openUntil };
    const ttl = Math.max(1, openUntil - Date.now()) + BREAKER_LINGER_MS;
    await this.conn.client
      .multi()
      .set(this.conn.key('breaker', provider), JSON.stringify(c), 'PX', ttl)
      .del(this.conn.key('probe', provider))
      .publish(this.channel, JSON.stringify({ provider, ...c }))
      .exec();
  }
  async close(provider: string): Promise<void> {
    await this.conn.client
      .multi()
      .del(this.conn.key('breaker', provider), this.conn.key('probe', provider))
      .publish(this.channel, JSON.stringify({ provider, state: 'closed', openUntil: 0 }))
      .exec();
  }
  async get(provider: string): Promise<SharedCircuit> {
    const v = await this.conn.client.get(this.conn.key('breaker', provider));
    return v ? (JSON.parse(v) as SharedCircuit) : { state: 'closed', openUntil: 0 };
  }
  async claimProbe(provider: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.conn.client.set(this.conn.key('probe', provider), owner, 'PX', ttlMs, 'NX')) === 'OK';
  }
  subscribe(fn: (provider: string, circuit: SharedCircuit) => void): () => void {
    return this.channels.on(this.channel, (m) => {
      const { provider, state, openUntil } = JSON.parse(m) as SharedCircuit & { provider: string };
      fn(provider, { state, openUntil });
    });
  }
}

export class RedisState implements SharedState {
  readonly kind = 'redis' as const;
  readonly limits: RedisLimits;
  readonly credentials: RedisCredentials;
  readonly videos: RedisVideos;
  readonly breakers: RedisBreakers;
  private readonly channels: Channels;

  constructor(readonly conn: RedisConnection) {
    this.channels = new Channels(conn);
    this.limits = new RedisLimits(conn);
    this.credentials = new RedisCredentials(conn, this.channels);
    this.videos = new RedisVideos(conn);
    this.breakers = new RedisBreakers(conn, this.channels);
  }

  status(): StoreStatus {
    return this.conn.status();
  }

  async close(): Promise<void> {
    this.channels.close();
    await this.conn.close();
  }
}
