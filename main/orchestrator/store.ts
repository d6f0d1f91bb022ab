// The orchestrator's state (agents, tasks, event history) and the WAL records that change it. Every change is
// appended to the WAL first and applied only once durable, so what a client was told is what a restart rebuilds.
import { isoTime } from '../observability/iso-time.ts';
import type { WalLog } from '../wal/index.ts';
import type { Agent, Swarm, SwarmTask, Task, Workflow, WorkflowRun } from '../../shared/orchestrator.ts';
import type { StreamEvent, Thread, ThreadMessage } from '../../shared/orchestrator.ts';
import { Waits } from './waits.ts';
import { approvalKey, type StoredApproval } from './approvals.ts';

/** A new event as its maker gives it: the store adds the id (and the time, unless given). */
export type NewEvent = StreamEvent extends infer E
  ? E extends StreamEvent
    ? Omit<E, 'id' | 'time'> & { time?: string }
    : never
  : never;

export type OrchestratorRecord =
  | { type: 'agent.put'; data: Agent }
  | { type: 'agent.deleted'; data: { id: string } }
  | { type: 'task.put'; data: Task }
  | { type: 'event'; data: StreamEvent }
  // Several events in one record: a task's output and thinking deltas, coalesced (orchestrator.event_flush_ms).
  | { type: 'events'; data: StreamEvent[] }
  | { type: 'task.deleted'; data: { id: string } }
  | { type: 'thread.put'; data: Thread }
  // A completed run's messages, appended to its thread.
  | { type: 'thread.turn'; data: { thread_id: string; task_id: string; messages: ThreadMessage[]; at: string } }
  | { type: 'thread.deleted'; data: { id: string } }
  | { type: 'workflow.deleted'; data: { id: string } }
  | { type: 'swarm.deleted'; data: { id: string } }
  | { type: 'workflow.put'; data: Workflow }
  | { type: 'run.put'; data: WorkflowRun }
  | { type: 'swarm.put'; data: Swarm }
  | { type: 'swarm_task.put'; data: SwarmTask }
  // A tool call waiting for a person's decision, or decided (approvals.ts).
  | { type: 'approval.put'; data: StoredApproval };

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

export class OrchestratorStore {
  readonly agents = new Map<string, Agent>();
  readonly tasks = new Map<string, Task>();
  /** Keyed by id (wf_…, run_…, swm_…, stk_…). */
  readonly workflows = new Map<string, Workflow>();
  readonly runs = new Map<string, WorkflowRun>();
  readonly swarms = new Map<string, Swarm>();
  readonly swarmTasks = new Map<string, SwarmTask>();
  /** Keyed by id (thr_…). */
  readonly threads = new Map<string, Thread>();
  /** Keyed by `<task_id>/<call_id>`. */
  readonly approvals = new Map<string, StoredApproval>();
  /** Callers waiting for a task, run or swarm task to end: told of every record applied (by its id). */
  readonly waits = new Waits();
  /** The event history from `head` on (what lies before it is past retention, cut off in blocks: see addEvent). */
  private history: StreamEvent[] = [];
  private head = 0;
  nextEventId = 1;
  /** Tasks not yet ended (queued or running), by agent and by thread: asked at every run and every task's end. */
  private readonly activeByAgent = new Map<string, Set<string>>();
  private readonly activeByThread = new Map<string, Set<string>>();
  private appliedSeq = 0;
  private readonly listeners = new Set<(e: StreamEvent) => void>();
  private readonly enders = new Map<(e: StreamEvent) => void, () => void>();

  constructor(
    readonly wal: WalLog,
    private readonly retention: () => number,
  ) {
    wal.setSnapshotProvider(() => ({ seq: this.appliedSeq, data: this.snapshot() }));
  }

  /** Rebuilds the state from the last snapshot plus the WAL after it. */
  async load(): Promise<void> {
    const snap = await this.wal.loadSnapshot();
    if (snap) {
      const d = snap.data as SnapshotData;
      for (const a of d.agents) this.agents.set(a.id, a);
      for (const t of d.tasks) this.putTask(t);
      for (const w of d.workflows ?? []) this.workflows.set(w.id, w);
      for (const r of d.runs ?? []) this.runs.set(r.run_id, r);
      for (const w of d.swarms ?? []) this.swarms.set(w.id, w);
      for (const t of d.swarmTasks ?? []) this.swarmTasks.set(t.id, t);
      for (const t of d.threads ?? []) this.threads.set(t.id, t);
      for (const a of d.approvals ?? []) this.approvals.set(approvalKey(a.task_id, a.call_id), a);
      this.history = d.events;
      this.head = 0;
      this.nextEventId = d.nextEventId;
      this.appliedSeq = snap.seq;
    }
    for await (const r of this.wal.replay()) {
      this.apply({ type: r.type, data: r.data } as OrchestratorRecord, false);
      this.appliedSeq = r.seq;
    }
  }

