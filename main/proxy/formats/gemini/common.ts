// What both sides of the Gemini format share: finish reasons, the usage and sampling-parameter maps, status names.
import { type FinishReason, type ParamMap, UsageMap } from '../hub/index.ts';
import type { GoogleStatus } from './types.ts';

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/** A Gemini finishReason as the hub's; calls in a normally ended reply make it 'tool_calls'. */
export function finishToHub(reason: string | undefined, hasCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason && CONTENT_FILTER_REASONS.has(reason)) return 'content_filter';
  return hasCalls ? 'tool_calls' : 'stop';
}

/** The hub's finish reason as Gemini's: Gemini ends a reply with function calls with STOP. */
export function finishFromHub(reason: FinishReason): string {
  switch (reason) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}

/**
 * usageMetadata: promptTokenCount includes the cached content (cachedContentTokenCount); candidatesTokenCount
 * leaves out the thoughts (thoughtsTokenCount), which the hub counts as completion (reasoning) tokens.
 */
export const GEMINI_USAGE = new UsageMap({
  prompt: 'promptTokenCount',
  completion: 'candidatesTokenCount',
  total: 'totalTokenCount',
  cacheRead: 'cachedContentTokenCount',
  reasoning: 'thoughtsTokenCount',
  completionExcludesReasoning: true,
});

/** The sampling fields, all under generationConfig. */
export const GEMINI_PARAMS: ParamMap = {
  temperature: 'generationConfig.temperature',
  top_p: 'generationConfig.topP',
  top_k: 'generationConfig.topK',
  max_tokens: 'generationConfig.maxOutputTokens',
  n: 'generationConfig.candidateCount',
  seed: 'generationConfig.seed',
  presence_penalty: 'generationConfig.presencePenalty',
  frequency_penalty: 'generationConfig.frequencyPenalty',
  stop: 'generationConfig.stopSequences',
};

/** Google's status name for an HTTP status. */
export function googleStatus(status: number): GoogleStatus {
  switch (status) {
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 408:
    case 504:
      return 'DEADLINE_EXCEEDED';
    case 402: // a spent budget (budget_exceeded): Google has no payment status; its quota one says it best
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 502:
    case 503:
      return 'UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}
