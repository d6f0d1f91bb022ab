// OpenAI chat completions: the hub's own wire format (front door /v1/chat/completions, and OpenAI-compatible
// providers). Decisions: DECISIONS.md beside this file.
import type { WireError } from '../../../errors.ts';
import { errorMessageOf } from '../hub/index.ts';
import type { ClientFormat, HubRequest, HubResponse, ProviderFormat } from '../hub/index.ts';
import { requestToHub } from './request-to-hub.ts';
import { OpenAIStreamDecoder, OpenAIStreamEncoder } from './stream.ts';

export { requestToHub as validateChatRequest } from './request-to-hub.ts';

/** Switchboard's own error body: {"error": {"code", "message", "type", "action", "details"?}}. */
export function openaiErrorBody(e: WireError): unknown {
  const error: Record<string, unknown> = { code: e.code, message: e.message, type: e.type };
  if (e.action) error.action = e.action;
  if (e.details !== undefined) error.details = e.details;
  return { error };
}

/**
 * The hub request as an OpenAI provider's body: as it is, but for the hub's own fields that OpenAI refuses (they are
 * not OpenAI's): top_k, and reasoning_budget (OpenAI takes reasoning_effort, which stays).
 */
export function requestFromHub(req: HubRequest): HubRequest {
  if (req.top_k === undefined && req.reasoning_budget === undefined) return req;
  const { top_k: _k, reasoning_budget: _b, ...rest } = req;
  return rest;
}

export const openaiFormat: ClientFormat & ProviderFormat = {
  name: 'openai',
  requestToHub: (body) => requestToHub(body),
  responseFromHub: (res: HubResponse) => res,
  streamEncoder: () => new OpenAIStreamEncoder(),
  errorBody: openaiErrorBody,
  requestFromHub,
  responseToHub: (body: unknown) => body as HubResponse,
  streamDecoder: () => new OpenAIStreamDecoder(),
  errorMessage: errorMessageOf,
};
