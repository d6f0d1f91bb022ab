// The orchestrator's state in memory, as both stores keep it: records by id, the indexes the services ask (active
// tasks by agent and thread, each tenant's tasks in order), the event history kept for Last-Event-ID, the callers
// waiting for a change, and the subscribers to events. Changes come in only as records, applied in the order the
// store made them durable (embedded: the WAL's order; Redis: the tenant's feed), so every replica of the same records
// holds the same state. An agent's status is derived here: `running` while it has a queued or running task, else
// the outcome of its last task (so no change needs to write the agent, and instances never overwrite each other's).
import type { Agent, StreamEvent, Swarm, SwarmTask, Task, Thread } from '../../../shared/orchestrator.ts';
import type { Workflow, WorkflowRun } from '../../../shared/orchestrator.ts';
import { Waits } from '../waits.ts';
import { approvalKey, type Control, type OrchestratorRecord, type StoredApproval } from './records.ts';
import type { RetentionRule } from './types.ts';

const NONE: ReadonlySet<string> = new Set();
const DAY_MS = 86_400_000;

export const isActiveStatus = (s: string): boolean => s === 'queued' || s === 'running';

/** The event history of one stream of ids: at most `retention` events, cut from the front in blocks. */
export class EventHistory {
  private list: StreamEvent[] = [];
  private head = 0;

  constructor(private readonly retention: () => number) {}

  /** The events kept, oldest first. */
  get all(): StreamEvent[] {
    if (this.head > 0) {
      this.list = this.list.slice(this.head);
      this.head = 0;
    }
    return this.list;
  }

  set(events: StreamEvent[]): void {
    this.list = events;
    this.head = 0;
  }

  get first(): StreamEvent | undefined {
    return this.list[this.head];
  }

  get last(): StreamEvent | undefined {
    return this.list[this.list.length - 1];
  }

  push(e: StreamEvent): void {
    this.list.push(e);
    // Past retention, the oldest events are cut off by moving `head` (O(1)); the array itself is cut once the part
    // before `head` is as long as what is kept (amortised O(1) per event rather than a splice of the whole history).
    const over = this.list.length - this.head - this.retention();
    if (over > 0) this.head += over;
    if (this.head > 0 && this.head >= this.list.length - this.head) {
      this.list = this.list.slice(this.head);
      this.head = 0;
    }
  }

  /** Events after `afterId` (ids grow along the list: a binary search finds the first). */
  after(afterId: number): StreamEvent[] {
    let lo = this.head;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.list[mid] as StreamEvent).id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return this.list.slice(lo);
  }
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

/** a before b in a tenant's task order: created_at, then id. */
const before = (a: Task, b: Task): boolean =>
  a.created_at < b.created_at || (a.created_at === b.created_at && a.task_id < b.task_id);

export abstract class OrchestratorState {
  protected readonly agentMap = new Map<string, Agent>();
  protected readonly taskMap = new Map<string, Task>();
  protected readonly workflowMap = new Map<string, Workflow>();
  protected readonly runMap = new Map<string, WorkflowRun>();
  protected readonly swarmMap = new Map<string, Swarm>();
  protected readonly swarmTaskMap = new Map<string, SwarmTask>();
  protected readonly threadMap = new Map<string, Thread>();
  protected readonly approvalMap = new Map<string, StoredApproval>();
  readonly waits = new Waits();
  /** Tasks not yet ended (queued or running), by agent and by thread: asked at every run and every task's end. */
  private readonly activeByAgent = new Map<string, Set<string>>();
  private readonly activeByThread = new Map<string, Set<string>>();
  /** Each tenant's tasks, oldest first (GET /tasks pages walk it without sorting). */
  private readonly order = new Map<string, Task[]>();
  /** Each tenant's finished tasks in the order they ended (the count cap drops from the front). */
  private readonly ended = new Map<string, { ids: string[]; head: number; live: number }>();
  private readonly listeners = new Set<(e: StreamEvent) => void>();
  private readonly enders = new Map<(e: StreamEvent) => void, () => void>();
  private readonly appliedHooks = new Set<(r: OrchestratorRecord) => void>();
  protected readonly controlHooks: ((c: Control) => void)[] = [];

