// The orchestrator's records: every change to its state is one of these, made durable by the store (the WAL's
// records in embedded mode, the tenant's feed in Redis mode) and applied in the same order on every replica.
import { isoTime } from '../../observability/iso-time.ts';
import type { Agent, Swarm, SwarmTask, Task, Workflow, WorkflowRun } from '../../../shared/orchestrator.ts';
import type { StreamEvent, Thread, ThreadMessage } from '../../../shared/orchestrator.ts';
import type { Approval } from '../../../shared/orchestrator.ts';

/**
 * An approval as stored: with the state the task resumes from after a restart, while it is pending, and after a
 * decision that came while the task was not running (until the resumed task takes it).
 */
export type StoredApproval = Approval & { resume?: unknown };

export const approvalKey = (taskId: string, callId: string): string => `${taskId}/${callId}`;

/** A new event as its maker gives it: the store adds the id (and the time, unless given). */
export type NewEvent = StreamEvent extends infer E
  ? E extends StreamEvent
    ? Omit<E, 'id' | 'time'> & { time?: string }
    : never
  : never;

/** The fields of an agent a change may set (PUT /agents/:id, and a new thread's run moving last_run_at). */
export type AgentPatch = Partial<Omit<Agent, 'id' | 'tenant' | 'created_at' | 'status'>>;

/**
 * A request to the instance working on something (Redis mode: the feed carries it to every instance, and the one
 * holding the item acts on it). Never part of the state.
 */
export type Control =
  | { kind: 'stop_task'; tenant: string; id: string }
  | { kind: 'cancel_run'; tenant: string; id: string }
  | { kind: 'stop_swarm_task'; tenant: string; id: string }
  /** Told by the store to this instance only: another instance took this work over (its lease ran out here). */
  | { kind: 'lease_lost'; tenant: string; id: string; item: 'task' | 'run' | 'swarm_task' };

export type OrchestratorRecord =
  | { type: 'agent.put'; data: Agent }
  // Fields of an agent changed (applied as a merge, so concurrent changes of different fields both hold).
  | { type: 'agent.patch'; data: { id: string; fields: AgentPatch } }
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
  | { type: 'approval.put'; data: StoredApproval }
  // Redis mode only: a request to whoever holds the item (see Control).
  | { type: 'control'; data: Control };

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
