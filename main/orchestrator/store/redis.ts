// The Redis store (store.kind "redis"): several Switchboard instances, one orchestrator state. Each tenant's records
// live in Redis as hashes; every change is one COMMIT script (conditions, records, queue entries, the lease of the
// work it is about, and one entry of the tenant's feed: a stream carrying the change's records, its events numbered
// there) so the write, its queue entry and its events are one atomic step. Every instance keeps the state in memory
// as a replica fed by the feeds (one blocking reader per instance) and answers reads from it after a read barrier
// (sync: one XRANGE from where it is), so a read on any instance sees every change acknowledged before it began;
// SSE subscribers and waiters hear every change through the same feed. Work: tasks in a stream with a consumer
// group (as many read as an instance has free workers), workflow runs and swarm tasks in another; taken work is
// leased (renewed every third of orchestrator.lease_ms), every write about it is fenced, and a reaper on every
// instance takes over work whose lease ran out (the spec's rule applies: tasks.ts, workflows.ts, swarms.ts). Loaded
// only when store.kind is "redis" (a dynamic import: the desktop user never loads ioredis). DECISIONS.md says why.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { OrchestratorConfig } from '../../../shared/config.ts';
import type { StreamEvent } from '../../../shared/orchestrator.ts';
import { ApiError } from '../../errors.ts';
import { logger } from '../../observability/logger.ts';
import type { RedisConnection } from '../../store/redis-connection.ts';
import { checkDurability, type Durability } from './durability.ts';
import { CommitCall, itemName, recordOfHash, tenantKeys, type TenantKeys } from './redis-codec.ts';
import { COMMIT, HEAD, REAP, RENEW } from './redis-scripts.ts';
import { isoNow, type Control, type NewEvent, type OrchestratorRecord } from './records.ts';
import { retentionRuleOf, sweepEveryMs } from './retention.ts';
import { EventHistory, OrchestratorState } from './state.ts';
import { ClaimRefused, LeaseLost } from './types.ts';
import type { CommitOptions, Delivery, OrchestratorStore, OrchestratorStoreStatus, WorkItem } from './types.ts';

const GROUP = 'w';
/** Feed entries kept at least (the feed is also where a new instance finds the event history). */
const MIN_LOG_LEN = 20_000;
/** How long a blocking read waits before it looks again at which tenants to read. */
const BLOCK_MS = 250;
const TENANTS_EVERY_MS = 2_000;
const RESOLVED = Promise.resolve();

type Handler = (d: Delivery) => void | Promise<void>;
type Scripts = {
  sbOrchCommit(numKeys: number, ...args: string[]): Promise<(string | number)[]>;
  sbOrchReap(...args: (string | number)[]): Promise<(string | number)[]>;
  sbOrchRenew(...args: (string | number)[]): Promise<string[]>;
  sbOrchHead(...args: string[]): Promise<[number, string]>;
};

