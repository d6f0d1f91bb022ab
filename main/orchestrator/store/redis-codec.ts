// How the Redis store lays a tenant's state out in Redis (every key in the tenant's hash slot: `<prefix>o:{<tenant>}:…`)
// and turns a change (records, claims, work) into one call of the COMMIT script (redis-scripts.ts). Records are hashes
// whose fields are the record's top-level properties, each as JSON text: a patch sets only its fields, a status is
// compared as text, a thread's messages are appended without decoding them.
import type { Task } from '../../../shared/orchestrator.ts';
import type { OrchestratorRecord } from './records.ts';
import { approvalKey } from './records.ts';
import type { OrchestratorState } from './state.ts';
import { isActiveStatus } from './state.ts';
import type { Claim, CommitOptions, WorkItem } from './types.ts';

export type TenantKeys = ReturnType<typeof tenantKeys>;

/** The tenant's keys. The fixed ten come first in every COMMIT call (their order is the script's). */
export function tenantKeys(prefix: string, tenant: string) {
  const base = `${prefix}o:{${tenant}}:`;
  return {
    base,
    seq: `${base}seq`,
    log: `${base}log`,
    ev: `${base}ev`,
    idx: `${base}idx`,
    leases: `${base}leases`,
    owners: `${base}owners`,
    fence: `${base}fence`,
    queue: `${base}q`,
    drivers: `${base}dq`,
    done: `${base}done`,
    recPrefix: `${base}r:`,
    rec: (id: string) => `${base}r:${id}`,
    name: (name: string) => `${base}name:${name}`,
    window: (agentId: string) => `${base}win:${agentId}`,
    thread: (threadId: string) => `${base}thr:${threadId}`,
    idem: (agentId: string, key: string) => `${base}idem:${agentId}:${key}`,
  };
}

/** The first ten KEYS of COMMIT, in the script's order. */
export const fixedKeys = (k: TenantKeys): string[] => [
  k.seq,
  k.log,
  k.ev,
  k.idx,
  k.leases,
  k.owners,
  k.fence,
  k.queue,
  k.drivers,
  k.done,
];
const QUEUE_KEY = 8;
const DRIVERS_KEY = 9;

/** A work item as the lease table names it. */
export const itemName = (item: Pick<WorkItem, 'kind' | 'id'>): string => `${item.kind}:${item.id}`;
export const queueOf = (kind: WorkItem['kind']): 8 | 9 => (kind === 'task' ? QUEUE_KEY : DRIVERS_KEY);

/** A record's fields as stored: each top-level property's JSON. */
export function fieldsOf(obj: object): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out.push([k, JSON.stringify(v)]);
  return out;
}

/** A stored hash back as its record: the whole record in `j`, or (agents, threads) one field per property. */
export function recordOfHash(hash: Record<string, string>): Record<string, unknown> {
  if (hash.j !== undefined) return JSON.parse(hash.j) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(hash)) out[k] = JSON.parse(v);
  return out;
}

type Op = Record<string, unknown>;

/** The settings a commit needs besides the change. */
export type CommitContext = {
  instance: string;
  keys: TenantKeys;
  state: OrchestratorState;
  /** ms a finished record is kept (0: no TTL), and the finished-task cap (0: none). */
  finishedTtlMs: number;
  cap: number;
  leaseMs: number;
  logMaxLen: number;
  /** The fence this instance holds the item with, if it holds it. */
  fenceOf: (item: WorkItem) => number | undefined;
  /** The queue entry the item was delivered in, not yet taken or let go. */
  deliveredOf: (item: WorkItem) => { stream: 8 | 9; entry: string } | undefined;
};

/** One COMMIT call being built: its KEYS (deduplicated), its ARGV texts, its op list. */
export class CommitCall {
  readonly keys: string[];
  readonly argv: string[] = [''];
  private readonly keyIndex = new Map<string, number>();
  readonly ops: {
    inst: string;
    rp: string;
    ml: number;
    cap: number;
    c: Op[];
    w: Op[];
    f: Op[];
    q: Op[];
    ack: Op[];
    ne: number;
    as?: { i: string; f?: number; t?: 1; d?: { s: 8 | 9; id: string }; l: number };
    done?: string;
    df?: number;
  };
  /** The records as this instance applies them (events numbered once the script says from where). */
  readonly local: OrchestratorRecord[] = [];

  constructor(private readonly ctx: CommitContext) {
    this.keys = fixedKeys(ctx.keys);
    this.keys.forEach((k, i) => this.keyIndex.set(k, i + 1));
    this.ops = {
      inst: ctx.instance,
      rp: ctx.keys.recPrefix,
      ml: ctx.logMaxLen,
      cap: ctx.cap,
      c: [],
      w: [],
      f: [],
      q: [],
      ack: [],
      ne: 0,
    };
  }

