// What both sides of the Ollama format share: the usage and sampling-parameter tables, and the finish mapping.
import { type FinishReason, type ParamMap, UsageMap } from '../hub/index.ts';
import type { OllamaDoneReason } from './types.ts';

/** Ollama's token counts sit beside the reply's other fields, in its final object. */
export const OLLAMA_USAGE = new UsageMap({ prompt: 'prompt_eval_count', completion: 'eval_count' });

/**
 * Ollama's sampling fields, all in `options` (in the order Ollama's reference lists them). num_predict -1 (no limit)
 * and -2 (fill the context) have no hub form: the provider's default applies; a fraction is floored.
 */
export const OLLAMA_PARAMS: ParamMap = {
  temperature: 'options.temperature',
  top_p: 'options.top_p',
  top_k: 'options.top_k',
  max_tokens: { path: 'options.num_predict', toHub: (n) => (n > 0 ? Math.floor(n) : undefined) },
  stop: 'options.stop',
  seed: 'options.seed',
  presence_penalty: 'options.presence_penalty',
  frequency_penalty: 'options.frequency_penalty',
};

/** Ollama's done_reason as the hub's finish: Ollama says "stop" for a reply that ends in tool calls. */
export function finishToHub(sawToolCalls: boolean, reason: unknown): FinishReason {
  if (sawToolCalls) return 'tool_calls';
  return reason === 'length' ? 'length' : 'stop';
}

/** The hub's finish as Ollama's done_reason: a reply that ends in tool calls is "stop", as Ollama reports it. */
export function finishFromHub(finish: FinishReason | null | undefined): OllamaDoneReason {
  return finish === 'length' ? 'length' : 'stop';
}