/** One tenant this instance follows: its keys, where its replica stands in the feed, its event history. */
type Feed = {
  tenant: string;
  keys: TenantKeys;
  /** The last feed entry applied: its seq and its stream id. */
  seq: number;
  cursor: string;
  history: EventHistory;
  /** Resolves once the tenant's state is loaded (again, after a gap in the feed). */
  ready: Promise<void>;
  loading: boolean;
  groups: boolean;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
const itemOf = (tenant: string, name: string): WorkItem | null => {
  const i = name.indexOf(':');
  const kind = name.slice(0, i);
  if (kind !== 'task' && kind !== 'run' && kind !== 'swarm_task') return null;
  return { kind, tenant, id: name.slice(i + 1) };
};

/** An error of the connection (Redis down or too slow) as the API says it: 503 store_unavailable. */
export function unavailable(conn: RedisConnection, err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const why = (err as Error)?.message ?? String(err);
  return new ApiError(
    'store_unavailable',
    `The agent API keeps its state in Redis (${conn.safeUrl}), which is not reachable (${why}): nothing was read or changed on this instance.`,
    'Retry when Redis is back; GET /api/v1/health shows the store as up again.',
  );
}

export type RedisStoreOptions = {
  config: () => OrchestratorConfig;
  /** This instance's name in leases and events (default: host-pid-random). */
  instance?: string;
};

export class RedisOrchestratorStore extends OrchestratorState implements OrchestratorStore {
  readonly kind = 'redis' as const;
  readonly instance: string;
  private readonly r: Redis & Scripts;
  private readonly feeds = new Map<string, Feed>();
  private readonly byLog = new Map<string, Feed>();
  private registered = new Set<string>();
  private readonly handlers = new Map<WorkItem['kind'], Handler>();
  private capacity: () => number = () => 64;
  /** Work this instance holds: its fence. */
  private readonly holding = new Map<string, { item: WorkItem; fence: number }>();
  /** Work delivered to this instance from a queue, not yet taken or let go. */
  private readonly delivered = new Map<string, { stream: 8 | 9; entry: string }>();
  private readonly blocking: Redis[] = [];
  private closed = false;
  private working = false;
  private readonly wakers = new Set<() => void>();
  private sweeper: NodeJS.Timeout | null = null;
  private timers: NodeJS.Timeout[] = [];
  private durability: Durability = { level: 'unknown', text: 'not checked yet' };
  private unconfirmed = 0;
  private paused = false;

  constructor(
    readonly conn: RedisConnection,
    private readonly opts: RedisStoreOptions,
  ) {
    const cfg = () => opts.config();
    super(
      () => cfg().event_retention,
      () => retentionRuleOf(cfg()),
    );
    this.instance = opts.instance ?? `${hostname()}-${process.pid}-${randomBytes(2).toString('hex')}`;
    const r = conn.client as Redis & Partial<Scripts>;
    if (!r.sbOrchCommit) {
      r.defineCommand('sbOrchCommit', { lua: COMMIT });
      r.defineCommand('sbOrchReap', { numberOfKeys: 3, lua: REAP });
      r.defineCommand('sbOrchRenew', { numberOfKeys: 2, lua: RENEW });
      r.defineCommand('sbOrchHead', { numberOfKeys: 2, lua: HEAD });
    }
    this.r = r as Redis & Scripts;
  }

  private get tenantsKey(): string {
    return `${this.conn.prefix}o:tenants`;
  }

  protected historyOf(tenant: string): EventHistory {
    return this.feeds.get(tenant)?.history ?? new EventHistory(this.eventRetention);
  }

  // ---- loading and following tenants

  /**
   * Loads every tenant the team has and checks what an acknowledged change survives; starts the feed reader. Redis
   * down at start does not hold the start up: the agent API answers 503 until it is back, and the load is retried.
   */
  async load(): Promise<void> {
    for (let i = 0; i < 100 && !this.conn.isUp(); i++) await sleep(20); // the connection is made in the background
    try {
      await this.loadAll();
    } catch (err) {
      logger.warn(
        `agent state: Redis (${this.conn.safeUrl}) is not reachable at start (${(err as Error).message}); the agent API answers 503 store_unavailable until it is`,
      );
      void this.until(() => this.loadAll());
    }
    void this.readFeeds();
    this.sweep();
    this.scheduleSweep();
  }

  private async loadAll(): Promise<void> {
    const tenants = await this.r.smembers(this.tenantsKey);
    await Promise.all(tenants.map((t) => this.follow(t)));
    this.durability = await checkDurability(this.r, this.opts.config().wait_replicas);
    const said = `agent state in Redis (${this.conn.safeUrl}): ${this.durability.text}`;
    if (this.durability.level === 'fsync' || this.durability.level === 'replica') logger.info(said);
    else
      logger.warn(
        `${said} To keep "durable before the answer": appendonly yes and appendfsync always (deploy/docker-compose.yml), or orchestrator.wait_replicas with a replica.`,
      );
  }

  /** Retries `fn` until Redis answers, or the store closes. */
  private async until(fn: () => Promise<void>): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        return await fn();
      } catch {
        await sleep(Math.min(2000, 100 * (attempt + 1)));
      }
    }
  }

  /** Follows a tenant: loads its state once (the records, then the feed from where the load stood). */
  private follow(tenant: string): Promise<void> {
    let f = this.feeds.get(tenant);
    if (f) return f.ready;
    const keys = tenantKeys(this.conn.prefix, tenant);
    f = {
      tenant,
      keys,
      seq: 0,
      cursor: '0-0',
      history: new EventHistory(this.eventRetention),
      ready: RESOLVED,
      loading: true,
      groups: false,
    };
    this.feeds.set(tenant, f);
    this.byLog.set(keys.log, f);
    const feed = f;
    f.ready = this.loadTenant(feed).catch((err: unknown) => {
      this.feeds.delete(tenant);
      this.byLog.delete(keys.log);
      throw err;
    });
    return f.ready;
  }

  /**
   * Loads a tenant: where the feed stands (seq and last entry), every record (the index's ids, each hash), the events
   * of the feed up to there; then the feed after it (a change made while loading is applied again, in order: every
   * record is a put, patch or delete, so the state converges to the feed's).
   */
  private async loadTenant(f: Feed): Promise<void> {
    f.loading = true;
    const [seq, last] = await this.r.sbOrchHead(f.keys.seq, f.keys.log);
    const ids = await this.r.smembers(f.keys.idx);
    const gone: string[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const p = this.r.pipeline();
      for (const id of chunk) p.hgetall(f.keys.rec(id));
      const got = (await p.exec()) ?? [];
      chunk.forEach((id, j) => {
        const hash = got[j]?.[1] as Record<string, string> | undefined;
        if (!hash || Object.keys(hash).length === 0) gone.push(id);
        else this.applyLoaded(id, recordOfHash(hash));
      });
    }
    if (gone.length) await this.r.srem(f.keys.idx, ...gone).catch(() => 0); // expired by their TTL
    f.history.set(await this.historyUpTo(f, Number(seq), last));
    f.seq = Number(seq);
    f.cursor = last || '0-0';
    f.loading = false;
    this.settleAgents();
    await this.catchUp(f);
    if (!f.groups) {
      for (const q of [f.keys.queue, f.keys.drivers]) {
        await this.r.xgroup('CREATE', q, GROUP, '0', 'MKSTREAM').catch((err: Error) => {
          if (!err.message.includes('BUSYGROUP')) throw err;
        });
      }
      f.groups = true;
    }
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const w of [...this.wakers]) w();
  }

  private applyLoaded(id: string, rec: Record<string, unknown>): void {
    const data = rec as never;
    if (id.startsWith('agt_')) this.apply({ type: 'agent.put', data }, false);
    else if (id.startsWith('tsk_')) this.apply({ type: 'task.put', data }, false);
    else if (id.startsWith('thr_')) this.apply({ type: 'thread.put', data }, false);
    else if (id.startsWith('wf_')) this.apply({ type: 'workflow.put', data }, false);
    else if (id.startsWith('run_')) this.apply({ type: 'run.put', data }, false);
    else if (id.startsWith('swm_')) this.apply({ type: 'swarm.put', data }, false);
    else if (id.startsWith('stk_')) this.apply({ type: 'swarm_task.put', data }, false);
    else if (id.startsWith('apr:')) this.apply({ type: 'approval.put', data }, false);
  }

  /** The retained events of the feed's entries up to `seq` (newest entries first, until the retention is full). */
  private async historyUpTo(f: Feed, seq: number, last: string): Promise<StreamEvent[]> {
    if (!last) return [];
    const want = this.eventRetention();
    const out: StreamEvent[][] = [];
    let count = 0;
    let end = last;
    while (count < want) {
      const entries = (await this.r.xrevrange(f.keys.log, end, '-', 'COUNT', 500)) as [string, string[]][];
      for (const [, fields] of entries) {
        if (Number(fields[1]) > seq) continue;
        const events: StreamEvent[] = [];
        for (const r of JSON.parse(fields[3] as string) as OrchestratorRecord[]) {
          if (r.type === 'event') events.push(r.data);
          else if (r.type === 'events') events.push(...r.data);
        }
        out.push(events);
        count += events.length;
      }
      if (entries.length < 500) break;
      end = `(${entries[entries.length - 1]![0]}`;
    }
    return out.reverse().flat().slice(-want);
  }

  /** Applies feed entries in order; a gap (the feed was trimmed past where this replica stood) reloads the tenant. */
  private applyEntries(f: Feed, entries: [string, string[]][]): void {
    if (f.loading) return; // the load applies them after it
    for (const [id, fields] of entries) {
      const seq = Number(fields[1]);
      if (seq <= f.seq) continue;
      if (seq > f.seq + 1) {
        logger.warn(
          `agent state: the feed of tenant "${f.tenant}" moved past this instance (at ${f.seq}, next ${seq}); reloading it`,
        );
        f.ready = this.loadTenant(f).catch((err: unknown) => logger.error({ err }, 'agent state: reload failed'));
        return;
      }
      for (const r of JSON.parse(fields[3] as string) as OrchestratorRecord[]) this.apply(r, true);
      f.seq = seq;
      f.cursor = id;
    }
  }

  /** catchUp, saying whether it read the feed to its end (false: Redis did not answer). */
  private caughtUp(f: Feed): Promise<boolean> {
    return this.catchUp(f).then(
      () => true,
      () => false,
    );
  }

  /** Reads the feed from where the replica stands to its end now (one round trip, more if far behind). */
  private async catchUp(f: Feed): Promise<void> {
    for (;;) {
      const entries = (await this.r.xrange(f.keys.log, `(${f.cursor}`, '+', 'COUNT', 1000)) as [string, string[]][];
      this.applyEntries(f, entries);
      if (entries.length < 1000 || f.loading) break;
    }
    if (f.loading) await f.ready;
  }

  async sync(tenant: string): Promise<void> {
    try {
      await this.follow(tenant);
      const f = this.feeds.get(tenant) as Feed;
      await f.ready;
      await this.catchUp(f);
    } catch (err) {
      throw unavailable(this.conn, err);
    }
  }

  /** One blocking reader for every tenant's feed: what other instances change reaches subscribers and waiters here. */
  private async readFeeds(): Promise<void> {
    const reader = this.blockingClient();
    let failures = 0;
    let lastTenants = Date.now();
    while (!this.closed) {
      if (Date.now() - lastTenants > TENANTS_EVERY_MS) {
        lastTenants = Date.now();
        await this.discoverTenants();
      }
      const feeds = [...this.feeds.values()].filter((f) => !f.loading);
      if (feeds.length === 0) {
        await sleep(BLOCK_MS);
        continue;
      }
      try {
        const keys = feeds.map((f) => f.keys.log);
        const res = (await reader.xread(
          'COUNT',
          1000,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...keys,
          ...feeds.map((f) => f.cursor),
        )) as [string, [string, string[]][]][] | null;
        failures = 0;
        for (const [key, entries] of res ?? []) {
          const f = this.byLog.get(key);
          if (f) this.applyEntries(f, entries);
        }
      } catch {
        if (this.closed) break;
        await sleep(Math.min(2000, 100 * ++failures));
      }
    }
  }

  private async discoverTenants(): Promise<void> {
    try {
      const tenants = await this.r.smembers(this.tenantsKey);
      for (const t of tenants) if (!this.feeds.has(t)) void this.follow(t).catch(() => undefined);
    } catch {
      // Redis down: the reader retries
    }
  }

  /** A connection of its own for blocking reads (its command timeout past the block time). */
  private blockingClient(): Redis {
    const c = this.conn.client.duplicate({ commandTimeout: BLOCK_MS + 5_000 });
    c.on('error', () => {});
    this.blocking.push(c);
    return c;
  }

  // ---- changes

  event(e: NewEvent): OrchestratorRecord {
    return { type: 'event', data: { id: 0, time: e.time ?? isoNow(), ...e } as StreamEvent };
  }

  eventBatch(list: NewEvent[]): OrchestratorRecord {
    return { type: 'events', data: list.map((e) => ({ id: 0, time: e.time ?? isoNow(), ...e }) as StreamEvent) };
  }

  commit(...records: OrchestratorRecord[]): Promise<void> {
    return this.commitWith({}, ...records);
  }

  async commitWith(opts: CommitOptions, ...records: OrchestratorRecord[]): Promise<void> {
    const tenant = this.tenantOf(opts, records);
    if (tenant === null) {
      if (records.length)
        throw new Error(`agent state: no tenant for records ${records.map((r) => r.type).join(', ')}`);
      return;
    }
    let f: Feed;
    try {
      await this.register(tenant);
      await this.follow(tenant);
      f = this.feeds.get(tenant) as Feed;
      await f.ready;
    } catch (err) {
      throw unavailable(this.conn, err);
    }
    const cfg = this.opts.config();
    const rule = retentionRuleOf(cfg);
    const call = new CommitCall({
      instance: this.instance,
      keys: f.keys,
      state: this,
      finishedTtlMs: rule.finishedDays > 0 ? Math.round(rule.finishedDays * 86_400_000) : 0,
      cap: rule.maxFinishedTasks,
      leaseMs: cfg.lease_ms,
      logMaxLen: Math.max(MIN_LOG_LEN, cfg.event_retention),
      fenceOf: (item) => this.holding.get(itemName(item))?.fence,
      deliveredOf: (item) => this.delivered.get(itemName(item)),
    });
    for (const c of opts.claims ?? []) call.claim(c);
    call.work(opts);
    for (const r of records) call.record(r);
    const held = opts.as ?? opts.take;
    let res: (string | number)[];
    try {
      const args = call.args();
      res = await this.r.sbOrchCommit(call.keys.length, ...call.keys, ...args);
    } catch (err) {
      // Not known whether the script ran. A delivery it named is no longer kept for this instance: if the script did
      // not run, its queue entry is still pending and is handed out again once idle (XAUTOCLAIM, here or elsewhere);
      // if it ran, the entry is gone, and work it took here without knowing runs out of lease (the reaper's rule).
      for (const it of [held, opts.done, opts.letGo]) if (it) this.delivered.delete(itemName(it));
      throw unavailable(this.conn, err);
    }
    if (Number(res[0]) === 0) {
      const [, what, index, holder, retry] = res;
      if (what === 'lease') {
        const item = held as WorkItem;
        this.holding.delete(itemName(item));
        this.delivered.delete(itemName(item));
        throw new LeaseLost(item);
      }
      const claim = (opts.claims ?? [])[Number(index) - 1];
      const h = String(holder ?? '');
      // A status is stored as JSON text ("\"queued\""): said as the plain status.
      const shown = claim?.kind === 'status' && h.startsWith('"') ? (JSON.parse(h) as string) : h;
      throw new ClaimRefused(claim!, shown === '' ? null : shown, Number(retry) > 0 ? Number(retry) : null);
    }
    const [, seq, entry, firstEvent, fence] = res;
    if (held) {
      const name = itemName(held);
      this.holding.set(name, { item: held, fence: Number(fence) });
      this.delivered.delete(name);
    }
    if (opts.done) {
      this.holding.delete(itemName(opts.done));
      this.delivered.delete(itemName(opts.done));
    }
    if (opts.letGo) this.delivered.delete(itemName(opts.letGo));
    if (Number(seq) > 0 && f.seq < Number(seq)) {
      // (Already applied: the feed reader brought the entry back before the script's answer came.)
      if (!f.loading && f.seq === Number(seq) - 1) {
        // Nothing between: applied here at once (the feed brings it back to this instance too; skipped then).
        for (const r of call.numbered(Number(firstEvent))) this.apply(r, true);
        f.seq = Number(seq);
        f.cursor = String(entry);
      } else {
        await this.catchUp(f).catch((err: unknown) => {
          throw unavailable(this.conn, err);
        });
      }
    }
    if (cfg.wait_replicas > 0) await this.waitReplicas(cfg.wait_replicas);
  }

  /** orchestrator.wait_replicas: the change is on that many replicas before it is acknowledged (WAIT, 1 s). */
  private async waitReplicas(n: number): Promise<void> {
    const got = Number(await this.r.wait(n, 1000).catch(() => 0));
    if (got >= n) return;
    this.unconfirmed++;
    if (this.unconfirmed === 1 || this.unconfirmed % 1000 === 0)
      logger.warn(
        `agent state: ${this.unconfirmed} change(s) reached ${got} of ${n} replicas within 1 s (orchestrator.wait_replicas)`,
      );
  }

  /** A tenant this instance writes for is in the team's list, so every instance follows it (queue, reaper, feed). */
  private async register(tenant: string): Promise<void> {
    if (this.registered.has(tenant)) return;
    await this.r.sadd(this.tenantsKey, tenant);
    this.registered.add(tenant);
  }

  private tenantOf(opts: CommitOptions, records: OrchestratorRecord[]): string | null {
    const fromOpts =
      opts.as?.tenant ??
      opts.take?.tenant ??
      opts.done?.tenant ??
      opts.letGo?.tenant ??
      opts.enqueue?.[0]?.tenant ??
      opts.claims?.[0]?.tenant;
    if (fromOpts) return fromOpts;
    for (const r of records) {
      if (r.type === 'events') {
        if (r.data[0]) return r.data[0].tenant;
        continue;
      }
      const d = r.data as { tenant?: string; id?: string; thread_id?: string };
      if (typeof d.tenant === 'string') return d.tenant;
      const id = d.id ?? d.thread_id ?? '';
      const found =
        this.agents.get(id) ??
        this.tasks.get(id) ??
        this.threads.get(id) ??
        this.workflows.get(id) ??
        this.swarms.get(id);
      if (found) return found.tenant;
    }
    return null;
  }

  /** A control reaches every instance through the tenant's feed; the one holding the item acts on it. */
  async signal(control: Control): Promise<void> {
    await this.commit({ type: 'control', data: control });
  }

  // ---- work

  onWork(kind: WorkItem['kind'], handler: Handler, capacity?: () => number): void {
    this.handlers.set(kind, handler);
    if (capacity) this.capacity = capacity;
  }

  workFreed(): void {
    this.wakeAll();
  }

  forget(item: WorkItem): void {
    this.holding.delete(itemName(item));
  }

  /** Starts the queue readers, the lease renewals and the reaper. */
  async startWork(): Promise<void> {
    if (this.working) return;
    this.working = true;
    void this.consume('task');
    void this.consume('drivers');
    const every = Math.max(100, Math.floor(this.opts.config().lease_ms / 3));
    const tick = () => {
      if (this.closed) return;
      void this.renewAndReap().finally(() => {
        const t = setTimeout(tick, every);
        t.unref();
        this.timers = [t];
      });
    };
    tick();
  }

  /** Reads work from the tenants' queues: tasks as many as this instance has free workers, runs and swarm tasks all. */
  private async consume(which: 'task' | 'drivers'): Promise<void> {
    const client = this.blockingClient();
    let failures = 0;
    while (!this.closed) {
      const feeds = [...this.feeds.values()].filter((f) => f.groups && !f.loading);
      const free = which === 'task' ? this.capacity() : 64;
      if (feeds.length === 0 || free <= 0) {
        await new Promise<void>((r) => {
          const waker = () => {
            clearTimeout(t);
            this.wakers.delete(waker);
            r();
          };
          const t = setTimeout(waker, BLOCK_MS);
          t.unref();
          this.wakers.add(waker);
        });
        continue;
      }
      const keys = feeds.map((f) => (which === 'task' ? f.keys.queue : f.keys.drivers));
      try {
        const res = (await client.xreadgroup(
          'GROUP',
          GROUP,
          this.instance,
          'COUNT',
          free,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...keys,
          ...keys.map(() => '>'),
        )) as [string, [string, string[]][]][] | null;
        failures = 0;
        for (const [key, entries] of res ?? []) {
          const f = feeds[keys.indexOf(key)] as Feed;
          // Once for the batch: the entries' records are here then. Not read: the entries stay pending, and are
          // handed out again once idle (a handler must never judge work on a replica that lacks its records).
          if (!(await this.caughtUp(f))) continue;
          for (const [entry, fields] of entries) await this.deliver(f, entry, fields[1] as string, which, true);
        }
      } catch {
        if (this.closed) break;
        await sleep(Math.min(2000, 100 * ++failures));
      }
    }
  }

  /** A queue entry handed to this instance: the replica catches up (the entry's records), then its handler runs. */
  private async deliver(
    f: Feed,
    entry: string,
    name: string,
    which: 'task' | 'drivers',
    caughtUp = false,
  ): Promise<void> {
    const item = itemOf(f.tenant, name);
    if (!item) return;
    if (!caughtUp && !(await this.caughtUp(f))) return; // pending still: handed out again later
    this.delivered.set(name, { stream: which === 'task' ? 8 : 9, entry });
    await this.handlers.get(item.kind)?.(item);
  }

  /**
   * Every third of the lease: this instance's leases renewed (one lost means another instance took the work over:
   * it stops here, writing nothing more), expired leases of any instance taken over (their holder is gone: the
   * work is handed out here as reclaimed), and queue entries delivered to an instance that died before taking them
   * handed out again.
   */
  private async renewAndReap(): Promise<void> {
    if (this.paused) return;
    const leaseMs = this.opts.config().lease_ms;
    for (const f of this.feeds.values()) {
      if (f.loading || !f.groups) continue;
      try {
        const mine = [...this.holding.values()].filter((h) => h.item.tenant === f.tenant);
        if (mine.length) {
          const pairs = mine.flatMap((h) => [itemName(h.item), String(h.fence)]);
          const lost = await this.r.sbOrchRenew(f.keys.leases, f.keys.owners, this.instance, leaseMs, ...pairs);
          for (const name of lost) this.lose(f.tenant, name);
        }
        const taken = await this.r.sbOrchReap(f.keys.leases, f.keys.owners, f.keys.fence, this.instance, leaseMs, 50);
        for (let i = 0; i < taken.length; i += 3) {
          const name = String(taken[i]);
          const prev = String(taken[i + 1] ?? '');
          const item = itemOf(f.tenant, name);
          if (!item) continue;
          const fence = Number(taken[i + 2]);
          this.holding.set(name, { item, fence });
          const from = prev.slice(prev.indexOf('|') + 1) || 'an instance that is gone';
          // The rule is applied on the record as the feed has it now (the takeover comes after every write of the old
          // holder in the feed); when the feed cannot be read, or the rule's write fails, the work is given up again,
          // for the next tick (not held, and renewed, by an instance that did nothing with it).
          const giveUp = async () => {
            this.holding.delete(name);
            await this.r
              .sbOrchRenew(f.keys.leases, f.keys.owners, this.instance, 0, name, String(fence))
              .catch(() => []);
          };
          if (!(await this.caughtUp(f))) {
            await giveUp();
            continue;
          }
          logger.warn(
            `agent state: took over ${item.kind} ${item.id} of tenant "${f.tenant}" from ${from} (its lease ran out)`,
          );
          try {
            await this.handlers.get(item.kind)?.({ ...item, reclaimed: { from } });
          } catch {
            if (this.holding.get(name)?.fence === fence) await giveUp();
          }
        }
        for (const [q, which] of [
          [f.keys.queue, 'task'],
          [f.keys.drivers, 'drivers'],
        ] as const) {
          const res = (await this.r.xautoclaim(q, GROUP, this.instance, leaseMs, '0-0', 'COUNT', 50)) as [
            string,
            [string, string[]][],
          ];
          for (const [entry, fields] of res[1] ?? []) {
            if (!fields) continue; // deleted meanwhile
            const name = fields[1] as string;
            if (this.delivered.has(name) || this.holding.has(name)) continue; // ours, waiting for a worker
            await this.deliver(f, entry, name, which);
          }
        }
      } catch {
        // Redis down: the next tick tries again; leases that ran out meanwhile are taken over then.
      }
    }
  }

  private lose(tenant: string, name: string): void {
    const h = this.holding.get(name);
    this.holding.delete(name);
    const item = h?.item ?? itemOf(tenant, name);
    if (!item) return;
    logger.warn(`agent state: ${item.kind} ${item.id} was taken over by another instance; it stops here`);
    for (const fn of this.controlHooks) fn({ kind: 'lease_lost', tenant, id: item.id, item: item.kind });
  }

  // ---- status and closing

  status(): OrchestratorStoreStatus {
    const s = this.conn.status();
    return {
      kind: 'redis',
      up: s.up,
      since: s.since,
      ...(s.state ? { state: s.state } : {}),
      ...(s.reached !== undefined ? { reached: s.reached } : {}),
      durability: this.durability,
      instance: this.instance,
      url: this.conn.safeUrl,
    };
  }

  /** Stops reading; the work held here is given up at once (another instance takes it over without waiting). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    if (this.sweeper) clearTimeout(this.sweeper);
    this.wakeAll();
    const byTenant = new Map<string, string[]>();
    for (const h of this.holding.values())
      byTenant.set(h.item.tenant, [...(byTenant.get(h.item.tenant) ?? []), itemName(h.item), String(h.fence)]);
    await Promise.all(
      [...byTenant].map(([tenant, pairs]) => {
        const k = tenantKeys(this.conn.prefix, tenant);
        return this.r.sbOrchRenew(k.leases, k.owners, this.instance, 0, ...pairs).catch(() => []);
      }),
    );
    for (const c of this.blocking) c.disconnect();
    await this.conn.close();
  }

  /** A process paused (SIGSTOP, a long GC) as the tests need it: its leases are not renewed until resumed. */
  pauseForTest(paused: boolean): void {
    this.paused = paused;
  }

  /** A kill -9 as the tests need it: every connection dropped, nothing given up, nothing renewed. */
  crashForTest(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    if (this.sweeper) clearTimeout(this.sweeper);
    this.wakeAll();
    for (const c of this.blocking) c.disconnect();
    this.conn.client.disconnect();
  }

  /** The retention period applied to the replica (Redis drops the same records by their TTLs). */
  private scheduleSweep(): void {
    this.sweeper = setTimeout(
      () => {
        this.sweep();
        this.scheduleSweep();
      },
      sweepEveryMs(retentionRuleOf(this.opts.config())),
    );
    this.sweeper.unref();
  }
}
