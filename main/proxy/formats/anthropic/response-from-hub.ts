// Client side: a hub reply written as an Anthropic message, and Switchboard's errors as Anthropic's error body.
import { argumentsFromHub, messageWithAction, newId } from '../hub/index.ts';
import type { HubResponse, HubUsage, WireError } from '../hub/index.ts';
import { ANTHROPIC_USAGE, finishFromHub, THINKING_SIGNATURE } from './common.ts';
import type { AnthropicErrorType, AnthropicResponse, AnthropicUsage } from './types.ts';

/** The message id: the hub's when it is already an Anthropic id, else a new msg_ id. */
export const messageId = (hubId: string | undefined): string => (hubId?.startsWith('msg_') ? hubId : newId('msg_'));

/** The hub's usage as Anthropic's (input_tokens without the cached tokens, which have their own counters). */
export function usageFromHub(usage: HubUsage | null | undefined): AnthropicUsage {
  return usage ? (ANTHROPIC_USAGE.fromHub(usage) as AnthropicUsage) : { input_tokens: 0, output_tokens: 0 };
}

/**
 * A hub response as an Anthropic message, under the model the client asked for: the provider's reasoning first, as
 * a thinking block signed by Switchboard (THINKING_SIGNATURE), then the text, then the tool calls.
 */
export function responseFromHub(res: HubResponse, model: string): AnthropicResponse {
  const choice = res.choices[0];
  const content: AnthropicResponse['content'] = [];
  const reasoning = choice?.message.reasoning_content;
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning, signature: THINKING_SIGNATURE });
  const text = choice?.message.content;
  if (typeof text === 'string' && text !== '') content.push({ type: 'text', text });
  const calls = choice?.message.tool_calls ?? [];
  for (const c of calls) {
    const input = argumentsFromHub(c.function.arguments);
    content.push({ type: 'tool_use', id: c.id || newId('toolu_'), name: c.function.name, input });
  }
  return {
    id: messageId(res.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: finishFromHub(choice?.finish_reason ?? null, calls.length > 0),
    stop_sequence: null,
    usage: usageFromHub(res.usage),
  };
}

/** Anthropic's error type for an HTTP status. */
function errorTypeFromStatus(status: number): AnthropicErrorType {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** Anthropic's error body; the action goes after the message, which is all Anthropic clients show. */
export function errorBody(e: WireError): unknown {
  return { type: 'error', error: { type: errorTypeFromStatus(e.status), message: messageWithAction(e) } };
}
