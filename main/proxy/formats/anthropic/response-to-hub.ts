// Provider side: an Anthropic message read as a hub response, and the message inside Anthropic's error body.
import { ApiError } from '../../../errors.ts';
import { argumentsToHub, errorMessageOf, isObject, newId, nowSeconds } from '../hub/index.ts';
import type { HubAssistantMessage, HubResponse, HubToolCall } from '../hub/index.ts';
import { ANTHROPIC_USAGE, finishToHub } from './common.ts';
import { answerText, isAnswerTool } from './structured-output.ts';

/** The message of an Anthropic error body ({"error": {"message": …}} or {"error": "…"}); undefined otherwise. */
export function errorMessage(body: unknown): string | undefined {
  return isObject(body) ? errorMessageOf({ error: body.error }) : undefined; // not its top-level message, nor text
}

/**
 * An Anthropic message as a hub response; an error body (or anything not a message) is an upstream_error. A call of
 * Switchboard's answer tool (structured output) is the assistant's text; when no other call remains, tool_use
 * ends as a normal stop.
 */
export function responseToHub(body: unknown, model: string): HubResponse {
  if (!isObject(body) || body.type === 'error') {
    const message = errorMessage(body) ?? 'the body is not an Anthropic message';
    throw new ApiError(
      'upstream_error',
      `The Anthropic provider answered an unusable reply: ${message}.`,
      "Check the provider's base_url and status; Switchboard expects an Anthropic Messages API there.",
    );
  }
  let text: string | null = null;
  let reasoning = '';
  let answered = false;
  const calls: HubToolCall[] = [];
  for (const b of Array.isArray(body.content) ? body.content : []) {
    if (!isObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') text = (text ?? '') + b.text;
    else if (b.type === 'thinking' && typeof b.thinking === 'string') reasoning += b.thinking;
    else if (b.type === 'tool_use' && isAnswerTool(b.name)) {
      text = (text ?? '') + answerText(b.name, b.input);
      answered = true;
    } else if (b.type === 'tool_use') {
      const fn = { name: typeof b.name === 'string' ? b.name : '', arguments: argumentsToHub(b.input) };
      calls.push({ id: typeof b.id === 'string' ? b.id : newId('toolu_'), type: 'function', function: fn });
    }
  }
  const message: HubAssistantMessage = { role: 'assistant', content: text };
  if (calls.length) message.tool_calls = calls;
  if (reasoning) message.reasoning_content = reasoning;
  const usage = ANTHROPIC_USAGE.toHub(body.usage);
  const finish = finishToHub(body.stop_reason);
  return {
    id: typeof body.id === 'string' ? body.id : newId('msg_'),
    object: 'chat.completion',
    created: nowSeconds(),
    model: typeof body.model === 'string' && body.model ? body.model : model,
    choices: [
      { index: 0, message, finish_reason: answered && finish === 'tool_calls' && !calls.length ? 'stop' : finish },
    ],
    ...(usage ? { usage } : {}),
  };
}
