// Both sides: stop reasons ↔ finish reasons, the usage map and the sampling-parameter map of Anthropic Messages.
import { type FinishReason, type ParamMap, UsageMap } from '../hub/index.ts';
import type { AnthropicStopReason } from './types.ts';

/** Provider side: Anthropic's stop_reason as the hub's finish reason. */
export function finishToHub(reason: unknown): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop'; // end_turn, stop_sequence, pause_turn and reasons added later
  }
}

/** Client side: the hub's finish reason as stop_reason; a reply with tool calls needs tool_use for them to run. */
export function finishFromHub(finish: FinishReason | null, hasToolCalls: boolean): AnthropicStopReason {
  if (hasToolCalls && finish !== 'length' && finish !== 'content_filter') return 'tool_use';
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/**
 * Anthropic's input_tokens leaves out cache reads and writes (the hub's prompt_tokens counts them); its output_tokens
 * counts the thinking tokens, as the hub's completion_tokens counts reasoning tokens.
 */
export const ANTHROPIC_USAGE = new UsageMap({
  prompt: 'input_tokens',
  completion: 'output_tokens',
  cacheRead: 'cache_read_input_tokens',
  cacheWrite: 'cache_creation_input_tokens',
  cacheWrite5m: 'cache_creation.ephemeral_5m_input_tokens',
  cacheWrite1h: 'cache_creation.ephemeral_1h_input_tokens',
  reasoning: 'output_tokens_details.thinking_tokens',
  promptExcludesCache: true,
});

/**
 * The signature of the thinking blocks Switchboard writes for a translated provider's reasoning. Anthropic's clients
 * keep a thinking block only with a signature (Claude Code sends it back with the next turn); Switchboard drops
 * thinking blocks when it translates a request, and Anthropic itself would refuse this one (it is not Anthropic's).
 */
export const THINKING_SIGNATURE = 'switchboard-translated-reasoning';

/** The sampling fields, at the same paths both ways (stop_sequences is always an array: read with stopAsArray). */
export const ANTHROPIC_PARAMS: ParamMap = {
  max_tokens: 'max_tokens',
  temperature: { path: 'temperature', fromHub: (v) => Math.min(1, Math.max(0, v)) }, // Anthropic's range is 0..1
  top_p: 'top_p',
  top_k: 'top_k',
  stop: 'stop_sequences',
};
