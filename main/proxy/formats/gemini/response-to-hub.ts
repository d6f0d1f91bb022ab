// Provider side: a Gemini GenerateContentResponse as the hub response, and the error inside a Gemini error body.
import type { ErrorCode } from '../../../errors.ts';
import { answerText, argumentsToHub, isAnswerTool, isObject, newId, nowSeconds } from '../hub/index.ts';
import { UpstreamStreamError } from '../hub/index.ts';
import type { HubResponse, HubToolCall, HubUsage } from '../hub/index.ts';
import { finishToHub, GEMINI_USAGE } from './common.ts';
import type { GeminiErrorFields, GeminiFunctionCall, GeminiResponse } from './types.ts';

/** The `error` object of a Gemini error body: a JSON object, its text, or the one-element array of a JSON stream. */
export function errorOf(body: unknown): GeminiErrorFields | undefined {
  let b = body;
  if (typeof b === 'string') {
    try {
      b = JSON.parse(b);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(b)) b = b[0];
  return isObject(b) && isObject(b.error) ? b.error : undefined;
}

/** The message inside a Gemini error body, if any. */
export function errorMessage(body: unknown): string | undefined {
  const message = errorOf(body)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** A Gemini error as the failure it reports (its HTTP code kept: 429 and 504 keep their meaning). */
export function upstreamError(err: GeminiErrorFields): UpstreamStreamError {
  const status = typeof err.code === 'number' && err.code >= 400 && err.code < 600 ? err.code : 502;
  const code: ErrorCode =
    status === 429 ? 'upstream_rate_limited' : status === 504 ? 'upstream_timeout' : 'upstream_error';
  const message =
    typeof err.message === 'string' ? err.message : `Gemini reported ${String(err.status ?? 'an error')}.`;
  return new UpstreamStreamError(message, code, status);
}

/** A functionCall as a hub tool call: Gemini's id when it sent one, else a minted `call_…` id. */
export function callToHub(fc: GeminiFunctionCall): HubToolCall {
  const id = fc.id || newId('call_');
  return { id, type: 'function', function: { name: fc.name, arguments: argumentsToHub(fc.args) } };
}

export function usageToHub(usageMetadata: unknown): HubUsage | undefined {
  return GEMINI_USAGE.toHub(usageMetadata);
}

export function responseToHub(rawBody: unknown, model: string): HubResponse {
  const err = errorOf(rawBody);
  if (err) throw upstreamError(err);
  const body = (isObject(rawBody) ? rawBody : {}) as GeminiResponse;
  const candidates = Array.isArray(body.candidates) ? body.candidates : [];
  const choices: HubResponse['choices'] = candidates.map((c, k) => {
    let text = '';
    let reasoning = '';
    const calls: HubToolCall[] = [];
    for (const p of c.content?.parts ?? []) {
      // Switchboard's answer tool (structured output beside tools: structured-output.ts) is the answer's text.
      if (p.functionCall && isAnswerTool(p.functionCall.name))
        text += answerText(p.functionCall.name, p.functionCall.args);
      else if (p.functionCall) calls.push(callToHub(p.functionCall));
      else if (typeof p.text === 'string') {
        if (p.thought) reasoning += p.text;
        else text += p.text;
      }
    }
    const message: HubResponse['choices'][0]['message'] = { role: 'assistant', content: text === '' ? null : text };
    if (calls.length) message.tool_calls = calls;
    if (reasoning) message.reasoning_content = reasoning;
    return { index: c.index ?? k, message, finish_reason: finishToHub(c.finishReason, calls.length > 0) };
  });
  if (!choices.length) {
    // No candidate: the prompt itself was blocked (promptFeedback.blockReason).
    const finish = body.promptFeedback?.blockReason ? 'content_filter' : 'stop';
    choices.push({ index: 0, message: { role: 'assistant', content: null }, finish_reason: finish });
  }
  const res: HubResponse = {
    id: body.responseId || newId('chatcmpl-'),
    object: 'chat.completion',
    created: nowSeconds(),
    model: body.modelVersion || model,
    choices,
  };
  const usage = usageToHub(body.usageMetadata);
  if (usage) res.usage = usage;
  return res;
}