  key(k: string): number {
    let i = this.keyIndex.get(k);
    if (i === undefined) {
      this.keys.push(k);
      i = this.keys.length;
      this.keyIndex.set(k, i);
    }
    return i;
  }

  text(t: string): number {
    this.argv.push(t);
    return this.argv.length;
  }

  /** ARGV as sent: the op list first. */
  args(): string[] {
    this.argv[0] = JSON.stringify(this.ops);
    return this.argv;
  }

  claim(c: Claim): void {
    const k = this.ctx.keys;
    switch (c.kind) {
      case 'agent_name':
        this.ops.c.push({ t: 'name', k: this.key(k.name(c.name)), v: c.agent_id });
        break;
      case 'run_window':
        this.ops.c.push({ t: 'window', k: this.key(k.window(c.agent_id)), ms: c.ms });
        break;
      case 'thread_idle':
        this.ops.c.push({ t: 'thread', k: this.key(k.thread(c.thread_id)), v: c.task_id });
        break;
      case 'status': {
        const id = c.record === 'approval' ? `apr:${c.id}` : c.id;
        this.ops.c.push({ t: 'status', k: this.key(k.rec(id)), in: c.in.map((s) => JSON.stringify(s)) });
        break;
      }
      case 'idempotency':
        this.ops.c.push({ t: 'idem', k: this.key(k.idem(c.agent_id, c.key)), v: c.task_id, ms: c.ttl_ms });
        break;
      case 'queue_room':
        this.ops.c.push({ t: 'room', k: QUEUE_KEY, n: Math.max(1, Math.floor(0.8 * c.capacity)) });
        break;
    }
  }

  work(opts: CommitOptions): void {
    for (const item of opts.enqueue ?? []) this.ops.q.push({ s: queueOf(item.kind), i: itemName(item) });
    const acked = new Set<string>();
    const ack = (item: WorkItem) => {
      const d = this.ctx.deliveredOf(item);
      if (!d || acked.has(d.entry)) return;
      acked.add(d.entry);
      this.ops.ack.push({ s: d.stream, id: d.entry });
    };
    const as = opts.as ?? opts.take;
    if (as) {
      // Held: its fence. Not held: taken by a start (`take`) or through its delivery here, or the script refuses.
      const fence = this.ctx.fenceOf(as);
      const delivered = this.ctx.deliveredOf(as);
      const how =
        fence !== undefined
          ? { f: fence }
          : opts.take && itemName(opts.take) === itemName(as)
            ? { t: 1 as const }
            : delivered
              ? { d: { s: delivered.stream, id: delivered.entry } }
              : {};
      this.ops.as = { i: itemName(as), l: this.ctx.leaseMs, ...how };
      ack(as);
    }
    if (opts.letGo) ack(opts.letGo);
    if (opts.done) {
      this.ops.done = itemName(opts.done);
      const fence = this.ctx.fenceOf(opts.done);
      if (fence !== undefined) this.ops.df = fence;
      ack(opts.done);
    }
  }

  /** An agent or a thread: one field per property (a patch sets some, a turn appends to `messages`). */
  private put(id: string, obj: object, extra: Op = {}): void {
    const f: (string | number)[] = [];
    for (const [name, json] of fieldsOf(obj)) f.push(name, this.text(json));
    this.ops.w.push({ op: 'put', k: this.key(this.ctx.keys.rec(id)), id, f, ...extra });
  }

  /**
   * Any other record: stored whole (`j`, and `status` beside it for status claims), its one text also the record's
   * part of the feed entry (the script wraps it: one serialisation, sent once).
   */
  private putWhole(r: OrchestratorRecord, data: object & { status?: string }, id: string, extra: Op = {}): void {
    const j = this.text(JSON.stringify(data));
    const f: (string | number)[] = ['j', j];
    if (data.status !== undefined) f.push('status', this.text(JSON.stringify(data.status)));
    this.ops.w.push({ op: 'put', k: this.key(this.ctx.keys.rec(id)), id, f, ...extra });
    this.ops.f.push({ d: j, ty: r.type });
    this.local.push(r);
    this.fed = true;
  }
  private fed = false;

  private del(id: string): void {
    this.ops.w.push({ op: 'del', k: this.key(this.ctx.keys.rec(id)), id });
  }

  private delIf(key: string, value: string): void {
    this.ops.w.push({ op: 'delif', k: this.key(key), v: value });
  }

