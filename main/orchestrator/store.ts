// The orchestrator's state (agents, tasks, event history) and the WAL records that change it. Every change is
// appended to the WAL first and applied only once durable, so what a client was told is what a restart rebuilds.
import type { WalLog } from '../wal/index.ts';
import type { Agent, AgentEvent, Swarm, SwarmTask, Task, Workflow, WorkflowRun } from '../../shared/orchestrator.ts';

export type OrchestratorRecord =
  | { type: 'agent.put'; data: Agent }
  | { type: 'agent.deleted'; data: { id: string } }
  | { type: 'task.put'; data: Task }
  | { type: 'event'; data: AgentEvent }
  | { type: 'workflow.put'; data: Workflow }
  | { type: 'run.put'; data: WorkflowRun }
  | { type: 'swarm.put'; data: Swarm }
  | { type: 'swarm_task.put'; data: SwarmTask };

type SnapshotData = {
  agents: Agent[];
  tasks: Task[];
  events: AgentEvent[];
  nextEventId: number;
  // Absent in snapshots written before workflows and swarms existed.
  workflows?: Workflow[];
  runs?: WorkflowRun[];
  swarms?: Swarm[];
  swarmTasks?: SwarmTask[];
};

export class OrchestratorStore {
  readonly agents = new Map<string, Agent>();
  readonly tasks = new Map<string, Task>();
  /** Keyed by id (wf_…, run_…, swm_…, stk_…). */
  readonly workflows = new Map<string, Workflow>();
  readonly runs = new Map<string, WorkflowRun>();
  readonly swarms = new Map<string, Swarm>();
  readonly swarmTasks = new Map<string, SwarmTask>();
  /** The event history, oldest first, at most `retention` long. */
  events: AgentEvent[] = [];
  nextEventId = 1;
  private appliedSeq = 0;
  private readonly listeners = new Set<(e: AgentEvent) => void>();
  private readonly enders = new Map<(e: AgentEvent) => void, () => void>();

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
      for (const t of d.tasks) this.tasks.set(t.task_id, t);
      for (const w of d.workflows ?? []) this.workflows.set(w.id, w);
      for (const r of d.runs ?? []) this.runs.set(r.run_id, r);
      for (const w of d.swarms ?? []) this.swarms.set(w.id, w);
      for (const t of d.swarmTasks ?? []) this.swarmTasks.set(t.id, t);
      this.events = d.events;
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
  event(e: Omit<AgentEvent, 'id' | 'time'>): OrchestratorRecord {
    return { type: 'event', data: { id: this.nextEventId++, time: new Date().toISOString(), ...e } as AgentEvent };
  }

  /** `onEnd` is called when the service shuts down (the SSE response ends so the server can close at once). */
  subscribe(fn: (e: AgentEvent) => void, onEnd?: () => void): () => void {
    this.listeners.add(fn);
    if (onEnd) this.enders.set(fn, onEnd);
    return () => {
      this.listeners.delete(fn);
      this.enders.delete(fn);
    };
  }

  endSubscriptions(): void {
    for (const end of [...this.enders.values()]) end();
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
        this.tasks.set(r.data.task_id, r.data);
        break;
      case 'workflow.put':
        this.workflows.set(r.data.id, r.data);
        break;
      case 'run.put':
        this.runs.set(r.data.run_id, r.data);
        break;
      case 'swarm.put':
        this.swarms.set(r.data.id, r.data);
        break;
      case 'swarm_task.put':
        this.swarmTasks.set(r.data.id, r.data);
        break;
      case 'event': {
        this.events.push(r.data);
        this.nextEventId = Math.max(this.nextEventId, r.data.id + 1);
        const over = this.events.length - this.retention();
        if (over > 0) this.events.splice(0, over);
        if (live) for (const fn of this.listeners) fn(r.data);
        break;
      }
    }
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
    };
  }
}
