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

/**
 * Lua, shared by the batch script's admission and block operations: the window's counters of `hk` read (a window past its end starts afresh) and
 * the expired leases of `zk` dropped. Needs hk, zk, windowMs and now; sets ws, req, tok.
 */
const READ_WINDOW = `redis.call('ZREMRANGEBYSCORE', zk, '-inf', now)
local h = redis.call('HMGET', hk, 'ws', 'req', 'tok')
local ws, req, tok = tonumber(h[1]), tonumber(h[2]) or 0, tonumber(h[3]) or 0
if (not ws) or now - ws >= windowMs then ws, req, tok = now, 0, 0 end`;

/**
 * Lua, shared by the batch script's admission and block operations: one request admitted against the caps, or not. Sets over ('' when admitted:
 * counted, its lease `id` added to `zk` for leaseMs; else the limit it is over) and updates req, tok, inflight.
 */
const ADMIT_ONE = `local over = ''
if tpm > 0 and est > tpm then over = 'never_fits'
elseif rpm > 0 and req + 1 > rpm then over = 'rpm'
elseif tpm > 0 and tok + est > tpm then over = 'tpm'
elseif conc > 0 and inflight + 1 > conc then over = 'concurrency' end
if over == '' then
  req, tok, inflight = req + 1, tok + est, inflight + 1
  redis.call('ZADD', zk, now + leaseMs, id)
  redis.call('PEXPIRE', zk, leaseMs * 2)
end`;

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

/**
 * The admissions and releases of one event-loop turn in one script run (issue 36: each command and each write that
 * wakes Redis costs; a request's admission and settle were two of each). KEYS: each operation's counters hash and leases
 * zset, in order. ARGV: the count, then per operation `a` windowMs rpm tpm concurrency estimate id leaseMs (an
 * admission) or `s` id windowStart estimate actual (a release; actual -1: unknown), run in the order sent. Answers
 * seven values for each admission, in order: admitted (1/0), the limit it is over (''), requests, tokens, in flight,
 * ms to the window's reset, the window's start. An operation `b` is a block
 * (see RedisLimits): windowMs rpm tpm concurrency estimate want id lastWindowStart unusedRequests unusedTokens
 * reservation size inUse rescore leaseMs maxBlock; it answers one value (want 0: 2) or eight: 1, the block's
 * requests, the reservation's new size, then requests tokens inFlight resetMs windowStart; or 0, ok, over, then the
 * same five (no block: this one request admitted or refused as by `a`).
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
    ${READ_WINDOW}
    local inflight = redis.call('ZCARD', zk)
    ${ADMIT_ONE}
    redis.call('HSET', hk, 'ws', string.format('%d', ws), 'req', req, 'tok', tok)
    redis.call('PEXPIRE', hk, windowMs * 2)
    local n = #out
    out[n + 1], out[n + 2], out[n + 3], out[n + 4] = over == '' and 1 or 0, over, req, tok
    out[n + 5], out[n + 6], out[n + 7] = inflight, ws + windowMs - now, string.format('%d', ws)
  elseif ARGV[a] == 'b' then
    -- A block (see BLOCK_OP below): give back the last block's unused part, resize the slot reservation, then
    -- (want 1) grant a new block when every capped limit has room for it 16 times over, else admit this one request
    -- exactly as 'a' does.
    local windowMs = tonumber(ARGV[a + 1])
    local rpm, tpm, conc, est = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
    local want, id, oldWs = tonumber(ARGV[a + 6]), ARGV[a + 7], ARGV[a + 8]
    local retReq, retTok, res = tonumber(ARGV[a + 9]), tonumber(ARGV[a + 10]), ARGV[a + 11]
    local size, inUse, rescore = tonumber(ARGV[a + 12]), tonumber(ARGV[a + 13]), tonumber(ARGV[a + 14])
    local leaseMs, maxN = tonumber(ARGV[a + 15]), tonumber(ARGV[a + 16])
    a = a + 17
    ${READ_WINDOW}
    if oldWs == string.format('%d', ws) then
      req = math.max(0, req - retReq)
      tok = math.max(0, tok - retTok)
    end
    local function resize(from, to)
      for j = to, from - 1 do redis.call('ZREM', zk, res .. ':' .. j) end
      if rescore == 1 then for j = 0, math.min(from, to) - 1 do redis.call('ZADD', zk, 'XX', now + leaseMs, res .. ':' .. j) end end
      for j = from, to - 1 do redis.call('ZADD', zk, now + leaseMs, res .. ':' .. j) end
      if to > 0 then redis.call('PEXPIRE', zk, leaseMs * 2) end
    end
    local n = #out
    if want == 0 then
      resize(size, inUse)
      out[n + 1] = 2
    else
      local inflight = redis.call('ZCARD', zk)
      local big = 1e18
      local hrR, hrT, hrC = big, big, big
      if rpm > 0 then hrR = rpm - req end
      if tpm > 0 then hrT = tpm - tok end
      if conc > 0 then hrC = conc - inflight end
      local bn = math.min(maxN, math.floor(hrR / 16))
      if tpm > 0 and est > 0 then bn = math.min(bn, math.floor(hrT / (16 * est))) end
      local grow = 0
      if conc > 0 and size <= inUse then grow = math.min(maxN, math.floor(hrC / 16)) end
      if bn >= 2 and (conc == 0 or size > inUse or grow >= 1) and not (tpm > 0 and est > tpm) then
        resize(size, size + grow)
        req, tok, inflight = req + bn, tok + bn * est, inflight + grow
        out[n + 1], out[n + 2], out[n + 3] = 1, bn, size + grow
      else
        resize(size, inUse)
        inflight = inflight - (size - inUse)
        ${ADMIT_ONE}
        out[n + 1], out[n + 2], out[n + 3] = 0, over == '' and 1 or 0, over
      end
      out[n + 4], out[n + 5], out[n + 6], out[n + 7], out[n + 8] = req, tok, inflight, ws + windowMs - now, string.format('%d', ws)
    end
    redis.call('HSET', hk, 'ws', string.format('%d', ws), 'req', req, 'tok', tok)
    redis.call('PEXPIRE', hk, windowMs * 2)
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
  sbRenew(...args: (string | number)[]): Promise<number>;
  sbLimitBatch(...args: (string | number)[]): Promise<(number | string)[]>;
};

/** An operation waiting for this turn's batch; `size`: how many values it answers (from its first). */
type Op = {
  kind: 'a' | 's' | 'b';
  keys: [string, string];
  args: (string | number)[];
  resolve: (v: (number | string)[]) => void;
  reject: (e: unknown) => void;
};