  /** A record: its writes, and its place in the feed entry. */
  record(r: OrchestratorRecord): void {
    const s = this.ctx.state;
    const k = this.ctx.keys;
    const ttl = this.ctx.finishedTtlMs;
    switch (r.type) {
      case 'agent.put':
        this.put(r.data.id, r.data);
        break;
      case 'agent.patch': {
        const f: (string | number)[] = [];
        for (const [name, json] of fieldsOf(r.data.fields)) f.push(name, this.text(json));
        this.ops.w.push({ op: 'patch', k: this.key(k.rec(r.data.id)), id: r.data.id, f });
        const was = s.agents.get(r.data.id);
        if (was && r.data.fields.name !== undefined && r.data.fields.name !== was.name)
          this.delIf(k.name(was.name), was.id);
        break;
      }
      case 'agent.deleted': {
        const was = s.agents.get(r.data.id);
        this.del(r.data.id);
        if (was) this.delIf(k.name(was.name), was.id);
        break;
      }
      case 'task.put': {
        const t: Task = r.data;
        const ended = !isActiveStatus(t.status);
        const prev = s.tasks.get(t.task_id);
        const newlyEnded = ended && (!prev || isActiveStatus(prev.status));
        this.putWhole(r, t, t.task_id, ended ? { ttl, ...(newlyEnded ? { ended: true } : {}) } : {});
        if (ended && t.thread_id) this.delIf(k.thread(t.thread_id), t.task_id);
        break;
      }
      case 'task.deleted': {
        const was = s.tasks.get(r.data.id);
        this.del(r.data.id);
        if (was?.idempotency_key) this.delIf(k.idem(was.agent_id, was.idempotency_key), was.task_id);
        break;
      }
      case 'thread.put':
        this.put(r.data.id, r.data, { ttl });
        break;
      case 'thread.turn': {
        const { thread_id, task_id, messages, at } = r.data;
        this.ops.w.push({
          op: 'turn',
          k: this.key(k.rec(thread_id)),
          m: this.text(messages.length ? JSON.stringify(messages).slice(1, -1) : ''),
          tid: this.text(JSON.stringify(task_id)),
          at: this.text(JSON.stringify(at)),
          ttl,
        });
        break;
      }
      case 'thread.deleted':
        this.del(r.data.id);
        break;
      case 'workflow.put':
        this.putWhole(r, r.data, r.data.id);
        break;
      case 'workflow.deleted':
        this.del(r.data.id);
        for (const run of s.runs.values()) if (run.workflow_id === r.data.id) this.del(run.run_id);
        break;
      case 'run.put':
        this.putWhole(r, r.data, r.data.run_id, r.data.status === 'running' ? {} : { ttl });
        break;
      case 'swarm.put':
        this.putWhole(r, r.data, r.data.id);
        break;
      case 'swarm.deleted':
        this.del(r.data.id);
        for (const st of s.swarmTasks.values()) if (st.swarm_id === r.data.id) this.del(st.id);
        break;
      case 'swarm_task.put':
        this.putWhole(r, r.data, r.data.id, r.data.status === 'running' ? {} : { ttl });
        break;
      case 'approval.put':
        this.putWhole(
          r,
          r.data,
          `apr:${approvalKey(r.data.task_id, r.data.call_id)}`,
          r.data.status === 'pending' ? {} : { ttl },
        );
        break;
      case 'event':
      case 'events':
      case 'control':
        break;
    }
    if (this.fed) this.fed = false;
    else this.feed(r);
  }

  /** The record in the feed entry: events without their ids (the script numbers them), the rest as it is. */
  private feed(r: OrchestratorRecord): void {
    if (r.type === 'event') {
      const { id: _id, ...rest } = r.data;
      this.ops.f.push({ e: this.text(JSON.stringify(rest).slice(1)) });
      this.ops.ne++;
    } else if (r.type === 'events') {
      const b = r.data.map(({ id: _id, ...rest }) => this.text(JSON.stringify(rest).slice(1)));
      this.ops.f.push({ b });
      this.ops.ne += r.data.length;
    } else {
      this.ops.f.push({ t: this.text(JSON.stringify(r)) });
    }
    this.local.push(r);
  }

  /** The records as applied here, their events numbered from `first` in feed order (as the script did). */
  numbered(first: number): OrchestratorRecord[] {
    let id = first;
    return this.local.map((r) => {
      if (r.type === 'event') return { type: 'event', data: { ...r.data, id: id++ } } as OrchestratorRecord;
      if (r.type === 'events') return { type: 'events', data: r.data.map((e) => ({ ...e, id: id++ })) };
      return r;
    });
  }
}
