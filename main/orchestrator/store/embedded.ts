// The embedded store (the default: nothing to install): the state in this process's memory, every change appended to
// the write-ahead log and applied only once durable, rebuilt at start from the last snapshot plus the log after it.
// One process holds the log's folder (its lock), so claims are checked here, between the services' checks and the
// append, against the state and the changes still on their way to disk; work is handed out in this process.
import type { StreamEvent } from '../../../shared/orchestrator.ts';
import type { Agent, Swarm, SwarmTask, Task, Thread, Workflow, WorkflowRun } from '../../../shared/orchestrator.ts';
import { IDEMPOTENCY_TTL_MS } from '../../../shared/orchestrator.ts';
import type { WalLog } from '../../wal/index.ts';
import { approvalKey, isoNow, type Control, type NewEvent, type OrchestratorRecord } from './records.ts';
import type { StoredApproval } from './records.ts';
import { EventHistory, isActiveStatus, OrchestratorState } from './state.ts';
import { sweepEveryMs } from './retention.ts';
import type {
  Claim,
  CommitOptions,
  Delivery,
  OrchestratorStore,
  OrchestratorStoreStatus,
  RetentionRule,
  WorkItem,
} from './types.ts';
import { ClaimRefused } from './types.ts';

type SnapshotData = {
  agents: Agent[];
  tasks: Task[];
  events: StreamEvent[];
  nextEventId: number;
  // Absent in snapshots written before workflows and swarms existed.
  workflows?: Workflow[];
  runs?: WorkflowRun[];
  swarms?: Swarm[];
  swarmTasks?: SwarmTask[];
  // Absent in snapshots written before threads existed.
  threads?: Thread[];
  // Absent in snapshots written before approvals existed.
  approvals?: StoredApproval[];
};

const RESOLVED = Promise.resolve();

type Handler = (d: Delivery) => void | Promise<void>;

export class EmbeddedStore extends OrchestratorState implements OrchestratorStore {
  readonly kind = 'embedded' as const;
  private readonly history: EventHistory;
  nextEventId = 1;
  private appliedSeq = 0;
  /** Claims of changes on their way to disk (claim key → the id holding it). */
  private readonly reserved = new Map<string, string>();
  /** Idempotency-Key → the task made under it and when the key may be used again (rebuilt from tasks at load). */
  private readonly idempotent = new Map<string, { task_id: string; until: number }>();
  private readonly handlers = new Map<WorkItem['kind'], Handler>();
  private sweeper: NodeJS.Timeout | null = null;
  private readonly since = new Date().toISOString();

  constructor(
    readonly wal: WalLog,
    eventRetention: () => number,
    retention: () => RetentionRule = () => ({ finishedDays: 0, maxFinishedTasks: 0 }),
  ) {
    super(eventRetention, retention);
    this.history = new EventHistory(eventRetention);
    wal.setSnapshotProvider(() => ({ seq: this.appliedSeq, data: this.snapshot() }));
  }

  /** Every tenant's events share one history and one sequence of ids. */
  protected historyOf(_tenant: string): EventHistory {
    return this.history;
  }

  /** The event history, oldest first, at most `event_retention` long. */
  get events(): StreamEvent[] {
    return this.history.all;
  }

  protected override eventAdded(e: StreamEvent): void {
    if (e.id >= this.nextEventId) this.nextEventId = e.id + 1;
  }

  /** Rebuilds the state from the last snapshot plus the WAL after it, then applies retention. */
  async load(): Promise<void> {
    const snap = await this.wal.loadSnapshot();
    if (snap) {
      const d = snap.data as SnapshotData;
      for (const a of d.agents) this.apply({ type: 'agent.put', data: a }, false);
      for (const t of d.tasks) this.apply({ type: 'task.put', data: t }, false);
      for (const w of d.workflows ?? []) this.workflowMap.set(w.id, w);
      for (const r of d.runs ?? []) this.runMap.set(r.run_id, r);
      for (const w of d.swarms ?? []) this.swarmMap.set(w.id, w);
      for (const t of d.swarmTasks ?? []) this.swarmTaskMap.set(t.id, t);
      for (const t of d.threads ?? []) this.threadMap.set(t.id, t);
      for (const a of d.approvals ?? []) this.approvalMap.set(approvalKey(a.task_id, a.call_id), a);
      this.history.set(d.events);
      this.nextEventId = d.nextEventId;
      this.appliedSeq = snap.seq;
    }
    for await (const r of this.wal.replay()) {
      this.apply({ type: r.type, data: r.data } as OrchestratorRecord, false);
      this.appliedSeq = r.seq;
    }
    this.settleAgents();
    this.sweep();
    for (const t of this.taskMap.values()) this.rememberKey(t);
    this.scheduleSweep();
  }

