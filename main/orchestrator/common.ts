// What the orchestrator's services share: token usage sums, the queue_full refusal, the invalid-definition error and
// the run-level events of workflow runs and swarm tasks.
import type { RunEvent, SwarmTask, TokenUsage, WorkflowRun } from '../../shared/orchestrator.ts';
import { ApiError, type FieldProblem } from '../errors.ts';
import type { NewEvent } from './store/records.ts';
import type { OrchestratorStore } from './store/types.ts';

/** A run-level event's own fields (the store adds id and time; workflowEvent/swarmEvent add where it comes from). */
export type RunEventPart = Pick<RunEvent, 'type'> &
  Partial<Omit<RunEvent, 'id' | 'time' | 'type' | 'tenant' | 'workflow_id' | 'run_id' | 'swarm_id' | 'swarm_task_id'>>;

/** A run-level event of a workflow run (run_started, step_started...), as a record to commit with the run's. */
export function workflowEvent(store: Pick<OrchestratorStore, 'event'>, r: WorkflowRun, e: RunEventPart) {
  return store.event({ tenant: r.tenant, workflow_id: r.workflow_id, run_id: r.run_id, ...e } as NewEvent);
}

/** A run-level event of a swarm task (its steps are rounds). */
export function swarmEvent(store: Pick<OrchestratorStore, 'event'>, t: SwarmTask, e: RunEventPart) {
  const where = { tenant: t.tenant, workflow_id: null, swarm_id: t.swarm_id, swarm_task_id: t.id };
  return store.event({ ...where, ...e } as NewEvent);
}

export const zeroUsage = (): TokenUsage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

export const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  prompt_tokens: a.prompt_tokens + b.prompt_tokens,
  completion_tokens: a.completion_tokens + b.completion_tokens,
  total_tokens: a.total_tokens + b.total_tokens,
});

/** 429 queue_full with Retry-After: 5 (submissions are refused once the dispatch queue is 80 % full). */
export function queueFull(details?: unknown): ApiError {
  const err = new ApiError('queue_full', 'The dispatch queue is 80 % full or more.', 'Retry in 5 seconds.', details);
  err.headers['retry-after'] = '5';
  return err;
}

/** 422 workflow_invalid or swarm_invalid, listing every problem of the definition. */
export function invalidDefinition(code: 'workflow_invalid' | 'swarm_invalid', problems: FieldProblem[]): ApiError {
  const what = code === 'workflow_invalid' ? 'workflow' : 'swarm';
  const list = problems.map((p) => `${p.field} ${p.message}`).join('; ');
  const action = 'Fix every problem listed in error.details, then send it again.';
  return new ApiError(code, `The ${what} definition is invalid: ${list}.`, action, problems);
}
