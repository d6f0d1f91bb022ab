// Which coding session a request belongs to, from the header its tool sends (never from the body: nothing is parsed for
// it): the request log and the usage store keep it, so a user sees what one session cost (docs/usage.md, "Usage and cost").
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The headers tools send a session or conversation id in, tried in this order (the first present wins):
 * - `x-claude-code-session-id`: Claude Code, on every request (its LLM gateway docs, "Request headers");
 * - `session_id`: Codex CLI, its conversation id (codex-rs codex-api/src/requests/headers.rs,
 *   build_conversation_headers), on Responses and chat requests alike;
 * - `x-session-affinity`: OpenCode (its session id), Kilo Code, pi;
 * - `x-opencode-session`: OpenCode toward its own gateway, and tools that copy it;
 * - `x-session-id`: OpenCode's, and gateways' generic name;
 * - `conversation_id`: older Codex CLI builds.
 * Gemini CLI sends none with an API key (its session id goes only to Google's Code Assist backend), nor do Copilot,
 * Continue, Cline, Zed, aider or Open WebUI: their requests carry no session.
 */
export const SESSION_HEADERS = [
  'x-claude-code-session-id',
  'session_id',
  'x-session-affinity',
  'x-opencode-session',
  'x-session-id',
  'conversation_id',
] as const;

/** A session id longer than this is cut to it (UUIDs are 36 characters; OpenCode's `ses_…` 30). */
export const MAX_SESSION_ID_LENGTH = 128;

/** Printable ASCII only: anything else is not an id a tool made, and is not kept. */
const PRINTABLE = /^[\x20-\x7e]+$/;

/** The session id the request's headers carry, trimmed and capped; null when none does. */
export function sessionOf(headers: IncomingHttpHeaders): string | null {
  for (const name of SESSION_HEADERS) {
    const raw = headers[name];
    if (raw === undefined) continue;
    const value = (typeof raw === 'string' ? raw : (raw[0] ?? '')).trim();
    if (value === '' || !PRINTABLE.test(value)) continue;
    return value.length > MAX_SESSION_ID_LENGTH ? value.slice(0, MAX_SESSION_ID_LENGTH) : value;
  }
  return null;
}