  private scheduleSweep(): void {
    this.sweeper = setTimeout(() => {
      this.sweep();
      this.scheduleSweep();
    }, sweepEveryMs(this.retentionRule()));
    this.sweeper.unref();
  }

  sync(_tenant: string): Promise<void> {
    return RESOLVED;
  }

  /** A new event with the next id (the id is taken now, so ids follow call order). */
  event(e: NewEvent): OrchestratorRecord {
    return { type: 'event', data: this.withId(e) };
  }

  /** Several new events in one record, with consecutive ids (taken now). */
  eventBatch(list: NewEvent[]): OrchestratorRecord {
    return { type: 'events', data: list.map((e) => this.withId(e)) };
  }

  private withId(e: NewEvent): StreamEvent {
    return { id: this.nextEventId++, time: e.time ?? isoNow(), ...e } as StreamEvent;
  }

  /** Appends the records (resolves once durable, rejects with WalError), then applies them and publishes events. */
  commit(...records: OrchestratorRecord[]): Promise<void> {
    return this.commitWith({}, ...records);
  }

  async commitWith(opts: CommitOptions, ...records: OrchestratorRecord[]): Promise<void> {
    if (records.length === 0 && !opts.claims?.length) return; // work released: nothing to write in one process
    const held = opts.claims?.length ? this.reserve(opts.claims) : null;
    try {
      const { lastSeq } = await this.wal.append(records);
      for (const r of records) this.apply(r, true);
      this.appliedSeq = Math.max(this.appliedSeq, lastSeq);
    } finally {
      if (held) for (const k of held) this.reserved.delete(k);
    }
    for (const r of records) if (r.type === 'task.put') this.rememberKey(r.data);
    for (const item of opts.enqueue ?? []) void this.handlers.get(item.kind)?.(item);
  }

  /** One process: the one holding the work is this one. */
  signal(control: Control): Promise<void> {
    for (const fn of this.controlHooks) fn(control);
    return RESOLVED;
  }

  onWork(kind: WorkItem['kind'], handler: Handler): void {
    this.handlers.set(kind, handler);
  }

  workFreed(): void {}

  /** One process: what it left unfinished is handed out at the next start. */
  forget(_item: WorkItem): void {}

  /**
   * After a start, what the previous process left unfinished is handed out as reclaimed (the spec's rule: tasks.ts,
   * workflows.ts, swarms.ts): its tasks in the order they were made, then its workflow runs, then its swarm tasks.
   */
  async startWork(): Promise<void> {
    const tasks = [...this.taskMap.values()]
      .filter((t) => isActiveStatus(t.status))
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
    const reclaimed = { from: null };
    const handOut = async (kind: WorkItem['kind'], tenant: string, id: string) =>
      this.handlers.get(kind)?.({ kind, tenant, id, reclaimed });
    for (const t of tasks) await handOut('task', t.tenant, t.task_id);
    for (const r of [...this.runMap.values()]) if (r.status === 'running') await handOut('run', r.tenant, r.run_id);
    for (const s of [...this.swarmTaskMap.values()])
      if (s.status === 'running') await handOut('swarm_task', s.tenant, s.id);
  }

  status(): OrchestratorStoreStatus {
    const fault = this.wal.info().fault;
    return {
      kind: 'embedded',
      up: fault === null,
      since: this.since,
      durability: {
        level: 'fsync',
        text: 'every acknowledged change is written and fsynced to the data folder before the answer',
      },
    };
  }

  async close(): Promise<void> {
    if (this.sweeper) clearTimeout(this.sweeper);
    this.sweeper = null;
  }

