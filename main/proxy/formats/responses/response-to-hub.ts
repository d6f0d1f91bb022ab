// Provider side: a provider's Response object (non-stream) read into the hub response, and its error body's message.
import { errorMessageOf, isObject, newId, nowSeconds, UpstreamStreamError } from '../hub/index.ts';
import type { HubAssistantMessage, HubResponse, HubToolCall, Json } from '../hub/index.ts';
import { finishToHub, RESPONSES_USAGE } from './common.ts';

/** The text of a message output item (output_text parts; a refusal counts as text). */
export function messageText(item: Json): string {
  if (!Array.isArray(item.content)) return '';
  return item.content
    .map((p: unknown) => {
      if (!isObject(p)) return '';
      if (p.type === 'output_text' && typeof p.text === 'string') return p.text;
      return p.type === 'refusal' && typeof p.refusal === 'string' ? p.refusal : '';
    })
    .join('');
}

/** The text of a reasoning item: its content, else its summary. */
function reasoningText(item: Json): string {
  const from = (parts: unknown): string =>
    Array.isArray(parts) ? parts.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('') : '';
  return from(item.content) || from(item.summary);
}

/** A failed Response's error (`response.error`) as the UpstreamStreamError it is raised with. */
export function failureToHub(response: Json): UpstreamStreamError {
  const err = isObject(response.error) ? response.error : {};
  return new UpstreamStreamError(
    typeof err.message === 'string' ? err.message : 'The provider reported that the response failed.',
    typeof err.code === 'string' ? err.code : 'upstream_error',
  );
}

function functionCallToHub(item: Json): HubToolCall {
  return {
    id: typeof item.call_id === 'string' ? item.call_id : newId('call_'),
    type: 'function',
    function: {
      name: typeof item.name === 'string' ? item.name : '',
      arguments: typeof item.arguments === 'string' ? item.arguments : '',
    },
  };
}

export function responseToHub(body: unknown, model: string): HubResponse {
  if (!isObject(body)) {
    throw new UpstreamStreamError('The provider answered /responses with a body that is not a JSON object.');
  }
  if (body.status === 'failed') throw failureToHub(body);
  let text = '';
  let reasoning = '';
  const calls: HubToolCall[] = [];
  for (const item of Array.isArray(body.output) ? body.output : []) {
    if (!isObject(item)) continue;
    if (item.type === 'message') text += messageText(item);
    else if (item.type === 'reasoning') reasoning += reasoningText(item);
    else if (item.type === 'function_call') calls.push(functionCallToHub(item));
  }
  const message: HubAssistantMessage = { role: 'assistant', content: text || (calls.length ? null : '') };
  if (calls.length) message.tool_calls = calls;
  if (reasoning) message.reasoning_content = reasoning;
  const usage = RESPONSES_USAGE.toHub(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : newId('resp_'),
    object: 'chat.completion',
    created: typeof body.created_at === 'number' ? body.created_at : nowSeconds(),
    model: typeof body.model === 'string' ? body.model : model,
    choices: [{ index: 0, message, finish_reason: finishToHub(body, calls.length > 0) }],
    ...(usage ? { usage } : {}),
  };
}

/** The message of an error body ({"error": {"message"}}, {"error": "…"}, {"message"}); undefined for a non-object. */
export function errorMessage(body: unknown): string | undefined {
  return isObject(body) ? errorMessageOf(body) : undefined;
}
