// Client side: a hub reply written as an /api/chat reply, with Ollama's timings, tool calls and error body.
import { argumentsFromHub, contentText, messageWithAction } from '../hub/index.ts';
import type { HubResponse, HubUsage, WireError } from '../hub/index.ts';
import { finishFromHub, OLLAMA_USAGE } from './common.ts';
import type { OllamaChatResponse, OllamaMessage, OllamaTimings, OllamaToolCall } from './types.ts';

/** The usage of a reply that reported none. */
export const NO_USAGE: HubUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * Ollama's timing fields from an elapsed time, split between prompt and reply by token share, so clients
 * that compute tokens per second (eval_count / eval_duration) get a finite, plausible figure.
 */
export function timings(elapsedMs: number, usage: HubUsage): OllamaTimings {
  const counts = OLLAMA_USAGE.fromHub(usage) as Pick<OllamaTimings, 'prompt_eval_count' | 'eval_count'>;
  const total = Math.max(1, Math.round(elapsedMs * 1e6));
  const tokens = counts.prompt_eval_count + counts.eval_count;
  const promptDuration = tokens > 0 ? Math.floor((total * counts.prompt_eval_count) / tokens) : 0;
  return {
    total_duration: total,
    load_duration: 0,
    prompt_eval_count: counts.prompt_eval_count,
    prompt_eval_duration: promptDuration,
    eval_count: counts.eval_count,
    eval_duration: total - promptDuration,
  };
}

/** Elapsed time since a hub response's `created` (seconds), when that clock reading is plausible. */
export function elapsedSinceCreated(created: number, now: number): number {
  const elapsed = now - created * 1000;
  return elapsed >= 0 && elapsed <= 3_600_000 ? elapsed : 0;
}

/** Whole tool calls as Ollama's: object arguments (text that is not an object travels as {"_raw": text}). */
export function toolCallsFromHub(calls: { name: string; arguments: string }[]): OllamaToolCall[] {
  return calls.map((c) => ({ function: { name: c.name, arguments: argumentsFromHub(c.arguments) } }));
}

/** A hub (non-stream) response as the body of POST /api/chat, under the model the client asked for. */
export function responseFromHub(res: HubResponse, model: string): OllamaChatResponse {
  const now = Date.now();
  const choice = res.choices[0];
  const message: OllamaMessage = { role: 'assistant', content: contentText(choice?.message.content) };
  if (choice?.message.reasoning_content) message.thinking = choice.message.reasoning_content;
  const calls = choice?.message.tool_calls ?? [];
  if (calls.length > 0) message.tool_calls = toolCallsFromHub(calls.map((c) => c.function));
  return {
    model,
    created_at: new Date(now).toISOString(),
    message,
    done: true,
    done_reason: finishFromHub(choice?.finish_reason),
    ...timings(elapsedSinceCreated(res.created, now), res.usage ?? NO_USAGE),
  };
}

/** Ollama's error body: clients read `error` as a string (an object shows as "[object Object]"). */
export function errorBody(e: WireError): { error: string } {
  return { error: messageWithAction(e) };
}