/** A block is at most this many requests (and concurrency slots), and at most 1/16 of what is left of each limit. */
export const MAX_BLOCK = 100;
/** A scope's unused block (requests, tokens, free slots) goes back to Redis after this long without an admission. */
export const BLOCK_IDLE_MS = 200;
const BLOCK = 'blk:';

/**
 * A scope's block on this instance (issue 36: a round trip per request was most of the Redis store's cost). Redis
 * counts a block's requests and tokens, and its reservation's concurrency slots, when it grants them, so no instance
 * ever admits past a limit; the instance admits locally within the block and gives back what it did not use.
 */
type ScopeBlock = {
  caps: string;
  /** The Redis window the block's requests and tokens were counted in ("" for none), and its end on this clock. */
  ws: string;
  validUntil: number;
  reqLeft: number;
  tokLeft: number;
  /** Reserved slots `${res}:0..size-1` (concurrency capped only), of which `inUse` held by open requests. */
  res: string;
  size: number;
  inUse: number;
  /** Counts as Redis last told (for the rate-limit headers), and the block's requests at that time. */
  seen: { requests: number; tokens: number; inFlight: number; reqLeft: number; tokLeft: number };
  lastAdmit: number;
  renewedAt: number;
  pending: Promise<void> | null;
  /** Whether the last fetch brought a block (else the scope is near a limit: one round trip per request). */
  granting: boolean;
};

/** Whether Redis could grant a block at all: each capped limit 16 blocks of two (slots: 16 of one) when unused. */
function blockPossible(caps: LimitCaps, est: number): boolean {
  return (
    (caps.rpm === 0 || caps.rpm >= 32) &&
    (caps.concurrency === 0 || caps.concurrency >= 16) &&
    (caps.tpm === 0 || caps.tpm >= 32 * est)
  );
}

export class RedisLimits implements SharedLimits {
  private readonly r: Redis & Scripts;
  private readonly blocks = new Map<string, ScopeBlock>();
  private timer: NodeJS.Timeout | null = null;
  private leaseMs = 30_000;