  constructor(
    protected readonly eventRetention: () => number,
    protected readonly retentionRule: () => RetentionRule,
  ) {}

  get agents(): ReadonlyMap<string, Agent> {
    return this.agentMap;
  }
  get tasks(): ReadonlyMap<string, Task> {
    return this.taskMap;
  }
  get workflows(): ReadonlyMap<string, Workflow> {
    return this.workflowMap;
  }
  get runs(): ReadonlyMap<string, WorkflowRun> {
    return this.runMap;
  }
  get swarms(): ReadonlyMap<string, Swarm> {
    return this.swarmMap;
  }
  get swarmTasks(): ReadonlyMap<string, SwarmTask> {
    return this.swarmTaskMap;
  }
  get threads(): ReadonlyMap<string, Thread> {
    return this.threadMap;
  }
  get approvals(): ReadonlyMap<string, StoredApproval> {
    return this.approvalMap;
  }

  /** The history events of `tenant` go to (embedded: one history for all, its ids shared; Redis: one per tenant). */
  protected abstract historyOf(tenant: string): EventHistory;

  replay(tenant: string, afterId: number): { lost: [number, number] | null; events: StreamEvent[] } {
    const h = this.historyOf(tenant);
    const first = h.first;
    const lost: [number, number] | null = first && first.id > afterId + 1 ? [afterId + 1, first.id - 1] : null;
    return { lost, events: h.after(afterId) };
  }

  activeOfAgent(agentId: string): ReadonlySet<string> {
    return this.activeByAgent.get(agentId) ?? NONE;
  }

  activeOfThread(threadId: string): ReadonlySet<string> {
    return this.activeByThread.get(threadId) ?? NONE;
  }

  tasksOf(tenant: string): readonly Task[] {
    return this.order.get(tenant) ?? [];
  }

  onControl(fn: (c: Control) => void): void {
    this.controlHooks.push(fn);
  }