  /** Appends the records (resolves once durable, rejects with WalError), then applies them and publishes events. */
  async commit(...records: OrchestratorRecord[]): Promise<void> {
    const { lastSeq } = await this.wal.append(records);
    for (const r of records) this.apply(r, true);
    this.appliedSeq = Math.max(this.appliedSeq, lastSeq);
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

  /** `onEnd` is called when the service shuts down (the SSE response ends so the server can close at once). */
  subscribe(fn: (e: StreamEvent) => void, onEnd?: () => void): () => void {
    this.listeners.add(fn);
    if (onEnd) this.enders.set(fn, onEnd);
    return () => {
      this.listeners.delete(fn);
      this.enders.delete(fn);
    };
  }

  endSubscriptions(): void {
    for (const end of [...this.enders.values()]) end();
    this.waits.close();
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  private apply(r: OrchestratorRecord, live: boolean): void {
    switch (r.type) {
      case 'agent.put':
        this.agents.set(r.data.id, r.data);
        break;
      case 'agent.deleted':
        this.agents.delete(r.data.id);
        break;
      case 'task.put':
        this.putTask(r.data);
        if (live) this.waits.changed(r.data.task_id);
        break;
      case 'task.deleted': {
        const t = this.tasks.get(r.data.id);
        if (t) this.unindex(t);
        this.tasks.delete(r.data.id);
        break;
      }
      case 'thread.put':
        this.threads.set(r.data.id, r.data);
        break;
      case 'thread.turn': {
        const t = this.threads.get(r.data.thread_id);
        if (!t) break;
        const { task_id, messages, at } = r.data;
        this.threads.set(t.id, {
          ...t,
          messages: [...t.messages, ...messages],
          turns: t.turns + 1,
          last_task_id: task_id,
          updated_at: at,
        });
        break;
      }
      case 'thread.deleted':
        this.threads.delete(r.data.id);
        break;
      case 'workflow.deleted':
        this.workflows.delete(r.data.id);
        for (const [id, run] of this.runs) if (run.workflow_id === r.data.id) this.runs.delete(id);
        break;
      case 'swarm.deleted':
        this.swarms.delete(r.data.id);
        for (const [id, st] of this.swarmTasks) if (st.swarm_id === r.data.id) this.swarmTasks.delete(id);
        break;
      case 'workflow.put':
        this.workflows.set(r.data.id, r.data);
        break;
      case 'run.put':
        this.runs.set(r.data.run_id, r.data);
        if (live) this.waits.changed(r.data.run_id);
        break;
      case 'swarm.put':
        this.swarms.set(r.data.id, r.data);
        break;
      case 'approval.put':
        this.approvals.set(approvalKey(r.data.task_id, r.data.call_id), r.data);
        break;
      case 'swarm_task.put':
        this.swarmTasks.set(r.data.id, r.data);
        if (live) this.waits.changed(r.data.id);
        break;
      case 'event':
        this.addEvent(r.data, live);
        break;
      case 'events':
        for (const e of r.data) this.addEvent(e, live);
        break;
    }
  }

  /** The event history, oldest first, at most `retention` long. */
  get events(): StreamEvent[] {
    if (this.head > 0) {
      this.history = this.history.slice(this.head);
      this.head = 0;
    }
    return this.history;
  }

  /** The task's ids of the tasks of an agent (or thread) that have not ended; empty when none. */
  activeOfAgent(agentId: string): ReadonlySet<string> {
    return this.activeByAgent.get(agentId) ?? NONE;
  }

  activeOfThread(threadId: string): ReadonlySet<string> {
    return this.activeByThread.get(threadId) ?? NONE;
  }

  private putTask(t: Task): void {
    const before = this.tasks.get(t.task_id);
    if (before) this.unindex(before);
    this.tasks.set(t.task_id, t);
    if (t.status !== 'queued' && t.status !== 'running') return;
    add(this.activeByAgent, t.agent_id, t.task_id);
    if (t.thread_id) add(this.activeByThread, t.thread_id, t.task_id);
  }

  private unindex(t: Task): void {
    remove(this.activeByAgent, t.agent_id, t.task_id);
    if (t.thread_id) remove(this.activeByThread, t.thread_id, t.task_id);
  }

  private addEvent(e: StreamEvent, live: boolean): void {
    this.history.push(e);
    this.nextEventId = Math.max(this.nextEventId, e.id + 1);
    // Past retention, the oldest events are cut off by moving `head` (O(1)); the array itself is cut once the part
    // before `head` is as long as what is kept (amortised O(1) per event rather than a splice of the whole history).
    const over = this.history.length - this.head - this.retention();
    if (over > 0) this.head += over;
    if (this.head > 0 && this.head >= this.history.length - this.head) {
      this.history = this.history.slice(this.head);
      this.head = 0;
    }
    if (live) for (const fn of this.listeners) fn(e);
  }

  private snapshot(): SnapshotData {
    return {
      agents: [...this.agents.values()],
      tasks: [...this.tasks.values()],
      events: this.events,
      nextEventId: this.nextEventId,
      workflows: [...this.workflows.values()],
      runs: [...this.runs.values()],
      swarms: [...this.swarms.values()],
      swarmTasks: [...this.swarmTasks.values()],
      threads: [...this.threads.values()],
      approvals: [...this.approvals.values()],
    };
  }
}

const NONE: ReadonlySet<string> = new Set();

let isoMs = -1;
let isoText = '';
/** new Date().toISOString(), made once per millisecond (isoTime): a task's events and records ask for it several times. */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = isoTime(ms);
  }
  return isoText;
}

function add(index: Map<string, Set<string>>, key: string, id: string): void {
  const set = index.get(key);
  if (set) set.add(id);
  else index.set(key, new Set([id]));
}

function remove(index: Map<string, Set<string>>, key: string, id: string): void {
  const set = index.get(key);
  if (!set?.delete(id)) return;
  if (set.size === 0) index.delete(key);
}
