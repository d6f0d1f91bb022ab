// The orchestrator's state behind one interface (issue 35): agents, tasks, threads, approvals, workflows, runs,
// swarms, swarm tasks and the event history, the conditions a change needs (claims), the work queue and who holds
// each piece of work (leases). Two implementations: embedded (./embedded.ts: memory + the WAL, one process) and
// Redis (./redis.ts, loaded only when store.kind is "redis": several instances, one state). One contract suite
// (./contract.case.ts) runs against both. DECISIONS.md says why each choice was made.
import type { Agent, StreamEvent, Swarm, SwarmTask, Task, Thread } from '../../../shared/orchestrator.ts';
import type { Workflow, WorkflowRun } from '../../../shared/orchestrator.ts';
import type { Waits } from '../waits.ts';
import type { Control, NewEvent, OrchestratorRecord, StoredApproval } from './records.ts';

/**
 * A condition a change holds to, checked atomically with the change's write (across instances in Redis mode): the
 * change is refused (ClaimRefused) when it does not hold. Services check the same conditions first for a precise
 * error; the claim is what makes the check and the write one step.
 */
export type Claim =
  /** The name is free among the tenant's agents (or already this agent's): it becomes the agent's. */
  | { kind: 'agent_name'; tenant: string; name: string; agent_id: string }
  /** The agent's runs that start a new thread are at least `ms` apart (`ms` > 0). */
  | { kind: 'run_window'; tenant: string; agent_id: string; ms: number }
  /** The thread has no queued or running task: `task_id` becomes its one running task. */
  | { kind: 'thread_idle'; tenant: string; thread_id: string; task_id: string }
  /** A task, run, swarm task or approval (`<task_id>/<call_id>`) is in one of these statuses now. */
  | {
      kind: 'status';
      tenant: string;
      record: 'task' | 'run' | 'swarm_task' | 'approval';
      id: string;
      in: readonly string[];
    }
  /** The first run of the agent under this Idempotency-Key (kept `ttl_ms`); refused with the task made under it. */
  | { kind: 'idempotency'; tenant: string; agent_id: string; key: string; task_id: string; ttl_ms: number }
  /**
   * The tenant's task queue is under 80 % of `capacity` (Redis: the team's queue, counted with the write; embedded:
   * the queue is this process's and the task service counts it, so the embedded store takes this as held).
   */
  | { kind: 'queue_room'; tenant: string; capacity: number };

/** A claim that did not hold; `holder` names what holds it (the other agent, the running task, the earlier task). */
export class ClaimRefused extends Error {
  constructor(
    readonly claim: Claim,
    readonly holder: string | null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(`claim ${claim.kind} refused${holder ? ` (held by ${holder})` : ''}`);
    this.name = 'ClaimRefused';
  }
}

/**
 * A piece of work one instance does at a time: a task (run by a worker), a workflow run or a swarm task (driven
 * through its steps). Queued by a commit, handed to one instance, held by it (a lease) until its end is written.
 */
export type WorkItem = { kind: 'task' | 'run' | 'swarm_task'; tenant: string; id: string };

/**
 * A work item handed to this instance. `reclaimed`: its holder is gone (the previous process, or in Redis mode an
 * instance whose lease ran out) and the spec's rule for interrupted work applies (tasks.ts, workflows.ts, swarms.ts).
 */
export type Delivery = WorkItem & { reclaimed?: { from: string | null } };

/** The lease on held work was lost (another instance took it over): nothing more may be written for it. */
export class LeaseLost extends Error {
  constructor(readonly item: WorkItem) {
    super(`the lease on ${item.kind} ${item.id} was taken over by another instance`);
    this.name = 'LeaseLost';
  }
}

export type CommitOptions = {
  /** Conditions checked with the write, all or nothing. */
  claims?: readonly Claim[];
  /** Work queued by this change (handed to an instance once durable). */
  enqueue?: readonly WorkItem[];
  /**
   * The start of work that was not delivered from a queue or whose start a status claim of this change guards (a
   * task's queued → running): taken with this change, held by this instance from now on (implies `as`).
   */
  take?: WorkItem;
  /**
   * Writes about work this instance holds: refused with LeaseLost when it does not hold it (another instance took it
   * over, or its end was written). Work delivered to this instance and not yet held is taken by its first such
   * write (Redis: only while that delivery is still pending; work is never taken by a write that merely names it).
   */
  as?: WorkItem;
  /** Work whose end this change writes (or whose delivery it lets go): released, if this instance holds it. */
  done?: WorkItem;
  /** A delivery this instance does not act on (handed out twice): its queue entry goes; no lease is touched. */
  letGo?: WorkItem;
};

