// Provider side: a provider's /api/chat reply read into the hub, and the message inside its error bodies.
import { absent, argumentsToHub, errorMessageOf, isObject, newId, UpstreamStreamError } from '../hub/index.ts';
import type { HubAssistantMessage, HubResponse, HubToolCall } from '../hub/index.ts';
import { finishToHub, OLLAMA_USAGE } from './common.ts';

/** The message inside an Ollama error body: {"error": "<text>"}, an object with a message, or plain text. */
export const errorMessage = errorMessageOf;

/** The text of an `error` field of a reply or a stream line. */
export function upstreamErrorText(error: unknown): string {
  return errorMessageOf({ error }) || 'the Ollama provider reported an error';
}

/** Ollama's `created_at` (an RFC 3339 time) as the hub's seconds; now when it is missing or unreadable. */
export function createdToHub(v: unknown): number {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  return Math.floor((Number.isNaN(ms) ? Date.now() : ms) / 1000);
}

/** A reply's whole tool calls as the hub's: the id a newer Ollama sent, else a minted one. */
export function toolCallsToHub(v: unknown): HubToolCall[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((c) => {
    const fn = isObject(c.function) ? c.function : {};
    return {
      id: typeof c.id === 'string' && c.id !== '' ? c.id : newId('call_'),
      type: 'function' as const,
      function: { name: typeof fn.name === 'string' ? fn.name : '', arguments: argumentsToHub(fn.arguments) },
    };
  });
}

/** A provider's non-stream /api/chat reply as a hub response; an {"error": …} body raises UpstreamStreamError. */
export function responseToHub(body: unknown, model: string): HubResponse {
  if (!isObject(body)) {
    throw new UpstreamStreamError('The Ollama provider answered with a body that is not a JSON object.');
  }
  if (!absent(body.error)) throw new UpstreamStreamError(upstreamErrorText(body.error));
  const m = isObject(body.message) ? body.message : {};
  const calls = toolCallsToHub(m.tool_calls);
  const text = typeof m.content === 'string' ? m.content : '';
  const message: HubAssistantMessage = { role: 'assistant', content: calls.length > 0 && text === '' ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  if (typeof m.thinking === 'string' && m.thinking !== '') message.reasoning_content = m.thinking;
  const usage = OLLAMA_USAGE.toHub(body);
  return {
    id: newId('chatcmpl-'),
    object: 'chat.completion',
    created: createdToHub(body.created_at),
    model: typeof body.model === 'string' && body.model !== '' ? body.model : model,
    choices: [{ index: 0, message, finish_reason: finishToHub(calls.length > 0, body.done_reason) }],
    ...(usage ? { usage } : {}),
  };
}
