// What pins a request to one key of a provider's pool (strategy/key-pool.ts), so the provider's prompt cache keeps
// hitting: the session its tool names in a header (session-id.ts: Claude Code's X-Claude-Code-Session-Id, Codex's
// session_id, …), else a Responses or chat request's `prompt_cache_key`, else a hash of the conversation's first
// message (the same conversation sends the same first message on every turn). Computed only when a pool is reached.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_SESSION_ID_LENGTH, sessionOf } from '../session-id.ts';

/** The first message is hashed from at most this many characters of its JSON (a 1 MB paste costs no more). */
const HASHED_CHARS = 64 * 1024;

export function stickyKeyOf(headers: IncomingHttpHeaders, body: unknown, firstMessage: unknown): string | null {
  const s = sessionOf(headers);
  if (s !== null) return `s:${s}`;
  const pck =
    body !== null && typeof body === 'object' ? (body as { prompt_cache_key?: unknown }).prompt_cache_key : undefined;
  if (typeof pck === 'string' && pck !== '') return `k:${pck.slice(0, MAX_SESSION_ID_LENGTH)}`;
  if (firstMessage === undefined) return null;
  const text = JSON.stringify(firstMessage) ?? '';
  return `m:${createHash('sha256')
    .update(text.length > HASHED_CHARS ? text.slice(0, HASHED_CHARS) : text)
    .digest('base64url')
    .slice(0, 22)}`;
}