  constructor(private readonly conn: RedisConnection) {
    const r = conn.client as Redis & Partial<Scripts>;
    if (!r.sbRenew) {
      r.defineCommand('sbRenew', { numberOfKeys: 1, lua: RENEW });
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

  private call(kind: Op['kind'], keys: [string, string], args: (string | number)[]): Promise<(number | string)[]> {
    return new Promise((resolve, reject) => this.enqueue({ kind, keys, args, resolve, reject }));
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
          const size = op.kind === 's' ? 0 : op.kind === 'a' ? 7 : out[at] === 2 ? 1 : 8;
          op.resolve(out.slice(at, at + size));
          at += size;
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
    this.leaseMs = leaseMs;
    const capsKey = `${caps.rpm}/${caps.tpm}/${caps.concurrency}/${caps.windowMs}`;
    let b = this.blocks.get(scope);
    if (b && b.caps !== capsKey) {
      // The key's limits changed: what is left of the old block goes back first.
      await b.pending;
      this.giveBack(scope, b);
      b = undefined;
    }
    if (!b) {
      b = {
        caps: capsKey,
        ws: '',
        validUntil: 0,
        reqLeft: 0,
        tokLeft: 0,
        res: randomUUID(),
        size: 0,
        inUse: 0,
        seen: { requests: 0, tokens: 0, inFlight: 0, reqLeft: 0, tokLeft: 0 },
        lastAdmit: 0,
        renewedAt: Date.now(),
        pending: null,
        granting: true,
      };
      this.blocks.set(scope, b);
      this.tick();
    }
    for (;;) {
      const local = this.fromBlock(scope, b, caps, est, id);
      if (local) return local;
      // Another request is fetching a block: it may have room for this one too. Not waited for when no block can
      // come (near a limit every request is its own round trip, as without blocks: a wait would eat store.timeout_ms).
      if (!b.pending || !b.granting || !blockPossible(caps, est)) break;
      await b.pending;
    }
    return this.fetch(scope, b, caps, est, leaseMs, id);
  }

  /** An admission from the scope's block, answered at once; null when it needs Redis (no block, or no room in it). */
  tryBlock(scope: string, caps: LimitCaps, est: number, id: string): LimitVerdict | null {
    const b = this.blocks.get(scope);
    if (!b || b.caps !== `${caps.rpm}/${caps.tpm}/${caps.concurrency}/${caps.windowMs}`) return null;
    return this.fromBlock(scope, b, caps, est, id);
  }

  /** Admits within the scope's block when it has room (a request, its estimate, a free slot), without Redis. */
  private fromBlock(scope: string, b: ScopeBlock, caps: LimitCaps, est: number, id: string): LimitVerdict | null {
    const now = Date.now();
    if (b.ws === '' || now >= b.validUntil || b.reqLeft < 1) return null;
    if (caps.tpm > 0 && b.tokLeft < est) return null;
    if (caps.concurrency > 0 && b.inUse >= b.size) return null;
    b.reqLeft -= 1;
    b.tokLeft -= est;
    b.inUse += 1;
    b.lastAdmit = now;
    const s = b.seen;
    return {
      ok: true,
      lease: { scope, id: BLOCK + id, windowStart: Number(b.ws), estimatedTokens: est },
      requests: s.requests - b.reqLeft,
      tokens: Math.max(0, s.tokens - b.tokLeft),
      inFlight: s.inFlight,
      resetMs: b.validUntil - now,
    };
  }

  /** One round trip: gives back the old block's rest, then a new block (this request its first) or this request alone. */
  private async fetch(
    scope: string,
    b: ScopeBlock,
    caps: LimitCaps,
    est: number,
    leaseMs: number,
    id: string,
  ): Promise<LimitVerdict> {
    const sentAt = Date.now();
    const size = caps.concurrency > 0 ? b.size : 0;
    const inUse = caps.concurrency > 0 ? b.inUse : 0;
    const rescore = sentAt - b.renewedAt > leaseMs / 3 ? 1 : 0;
    if (rescore) b.renewedAt = sentAt;
    const args = [
      caps.windowMs,
      caps.rpm,
      caps.tpm,
      caps.concurrency,
      est,
      1,
      id,
      b.ws === '' ? '-' : b.ws,
      Math.max(0, b.reqLeft),
      b.tokLeft,
      b.res,
      size,
      inUse,
      rescore,
      leaseMs,
      MAX_BLOCK,
    ];
    b.ws = '';
    b.reqLeft = 0;
    b.tokLeft = 0;
    let done!: () => void;
    b.pending = new Promise<void>((r) => (done = r));
    try {
      const out = await this.call('b', this.keys(scope), args);
      const [mode, x, y, requests, tokens, inFlight, resetMs, ws] = out as [
        number,
        number,
        number | string,
        number,
        number,
        number,
        number,
        string,
      ];
      const counts = { requests, tokens, inFlight, resetMs };
      b.granting = mode === 1;
      if (mode === 1) {
        // A block of x requests (x·estimate tokens), the reservation now y slots; this request takes the first.
        b.ws = ws;
        b.validUntil = sentAt + resetMs;
        b.reqLeft = x - 1;
        b.tokLeft = (x - 1) * est;
        if (caps.concurrency > 0) b.size = Number(y);
        b.inUse += 1;
        b.lastAdmit = Date.now();
        b.seen = { requests, tokens, inFlight, reqLeft: x, tokLeft: x * est };
        return {
          ok: true,
          lease: { scope, id: BLOCK + id, windowStart: Number(ws), estimatedTokens: est },
          ...counts,
          requests: requests - b.reqLeft,
          tokens: Math.max(0, tokens - b.tokLeft),
        };
      }
      // No block (a limit is near): the reservation shrank to the slots in use; this request went alone.
      b.size = inUse;
      if (x === 1) return { ok: true, lease: { scope, id, windowStart: Number(ws), estimatedTokens: est }, ...counts };
      return { ok: false, over: y as LimitName | 'never_fits', ...counts };
    } finally {
      b.pending = null;
      done();
    }
  }

  /** Sends back a scope's unused block and free slots (want 0); keeps the slots still in use. */
  private giveBack(scope: string, b: ScopeBlock, rescore = 0): void {
    const [, rpm, tpm, conc, windowMs] = /^(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(b.caps)!.map(Number) as number[];
    const args = [
      windowMs!,
      rpm!,
      tpm!,
      conc!,
      0,
      0,
      '',
      b.ws === '' ? '-' : b.ws,
      Math.max(0, b.reqLeft),
      b.tokLeft,
      b.res,
      b.size,
      Math.min(b.inUse, b.size),
      rescore,
      this.leaseMs,
      MAX_BLOCK,
    ];
    b.ws = '';
    b.reqLeft = 0;
    b.tokLeft = 0;
    b.size = Math.min(b.inUse, b.size);
    if (b.size === 0 && b.inUse === 0) this.blocks.delete(scope);
    this.call('b', this.keys(scope), args).catch(() => {});
  }

  /** One timer while any scope has a block: idle blocks go back, reservations are renewed every third of a lease. */
  private tick(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const [scope, b] of this.blocks) {
        if (b.pending) continue;
        const renew = b.size > 0 && now - b.renewedAt > this.leaseMs / 3;
        if (renew) b.renewedAt = now;
        const idle = now - b.lastAdmit >= BLOCK_IDLE_MS;
        const unused = b.ws !== '' || b.size > b.inUse;
        if ((idle && unused) || renew || (b.ws === '' && b.size === 0 && b.inUse === 0)) {
          if (b.ws === '' && b.size === 0 && b.inUse === 0) this.blocks.delete(scope);
          else if (idle) this.giveBack(scope, b, renew ? 1 : 0);
          else this.renewReservation(scope, b);
        }
      }
      if (this.blocks.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    }, BLOCK_IDLE_MS);
    this.timer.unref();
  }

  /** Renews a busy scope's reservation (its block kept). */
  private renewReservation(scope: string, b: ScopeBlock): void {
    const [, rpm, tpm, conc, windowMs] = /^(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(b.caps)!.map(Number) as number[];
    const args = [windowMs!, rpm!, tpm!, conc!, 0, 0, '', '-', 0, 0, b.res, b.size, b.size, 1, this.leaseMs, MAX_BLOCK];
    this.call('b', this.keys(scope), args).catch(() => {});
  }

  async renew(lease: LimitLease, leaseMs: number): Promise<boolean> {
    if (lease.id.startsWith(BLOCK)) return true; // its slot is the reservation's, renewed by the block timer
    return (await this.r.sbRenew(this.keys(lease.scope)[1], lease.id, leaseMs)) === 1;
  }

  async settle(lease: LimitLease, actual: number | null): Promise<void> {
    if (lease.id.startsWith(BLOCK)) {
      const b = this.blocks.get(lease.scope);
      if (b) {
        b.inUse = Math.max(0, b.inUse - 1);
        // The actual tokens replace the estimate in the block while it is the window's, else in Redis.
        if (actual === null) return;
        if (b.ws === String(lease.windowStart)) {
          b.tokLeft += lease.estimatedTokens - actual;
          return;
        }
      }
      if (actual === null) return;
      const args = ['', String(lease.windowStart), lease.estimatedTokens, actual];
      await this.call('s', this.keys(lease.scope), args);
      return;
    }
    const keys = this.keys(lease.scope);
    const args = [lease.id, String(lease.windowStart), lease.estimatedTokens, actual ?? -1];
    await this.call('s', keys, args);
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
