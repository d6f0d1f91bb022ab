// What the orchestrator's services share: token usage sums, the queue_full refusal and the invalid-definition error.
import type { TokenUsage } from '../../shared/orchestrator.ts';
import { ApiError, type FieldProblem } from '../errors.ts';

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
