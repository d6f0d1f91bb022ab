// A request log entry in words for the Logs page: its time to the millisecond, what became of it (the provider that
// answered, or why none was tried, by error code), tokens and attempts.
import type { RequestLogEntry } from '../../shared/admin.ts';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Local time to the millisecond: "14:03:22.123". */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Local date and time to the millisecond: "2025-01-02 14:03:22.123". */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatTime(iso)}`;
}

/** Why no provider was tried, by error code: what Switchboard itself did with the request. */
const NOT_ROUTED: Record<string, string> = {
  rate_limit_exceeded: "refused by Switchboard's rate limit before routing",
  request_over_tpm_limit:
    "refused before routing: the request alone is over the app's or key's tokens-per-minute limit",
  budget_exceeded: 'refused by a budget before routing (the spending limit is reached)',
  routing_paused: 'refused before routing: routing is paused',
  no_route: 'not routed: no enabled provider serves this model',
  no_healthy_provider: "not sent: every candidate provider's circuit breaker is open",
  unsupported_endpoint: 'not sent: no candidate provider offers this endpoint',
  invalid_json: 'refused before routing: the body is not valid JSON',
  invalid_request: 'refused before routing: the request is not valid',
  model_required: 'refused before routing: the request names no model',
  body_too_large: 'refused before routing: the body is over max_body_mb',
  unsupported_media_type: 'refused before routing: the body is not JSON',
  request_timeout: 'refused before routing: the body stopped arriving',
  client_closed_request: 'not sent: the client hung up before its request was whole',
  invalid_api_key: 'refused before routing: no valid gateway credential',
  model_not_allowed: 'refused before routing: the credential may not use this model',
  unauthorized: 'refused before routing: no valid key',
  host_not_allowed: 'refused before routing: a Host that is not this machine',
  origin_not_allowed: 'refused before routing: a browser page of another origin',
  internal_error: 'failed inside Switchboard before any provider was tried',
};

/** What became of the request: "via alpha (rule:gpt-*)", or why no provider was tried. */
export function outcomeText(e: RequestLogEntry): string {
  if (e.provider) return `via ${e.provider} (${e.route ?? 'no route recorded'})`;
  if (e.error_code) return NOT_ROUTED[e.error_code] ?? `not sent to a provider (${e.error_code})`;
  if (e.status > 0 && e.status < 400) return 'answered by Switchboard itself (no provider needed)';
  return 'not sent to a provider';
}

/** The short form for the provider column: the provider, or what Switchboard did instead. */
export function providerCell(e: RequestLogEntry): string {
  if (e.provider) return e.provider;
  if (e.error_code === 'rate_limit_exceeded' || e.error_code === 'request_over_tpm_limit') return '(rate limit)';
  if (e.error_code === 'budget_exceeded') return '(budget)';
  if (e.error_code === 'routing_paused') return '(paused)';
  if (e.error_code === 'no_route') return '(no route)';
  return '—';
}

/** "1,234 in / 56 out", or "—" when the provider reported no usage. */
export function tokensText(e: RequestLogEntry): string {
  if (e.prompt_tokens === null && e.completion_tokens === null) return '—';
  const n = (v: number | null) => (v === null ? '?' : v.toLocaleString('en-US'));
  return `${n(e.prompt_tokens)} in / ${n(e.completion_tokens)} out`;
}

/** Attempts: "1", or "3 (failover)" when more than one provider was tried. */
export function attemptsText(e: RequestLogEntry): string {
  const n = e.attempts.length;
  return n > 1 ? `${n} (failover)` : String(n);
}
