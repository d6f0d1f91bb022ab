// What both sides map the same way: usage, the sampling fields, and finish reasons as Responses' incomplete reasons.
import { type FinishReason, isObject, type Json, type ParamMap, UsageMap } from '../hub/index.ts';
import type { IncompleteReason } from './types.ts';

/** Responses' minimum for max_output_tokens (OpenAI answers 400 below it). */
const MIN_OUTPUT_TOKENS = 16;

/**
 * Usage: input and output tokens, with cached and reasoning tokens in their details. The details are written as 0
 * when there are none, as the openai SDK's types expect them.
 */
export const RESPONSES_USAGE = new UsageMap({
  prompt: 'input_tokens',
  completion: 'output_tokens',
  total: 'total_tokens',
  cacheRead: 'input_tokens_details.cached_tokens',
  reasoning: 'output_tokens_details.reasoning_tokens',
  writeZeroDetails: true,
});

/**
 * The sampling fields Responses has: temperature, top_p and max_output_tokens (the hub's max_tokens, raised to
 * OpenAI's minimum on the way to a provider). stop, n, seed and the penalties have no Responses field.
 */
export const RESPONSES_PARAMS: ParamMap = {
  temperature: 'temperature',
  top_p: 'top_p',
  max_tokens: { path: 'max_output_tokens', fromHub: (v) => Math.max(v, MIN_OUTPUT_TOKENS) },
};

/** The hub's finish as the reason a Response is incomplete; undefined for a complete one. */
export function finishFromHub(finish: FinishReason | null | undefined): IncompleteReason | undefined {
  if (finish === 'length') return 'max_output_tokens';
  if (finish === 'content_filter') return 'content_filter';
  return undefined;
}

/** A Response's status and incomplete reason as the hub's finish (an incomplete one ends at the token limit). */
export function finishToHub(response: Json, hasCalls: boolean): FinishReason {
  if (response.status === 'incomplete') {
    const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    if (reason === 'content_filter') return 'content_filter';
    return 'length';
  }
  return hasCalls ? 'tool_calls' : 'stop';
}