  onApplied(fn: (r: OrchestratorRecord) => void): () => void {
    this.appliedHooks.add(fn);
    return () => this.appliedHooks.delete(fn);
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

  /** Applies one durable record; `live`: it is new (not a replay at load), so waits, hooks and subscribers hear it. */
  protected apply(r: OrchestratorRecord, live: boolean): void {
    switch (r.type) {
      case 'agent.put':
        this.agentMap.set(r.data.id, r.data);
        this.refreshAgent(r.data.id, null);
        break;
      case 'agent.patch': {
        const a = this.agentMap.get(r.data.id);
        if (a) this.agentMap.set(a.id, { ...a, ...r.data.fields, id: a.id, tenant: a.tenant, status: a.status });
        break;
      }
      case 'agent.deleted':
        this.agentMap.delete(r.data.id);
        break;
      case 'task.put':
        this.putTask(r.data);
        if (live) this.waits.changed(r.data.task_id);
        break;
      case 'task.deleted':
        this.dropTask(r.data.id);
        if (live) this.waits.changed(r.data.id);
        break;
      case 'thread.put':
        this.threadMap.set(r.data.id, r.data);
        break;
      case 'thread.turn': {
        const t = this.threadMap.get(r.data.thread_id);
        // A turn is applied once (a replica that loaded the thread after it was written must not add it again).
        if (!t || t.last_task_id === r.data.task_id) break;
        const { task_id, messages, at } = r.data;
        this.threadMap.set(t.id, {
          ...t,
          messages: [...t.messages, ...messages],
          turns: t.turns + 1,
          last_task_id: task_id,
          updated_at: at,
        });
        break;
      }
      case 'thread.deleted':
        this.threadMap.delete(r.data.id);
        break;
      case 'workflow.deleted':
        this.workflowMap.delete(r.data.id);
        for (const [id, run] of this.runMap) if (run.workflow_id === r.data.id) this.runMap.delete(id);
        break;
      case 'swarm.deleted':
        this.swarmMap.delete(r.data.id);
        for (const [id, st] of this.swarmTaskMap) if (st.swarm_id === r.data.id) this.swarmTaskMap.delete(id);
        break;
      case 'workflow.put':
        this.workflowMap.set(r.data.id, r.data);
        break;
      case 'run.put':
        this.runMap.set(r.data.run_id, r.data);
        if (live) this.waits.changed(r.data.run_id);
        break;
      case 'swarm.put':
        this.swarmMap.set(r.data.id, r.data);
        break;
      case 'approval.put':
        this.approvalMap.set(approvalKey(r.data.task_id, r.data.call_id), r.data);
        break;
      case 'swarm_task.put':
        this.swarmTaskMap.set(r.data.id, r.data);
        if (live) this.waits.changed(r.data.id);
        break;
      case 'event':
        this.addEvent(r.data, live);
        break;
      case 'events':
        for (const e of r.data) this.addEvent(e, live);
        break;
      case 'control':
        if (live) for (const fn of this.controlHooks) fn(r.data);
        break;
    }
    if (live && this.appliedHooks.size) for (const fn of this.appliedHooks) fn(r);
  }

  /** After a load: an agent recorded `running` with no task left queued or running (the process died) is idle. */
  protected settleAgents(): void {
    for (const a of this.agentMap.values()) this.refreshAgent(a.id, null);
  }

  private putTask(t: Task): void {
    const prev = this.taskMap.get(t.task_id);
    if (prev) this.unindex(prev);
    this.taskMap.set(t.task_id, t);
    if (prev) this.replaceInOrder(prev, t);
    else this.insertInOrder(t);
    const active = isActiveStatus(t.status);
    if (active) {
      add(this.activeByAgent, t.agent_id, t.task_id);
      if (t.thread_id) add(this.activeByThread, t.thread_id, t.task_id);
    }
    this.refreshAgent(t.agent_id, prev && isActiveStatus(prev.status) && !active ? t : null);
    if (!active && (!prev || isActiveStatus(prev.status))) this.countEnded(t);
  }

  /**
   * A task ended: it joins its tenant's finished tasks, and past orchestrator.retention.max_finished_tasks the
   * oldest finished ones leave the state at once (the rule depends on the records' order only, so every replay and
   * every replica drops the same ones).
   */
  private countEnded(t: Task): void {
    let e = this.ended.get(t.tenant);
    if (!e) this.ended.set(t.tenant, (e = { ids: [], head: 0, live: 0 }));
    e.ids.push(t.task_id);
    e.live++;
    const cap = this.retentionRule().maxFinishedTasks;
    if (cap <= 0) return;
    while (e.live > cap && e.head < e.ids.length) {
      const id = e.ids[e.head++] as string;
      const old = this.taskMap.get(id);
      if (old && !isActiveStatus(old.status)) this.expireTask(id);
    }
    // Threads are capped in bulk, once there are a tenth more than the cap (a sort each time would be O(n) per task).
    if (this.threadMap.size > cap + Math.max(10, cap / 10)) this.capThreads(cap);
    if (e.head > 1024 && e.head * 2 > e.ids.length) {
      e.ids = e.ids.slice(e.head);
      e.head = 0;
    }
  }

  /**
   * The count cap holds for each tenant's idle threads too (every client run has its thread): past it, the threads
   * changed longest ago with nothing queued or running leave the state.
   */
  private capThreads(cap: number): number {
    if (cap <= 0 || this.threadMap.size <= cap) return 0;
    const byTenant = new Map<string, Thread[]>();
    for (const t of this.threadMap.values()) {
      if (this.activeOfThread(t.id).size > 0) continue;
      const list = byTenant.get(t.tenant);
      if (list) list.push(t);
      else byTenant.set(t.tenant, [t]);
    }
    let dropped = 0;
    for (const list of byTenant.values()) {
      if (list.length <= cap) continue;
      list.sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : 0));
      for (const t of list.slice(0, list.length - cap)) {
        this.threadMap.delete(t.id);
        dropped++;
      }
    }
    return dropped;
  }

  /** A finished task leaves the state by retention: with its approvals. */
  private expireTask(id: string): void {
    this.dropTask(id);
    for (const [key, a] of this.approvalMap) if (a.task_id === id) this.approvalMap.delete(key);
  }

  /** Removes a task (deleted, or past retention): its record, its indexes, its place in the order. */
  protected dropTask(id: string): void {
    const t = this.taskMap.get(id);
    if (!t) return;
    this.unindex(t);
    this.taskMap.delete(id);
    if (!isActiveStatus(t.status)) {
      const e = this.ended.get(t.tenant);
      if (e) e.live--;
    }
    const list = this.order.get(t.tenant);
    const i = list ? list.lastIndexOf(t) : -1;
    if (list && i >= 0) list.splice(i, 1);
    if (isActiveStatus(t.status)) this.refreshAgent(t.agent_id, null);
  }

  /**
   * An agent's status: running while one of its tasks is queued or running; when the last one ends, completed or idle
   * by how that one ended; an agent recorded running with nothing active (left by a crash) is idle.
   */
  private refreshAgent(agentId: string, ended: Task | null): void {
    const a = this.agentMap.get(agentId);
    if (!a) return;
    const busy = (this.activeByAgent.get(agentId)?.size ?? 0) > 0;
    const status = busy
      ? 'running'
      : ended
        ? ended.status === 'completed'
          ? 'completed'
          : 'idle'
        : a.status === 'running'
          ? 'idle'
          : a.status;
    if (status !== a.status) this.agentMap.set(agentId, { ...a, status });
  }

  private unindex(t: Task): void {
    remove(this.activeByAgent, t.agent_id, t.task_id);
    if (t.thread_id) remove(this.activeByThread, t.thread_id, t.task_id);
  }

  private insertInOrder(t: Task): void {
    let list = this.order.get(t.tenant);
    if (!list) this.order.set(t.tenant, (list = []));
    let i = list.length;
    while (i > 0 && before(t, list[i - 1] as Task)) i--; // almost always at the end already
    if (i === list.length) list.push(t);
    else list.splice(i, 0, t);
  }

  private replaceInOrder(prev: Task, t: Task): void {
    const list = this.order.get(prev.tenant);
    const i = list ? list.lastIndexOf(prev) : -1;
    if (list && i >= 0) list[i] = t;
    else this.insertInOrder(t);
  }

  private addEvent(e: StreamEvent, live: boolean): void {
    this.historyOf(e.tenant).push(e);
    this.eventAdded(e);
    if (live) for (const fn of this.listeners) fn(e);
  }

  /** An event entered the history (embedded: the next id moves past it). */
  protected eventAdded(_e: StreamEvent): void {}

  /**
   * Retention (orchestrator.retention): finished tasks, workflow runs and swarm tasks older than the period, idle
   * threads unchanged for as long, and the oldest finished tasks past the count cap are dropped from the state, with
   * the approvals of the tasks dropped. Not a record: the rule depends only on the records and the clock, so a
   * replay (or another replica) applying it again drops the same. Returns how many records went.
   */
  sweep(now = Date.now()): number {
    const { finishedDays, maxFinishedTasks } = this.retentionRule();
    const cutoff = finishedDays > 0 ? new Date(now - finishedDays * DAY_MS).toISOString() : null;
    let dropped = 0;
    if (cutoff !== null) {
      for (const t of [...this.taskMap.values()]) {
        if (isActiveStatus(t.status) || (t.finished_at ?? t.created_at) >= cutoff) continue;
        this.expireTask(t.task_id);
        dropped++;
      }
    }
    // A cap lowered since the tasks ended (a config change) applies here.
    if (maxFinishedTasks > 0) {
      for (const [tenant, e] of this.ended) {
        while (e.live > maxFinishedTasks && e.head < e.ids.length) {
          const id = e.ids[e.head++] as string;
          const t = this.taskMap.get(id);
          if (t && t.tenant === tenant && !isActiveStatus(t.status)) {
            this.expireTask(id);
            dropped++;
          }
        }
      }
    }
    dropped += this.capThreads(maxFinishedTasks);
    if (cutoff === null) return dropped;
    for (const [id, t] of this.threadMap) {
      if (t.updated_at < cutoff && this.activeOfThread(id).size === 0) {
        this.threadMap.delete(id);
        dropped++;
      }
    }
    for (const [id, r] of this.runMap) {
      if (r.status !== 'running' && (r.finished_at ?? r.created_at) < cutoff) {
        this.runMap.delete(id);
        dropped++;
      }
    }
    for (const [id, st] of this.swarmTaskMap) {
      if (st.status !== 'running' && (st.finished_at ?? st.created_at) < cutoff) {
        this.swarmTaskMap.delete(id);
        dropped++;
      }
    }
    return dropped;
  }
}
