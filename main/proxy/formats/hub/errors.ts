// Error helpers shared by the formats: the text a client shows, and the message inside a provider's error body.
import { isObject } from './json.ts';
import type { WireError } from './types.ts';

/** The message with the suggested action after it, for formats whose clients show only one string. */
export function messageWithAction(e: WireError): string {
  return e.action ? `${e.message} ${e.action}` : e.message;
}

/**
 * The message of an error body in the common shapes: {"error": {"message": …}} (OpenAI, Anthropic, Responses),
 * {"error": "…"} (Ollama), {"message": …}, or plain text; undefined when there is none.
 */
export function errorMessageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined;
  if (!isObject(body)) return undefined;
  const e = body.error;
  if (typeof e === 'string') return e;
  if (isObject(e) && typeof e.message === 'string') return e.message;
  return typeof body.message === 'string' ? body.message : undefined;
}

/** A provider's own error answer (a non-retryable 4xx) as the WireError a client's format re-says it with. */
export function wireErrorForStatus(status: number, message: string): WireError {
  const byStatus: Record<number, [string, string]> = {
    400: ['invalid_request', 'invalid_request_error'],
    401: ['invalid_api_key', 'authentication_error'],
    403: ['permission_denied', 'permission_error'],
    404: ['not_found', 'not_found_error'],
    413: ['body_too_large', 'invalid_request_error'],
    429: ['rate_limited', 'rate_limit_error'],
  };
  const [code, type] = byStatus[status] ?? ['upstream_error', 'upstream_error'];
  return { status, code, type, message };
}