/** What the status API says of the store (GET /api/v1/health, GET /admin/v1/status). */
export type OrchestratorStoreStatus = {
  kind: 'embedded' | 'redis';
  up: boolean;
  since: string;
  /** What an acknowledged change survives with the running settings (DECISIONS.md, "Durability"). */
  durability: { level: 'fsync' | 'os-crash-loses-1s' | 'replica' | 'snapshot' | 'none' | 'unknown'; text: string };
  /** Redis mode: this instance's id (leases name it), the URL without its password. */
  instance?: string;
  url?: string;
};

/** Retention of finished work (orchestrator.retention). */
export type RetentionRule = { finishedDays: number; maxFinishedTasks: number };

export interface OrchestratorStore {
  readonly kind: 'embedded' | 'redis';

  // ---- the state (Redis mode: this instance's replica, current up to the last sync())
  readonly agents: ReadonlyMap<string, Agent>;
  readonly tasks: ReadonlyMap<string, Task>;
  readonly workflows: ReadonlyMap<string, Workflow>;
  readonly runs: ReadonlyMap<string, WorkflowRun>;
  readonly swarms: ReadonlyMap<string, Swarm>;
  readonly swarmTasks: ReadonlyMap<string, SwarmTask>;
  readonly threads: ReadonlyMap<string, Thread>;
  /** Keyed by `<task_id>/<call_id>`. */
  readonly approvals: ReadonlyMap<string, StoredApproval>;
  /** Callers waiting for a task, run or swarm task to change (every record applied tells them, by its id). */
  readonly waits: Waits;
  /** The ids of an agent's (or thread's) tasks that are queued or running. */
  activeOfAgent(agentId: string): ReadonlySet<string>;
  activeOfThread(threadId: string): ReadonlySet<string>;
  /** The tenant's tasks, oldest first (GET /tasks walks it from the end). */
  tasksOf(tenant: string): readonly Task[];
  /** The tenant's retained events after `afterId`, and the ids lost to retention before the first one (if any). */
  replay(tenant: string, afterId: number): { lost: [number, number] | null; events: StreamEvent[] };

  /**
   * Read barrier: resolves once this instance has applied every change acknowledged (to anyone) before the call, so
   * a read after it sees them (Redis mode: one round trip; embedded: at once). Rejects with ApiError
   * store_unavailable when the store cannot be reached.
   */
  sync(tenant: string): Promise<void>;

  // ---- changes
  /** A new event record (the store numbers it). */
  event(e: NewEvent): OrchestratorRecord;
  eventBatch(list: NewEvent[]): OrchestratorRecord;
  /** Makes the records durable (all or nothing), then applies them and publishes their events. */
  commit(...records: OrchestratorRecord[]): Promise<void>;
  commitWith(opts: CommitOptions, ...records: OrchestratorRecord[]): Promise<void>;
  /** Tells whoever holds the item (this instance, or another in Redis mode) to stop or cancel it. */
  signal(control: Control): Promise<void>;
  /** Controls for work this instance holds (tasks.ts, workflows.ts, swarms.ts act on them). */
  onControl(fn: (c: Control) => void): void;

  // ---- events as they are applied
  subscribe(fn: (e: StreamEvent) => void, onEnd?: () => void): () => void;
  endSubscriptions(): void;
  readonly subscriberCount: number;
  /** Called with every record applied (after the state changed): approvals heard from other instances. */
  onApplied(fn: (r: OrchestratorRecord) => void): () => void;

  // ---- work
  /** Whom work of a kind is handed to; `capacity` says how many more tasks this instance takes now. */
  onWork(kind: WorkItem['kind'], handler: (d: Delivery) => void, capacity?: () => number): void;
  /** A task worker freed a slot: more work may be taken (Redis mode reads the queue again). */
  workFreed(): void;
  /**
   * This instance no longer works on the item though its end may not be written (a write failed): Redis mode stops
   * renewing its lease, so the lease runs out and the rule for interrupted work applies (embedded: the next start).
   */
  forget(item: WorkItem): void;

  // ---- lifecycle
  /** Loads the state (embedded: snapshot + WAL; Redis: the records and the feed) and starts taking work. */
  load(): Promise<void>;
  /** Starts handing out work (after every service registered its handler); reclaims what was left running. */
  startWork(): Promise<void>;
  /** Applies retention now (also done by the store on its own schedule). */
  sweep(now?: number): number;
  status(): OrchestratorStoreStatus;
  close(): Promise<void>;
}
