// The header policy: which of the client's request headers go upstream, and which of the provider's come back.
import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderRuntime } from '../provider-pool.ts';

/**
 * Request headers never sent upstream: hop-by-hop ones, the client's own credentials and our control headers. Expect
 * too: Node's server has already answered the client's 100-continue, and undici refuses the header outright.
 */
const DROP_REQUEST = new Set([
  'host',
  'expect',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'accept-encoding',
  'cookie',
  'x-switchboard-app',
  'x-switchboard-token',
  'x-switchboard-replay',
  'origin',
  'referer',
]);

/** Headers kept when the request is translated into another provider's format (the rest belong to the client's API). */
const KEEP_TRANSLATED = new Set(['user-agent', 'x-title', 'http-referer', 'x-request-id']);

/** Response headers not copied back to the client. */
const DROP_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'set-cookie',
  'proxy-authenticate',
]);

/** The headers of one upstream call: the client's that may go on, the body's length, and the provider's own auth. */
export function upstreamHeaders(
  incoming: IncomingHttpHeaders,
  provider: ProviderRuntime,
  length: number,
  translated: boolean,
  /** A key of the provider's pool chosen for this attempt (strategy/key-pool.ts); default its api_key. */
  key?: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in incoming) {
    if (DROP_REQUEST.has(name) || (translated && !KEEP_TRANSLATED.has(name))) continue;
    const v = incoming[name];
    if (typeof v === 'string') out[name] = v;
    else if (Array.isArray(v)) out[name] = v.join(', ');
  }
  out['content-length'] = String(length);
  out['accept-encoding'] = 'identity';
  if (!out['content-type']) out['content-type'] = 'application/json';
  return Object.assign(out, provider.requestHeaders(key));
}

/** The provider's reply headers for the client (hop-by-hop and cookies dropped), with ours added. */
export function replyHeaders(
  upstream: IncomingHttpHeaders,
  extra: Record<string, string>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in upstream) {
    if (DROP_RESPONSE.has(name)) continue;
    const v = upstream[name];
    if (v !== undefined) out[name] = v;
  }
  return Object.assign(out, extra);
}
