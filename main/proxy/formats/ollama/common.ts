// What both sides of the Ollama format share: the usage and sampling-parameter tables, and the finish mapping.
import { absent, effortFromBudget, invalid, type FinishReason, type ParamMap, UsageMap } from '../hub/index.ts';
import type { HubRequest, ReasoningEffort } from '../hub/index.ts';
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

/** The thinking levels Ollama takes as `think` (any thinking model reads a level as "think"). */
const THINK_LEVELS = new Set(['low', 'medium', 'high']);

/**
 * Client side: `think` as the hub's effort: false is 'none', true is 'medium' (the level Ollama reads true as), a
 * level is itself. Anything else is a 400, as at Ollama.
 */
export function thinkToHub(v: unknown, hub: HubRequest): void {
  if (absent(v)) return;
  if (v === true || v === false) hub.reasoning_effort = v ? 'medium' : 'none';
  else if (typeof v === 'string' && THINK_LEVELS.has(v)) hub.reasoning_effort = v as ReasoningEffort;
  else {
    throw invalid(
      `"think" must be true, false, "low", "medium" or "high"; got ${JSON.stringify(v)}.`,
      'Send "think": true to see the model think, or leave it out.',
    );
  }
}

/**
 * Provider side: the hub's reasoning as `think`: 'none' is false, 'medium' is true (older Ollama versions take only
 * true or false), 'minimal' is "low", and 'low' and 'high' are themselves; a budget alone (an Anthropic or Gemini
 * client's) is read on the hub's scale first. No reasoning asked: no `think` (the model's default).
 */
export function thinkFromHub(req: HubRequest): boolean | string | undefined {
  const effort =
    req.reasoning_effort ?? (req.reasoning_budget !== undefined ? effortFromBudget(req.reasoning_budget) : undefined);
  if (effort === undefined) return undefined;
  if (effort === 'none') return false;
  if (effort === 'medium') return true;
  return effort === 'minimal' ? 'low' : effort;
}
