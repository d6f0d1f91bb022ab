// OpenAI chat completions: the hub's own wire format (front door /v1/chat/completions, and OpenAI-compatible
// providers). Decisions: DECISIONS.md beside this file.
import { createHash } from 'node:crypto';
import type { WireError } from '../../../errors.ts';
import { errorMessageOf, isObject } from '../hub/index.ts';
import type { ClientFormat, HubRequest, HubResponse, ProviderFormat } from '../hub/index.ts';
import { requestToHub } from './request-to-hub.ts';
import { OpenAIStreamDecoder, OpenAIStreamEncoder, reasoningToHub } from './stream.ts';

export { requestToHub as validateChatRequest } from './request-to-hub.ts';

/** Switchboard's own error body: {"error": {"code", "message", "type", "action", "details"?}}. */
export function openaiErrorBody(e: WireError): unknown {
  const error: Record<string, unknown> = { code: e.code, message: e.message, type: e.type };
  if (e.action) error.action = e.action;
  if (e.details !== undefined) error.details = e.details;
  return { error };
}

/**
 * The longest `user` sent as it is: OpenAI refuses one over 64 characters, other OpenAI-compatible services over 64 to
 * 128 (DECISIONS.md); Claude Code's metadata.user_id (the hub's `user`) runs to about 150.
 */
export const USER_MAX = 64;

/**
 * A `user` over USER_MAX characters as its SHA-256 in hex: exactly 64 characters of [0-9a-f], the same for the same
 * user (so a provider's per-user abuse tracking and caching still see one user), and not reversible (OpenAI asks for
 * a hashed identifier rather than the raw one; Claude Code's holds the account's UUID).
 */
export function shortUser(user: string): string {
  return user.length > USER_MAX ? createHash('sha256').update(user, 'utf8').digest('hex') : user;
}

/**
 * The hub request as an OpenAI provider's body: as it is, but for the hub's own fields that OpenAI refuses (they are
 * not OpenAI's): top_k, and reasoning_budget (OpenAI takes reasoning_effort, which the quirks table keeps only for
 * models that take it: main/proxy/quirks.ts); and a `user` too long for OpenAI, shortened to a stable hash.
 */
export function requestFromHub(req: HubRequest): HubRequest {
  const longUser = typeof req.user === 'string' && req.user.length > USER_MAX;
  if (req.top_k === undefined && req.reasoning_budget === undefined && !longUser) return req;
  const { top_k: _k, reasoning_budget: _b, ...rest } = req;
  if (longUser) rest.user = shortUser(req.user!);
  return rest;
}

/** A provider's reply as the hub's: as it is, but for reasoning sent as `reasoning` (stream.ts, reasoningToHub). */
function responseToHub(body: unknown): HubResponse {
  const choices = isObject(body) ? body.choices : undefined;
  if (Array.isArray(choices))
    for (const c of choices) if (isObject(c) && isObject(c.message)) reasoningToHub(c.message);
  return body as HubResponse;
}

export const openaiFormat: ClientFormat & ProviderFormat = {
  name: 'openai',
  requestToHub: (body) => requestToHub(body),
  responseFromHub: (res: HubResponse) => res,
  streamEncoder: () => new OpenAIStreamEncoder(),
  errorBody: openaiErrorBody,
  requestFromHub,
  responseToHub,
  streamDecoder: () => new OpenAIStreamDecoder(),
  errorMessage: errorMessageOf,
};
