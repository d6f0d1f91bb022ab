// The error body each family of routes answers with, checked the way each vendor's client reads it, and which
// answers the fuzz accepts. The bodies are written by the formats' errorBody (main/proxy/formats/*/), the admin API's
// and the agent API's error handlers (main/server/app.ts); these checks are written from the vendors' shapes, not from
// that code, so a route that answers in the wrong family's shape fails.

/** Whose error shape a route answers in. */
export type Family = 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'agent' | 'admin' | 'ui';

/**
 * The family a path belongs to, as a client of it expects: the admin API, the agent API (/api/v1), Ollama's (/api/),
 * Gemini's (/v1beta/), Anthropic's (/v1/messages*), else OpenAI's. Decoded first where it decodes, as routing does.
 */
export function familyOf(target: string): Family {
  let raw = target.split('?')[0] ?? '';
  try {
    raw = new URL(raw, 'http://x').pathname; // dot segments resolved, as the server's URL parsing does
  } catch {
    // not a path a URL can hold: as sent
  }
  let p = raw;
  try {
    p = decodeURI(raw);
  } catch {
    // a bad escape: the raw prefix decides
  }
  if (p.startsWith('/admin/')) return 'admin';
  if (p === '/ui' || p.startsWith('/ui/')) return 'ui';
  if (p === '/api/v1' || p.startsWith('/api/v1/')) return 'agent';
  if (p.startsWith('/api/')) return 'ollama';
  if (p.startsWith('/v1beta/')) return 'gemini';
  if (p.startsWith('/v1/messages')) return 'anthropic'; // docs/errors.md's `/v1/messages*`
  return 'openai';
}

/**
 * The families an answer may be in: the path's; on an OpenAI path, also the one the caller's headers name, as a route
 * that is no front door (a model list, a video poll, an unknown path) answers in the caller's own shape, told by
 * anthropic-version, x-goog-api-key or ?key= (main/gateway/front-doors.ts, errorFormatFor). Never for the admin API.
 */
export function acceptedFamilies(family: Family, target: string, headers: readonly [string, string][]): Family[] {
  if (family !== 'openai') return [family];
  const out: Family[] = [family];
  const has = (name: string) => headers.some(([k, v]) => k.toLowerCase() === name && v !== '');
  const q = target.indexOf('?');
  if (has('anthropic-version')) out.push('anthropic');
  if (has('x-goog-api-key') || (q !== -1 && new URLSearchParams(target.slice(q + 1)).has('key'))) out.push('gemini');
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/** What is wrong with an error body of this family (null: it is right). `status` is the HTTP status. */
export function shapeProblem(family: Family, body: unknown, status: number): string | null {
  switch (family) {
    case 'openai': {
      // openai-node reads error.message, .type, .code, .param (OpenAI's own: {error:{message,type,param,code}}).
      if (!isObj(body) || !isObj(body.error)) return 'not {"error": {...}}';
      const e = body.error;
      if (!text(e.message)) return 'error.message is not a non-empty string';
      if (typeof e.type !== 'string') return 'error.type is not a string';
      if (!(e.code === null || typeof e.code === 'string')) return 'error.code is not a string or null';
      if (!(e.param === undefined || e.param === null || typeof e.param === 'string')) return 'error.param is odd';
      return null;
    }
    case 'admin': {
      // Switchboard's own: {error:{code, message, type, action, details?}} (shared/errors.ts ErrorBody), action always.
      const base = shapeProblem('openai', body, status);
      if (base) return base;
      const e = (body as { error: Record<string, unknown> }).error;
      if (!text(e.code)) return 'error.code is not a non-empty string';
      if (!text(e.action)) return 'error.action (what to do) is missing';
      return null;
    }
    case 'agent': {
      // The agent API's: {error:{code, message, type, action, details}}, details always present (null when none).
      const base = shapeProblem('admin', body, status);
      if (base) return base;
      if (!('details' in (body as { error: object }).error)) return 'error.details is missing (null when none)';
      return null;
    }
    case 'anthropic': {
      // @anthropic-ai/sdk: {type:"error", error:{type, message}}.
      if (!isObj(body) || body.type !== 'error') return 'not {"type": "error", ...}';
      if (!isObj(body.error)) return 'error is not an object';
      if (!text(body.error.type)) return 'error.type is not a non-empty string';
      if (!text(body.error.message)) return 'error.message is not a non-empty string';
      return null;
    }
    case 'gemini': {
      // @google/genai: {error:{code, message, status}}, code the HTTP status, status Google's canonical name. On
      // :streamGenerateContent without alt=sse Google wraps it in the stream's array: [{"error": {...}}].
      if (Array.isArray(body) && body.length === 1) return shapeProblem(family, body[0], status);
      if (!isObj(body) || !isObj(body.error)) return 'not {"error": {...}}';
      const e = body.error;
      if (e.code !== status) return `error.code ${JSON.stringify(e.code)} is not the HTTP status ${status}`;
      if (!text(e.message)) return 'error.message is not a non-empty string';
      if (typeof e.status !== 'string' || !/^[A-Z_]+$/.test(e.status)) return 'error.status is not a canonical name';
      return null;
    }
    case 'ollama': {
      // ollama-js reads `error` as a string (an object shows as "[object Object]").
      if (!isObj(body) || !text(body.error)) return 'not {"error": "<text>"}';
      return null;
    }
    case 'ui':
      // A browser's page: a missing asset is a plain-text 404 (the guards' refusals are JSON, in OpenAI's shape).
      return null;
  }
}

/** The error code an answer carries, where its family has one (OpenAI, admin, agent: code; Gemini: details' reason). */
export function errorCodeOf(family: Family, body: unknown): string | null {
  if (!isObj(body) || !isObj(body.error)) return null;
  if (family === 'gemini') {
    const d = body.error.details;
    const reason = Array.isArray(d) && isObj(d[0]) ? d[0].reason : undefined;
    return typeof reason === 'string' ? reason : null;
  }
  const code = body.error.code;
  return typeof code === 'string' ? code : null;
}

/**
 * The 5xx a route may answer without a fault of Switchboard's own: 502, 503 and 504 are the provider's (unreachable,
 * an error, a timeout, every candidate's circuit open), and only on routes that forward to one. Where the family
 * carries a code it must say so; Anthropic's and Ollama's bodies carry none, so their status decides.
 */
export const UPSTREAM_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);
export const UPSTREAM_CODES: ReadonlySet<string> = new Set([
  'upstream_error',
  'upstream_unreachable',
  'upstream_timeout',
  'no_healthy_provider',
]);

export function isProviderFault(family: Family, status: number, body: unknown): boolean {
  if (!UPSTREAM_STATUSES.has(status)) return false;
  const code = errorCodeOf(family, body);
  return code === null ? family === 'anthropic' || family === 'ollama' : UPSTREAM_CODES.has(code);
}