  /** Checks the claims against the state and the changes on their way to disk; holds them until this one lands. */
  private reserve(claims: readonly Claim[]): string[] {
    const keys: [string, string][] = [];
    const now = Date.now();
    for (const c of claims) {
      switch (c.kind) {
        case 'agent_name': {
          const key = `name:${c.tenant}:${c.name}`;
          for (const a of this.agentMap.values())
            if (a.tenant === c.tenant && a.name === c.name && a.id !== c.agent_id) throw new ClaimRefused(c, a.id);
          const r = this.reserved.get(key);
          if (r !== undefined && r !== c.agent_id) throw new ClaimRefused(c, r);
          keys.push([key, c.agent_id]);
          break;
        }
        case 'run_window': {
          const key = `win:${c.agent_id}`;
          if (this.reserved.has(key)) throw new ClaimRefused(c, null, c.ms);
          const last = this.agentMap.get(c.agent_id)?.last_run_at;
          const since = last ? now - Date.parse(last) : Infinity;
          if (since < c.ms) throw new ClaimRefused(c, null, c.ms - since);
          keys.push([key, c.agent_id]);
          break;
        }
        case 'thread_idle': {
          const key = `thr:${c.thread_id}`;
          for (const id of this.activeOfThread(c.thread_id)) if (id !== c.task_id) throw new ClaimRefused(c, id);
          const r = this.reserved.get(key);
          if (r !== undefined && r !== c.task_id) throw new ClaimRefused(c, r);
          keys.push([key, c.task_id]);
          break;
        }
        case 'status': {
          // A change of the same record on its way to disk decides first: this one is refused (the record moves on).
          const key = `st:${c.record}:${c.id}`;
          const current = this.statusOf(c.record, c.id);
          if (this.reserved.has(key) || current === null || !c.in.includes(current)) throw new ClaimRefused(c, current);
          keys.push([key, c.id]);
          break;
        }
        case 'queue_room':
          break; // the dispatch queue is this process's: the task service counts it (tasks.ts)
        case 'idempotency': {
          const key = `idem:${c.tenant}:${c.agent_id}:${c.key}`;
          const known = this.idempotent.get(key);
          if (known && known.until > now) throw new ClaimRefused(c, known.task_id);
          const r = this.reserved.get(key);
          if (r !== undefined) throw new ClaimRefused(c, r);
          keys.push([key, c.task_id]);
          break;
        }
      }
    }
    for (const [k, v] of keys) this.reserved.set(k, v);
    return keys.map(([k]) => k);
  }

  private statusOf(record: Extract<Claim, { kind: 'status' }>['record'], id: string): string | null {
    if (record === 'task') return this.taskMap.get(id)?.status ?? null;
    if (record === 'run') return this.runMap.get(id)?.status ?? null;
    if (record === 'swarm_task') return this.swarmTaskMap.get(id)?.status ?? null;
    return this.approvalMap.get(id)?.status ?? null;
  }

  /** A task that leaves (deleted, or by retention) frees its Idempotency-Key: a retry then makes a new task. */
  protected override dropTask(id: string): void {
    const t = this.taskMap.get(id);
    if (t?.idempotency_key) this.idempotent.delete(`idem:${t.tenant}:${t.agent_id}:${t.idempotency_key}`);
    super.dropTask(id);
  }

  override sweep(now = Date.now()): number {
    for (const [k, v] of this.idempotent) if (v.until <= now) this.idempotent.delete(k);
    return super.sweep(now);
  }

  /** A task made under an Idempotency-Key keeps the key taken until its time is up. */
  private rememberKey(t: Task): void {
    if (!t.idempotency_key) return;
    const key = `idem:${t.tenant}:${t.agent_id}:${t.idempotency_key}`;
    const until = Date.parse(t.created_at) + IDEMPOTENCY_TTL_MS;
    if (until > Date.now()) this.idempotent.set(key, { task_id: t.task_id, until });
  }

  private snapshot(): SnapshotData {
    return {
      agents: [...this.agentMap.values()],
      tasks: [...this.taskMap.values()],
      events: this.events,
      nextEventId: this.nextEventId,
      workflows: [...this.workflowMap.values()],
      runs: [...this.runMap.values()],
      swarms: [...this.swarmMap.values()],
      swarmTasks: [...this.swarmTaskMap.values()],
      threads: [...this.threadMap.values()],
      approvals: [...this.approvalMap.values()],
    };
  }
}
