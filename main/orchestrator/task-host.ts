// What workflows and swarms need of the task service: agents by reference, internal tasks and their ends, the store.
import type { RunTask, Task, TaskOrigin } from '../../shared/orchestrator.ts';
import type { AgentRef } from './agents.ts';
import type { ExtraTool } from './runner.ts';
import type { OrchestratorRecord } from './store/records.ts';
import type { OrchestratorStore, WorkItem } from './store/types.ts';

export type InternalTaskOptions = {
  /** Run it at once in the caller's worker slot (a coordinator waiting for the member it delegated to). */
  nested?: boolean;
  /**
   * Tools given to this task only (a swarm coordinator's `delegate`): closures of this process, so the task runs in
   * this instance's workers (never handed to another instance through the team's queue).
   */
  tools?: Record<string, ExtraTool>;
  /** The caller's own records (the step or round naming the task), durable in one batch with the task. */
  records?: (task: Task) => OrchestratorRecord[];
  /** The run or swarm task the caller drives: its records are written as its holder's (fenced in Redis mode). */
  as?: WorkItem;
};

export interface TaskHost {
  /**
   * Commit records and make events; read workflows, runs, swarms and swarm tasks (and whether an agent still exists);
   * wait for a run's or swarm task's record to change.
   */
  readonly store: OrchestratorStore;
  /** True once the service is closing: nothing new starts, and a caller in the middle of work leaves it as it is. */
  readonly closed: boolean;
  /** True when the tenant's new submissions are refused: the dispatch queue is 80 % full or more. */
  saturatedFor(tenant: string): boolean;
  /** An agent of the tenant by id, or by name when exactly one agent has it. */
  resolveAgent(ref: string, tenant: string): AgentRef;
  /** A task started by the service itself (a workflow step, a swarm turn): no run window, no wait for the agent. */
  submitInternal(
    agentId: string,
    body: RunTask,
    tenant: string,
    origin: TaskOrigin,
    opts?: InternalTaskOptions,
  ): Promise<Task>;
  /** The task once it is over; null when it is gone or the service closes. */
  waitForTask(id: string): Promise<Task | null>;
  stop(id: string, tenant: string): Promise<Task>;
  /** Fails (interrupted) the swarm task's turns still queued: its driver is gone (a reclaimed swarm task). */
  interruptQueuedTurns(swarmTaskId: string, tenant: string): Promise<void>;
}
