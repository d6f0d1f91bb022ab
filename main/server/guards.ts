// Request guards: Host (DNS rebinding), Origin (cross-site browsers) and the admin token.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../errors.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function hostName(hostHeader: string | undefined): string {
  if (!hostHeader) return '';
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/** Admin API: only localhost, 127.0.0.1 or [::1] (a rebinding page's own name is refused). */
export function checkAdminHost(headers: IncomingHttpHeaders): void {
  const host = hostName(headers.host);
  if (!LOOPBACK_HOSTS.has(host)) {
    throw new ApiError(
      'host_not_allowed',
      `The admin API answers only to localhost, 127.0.0.1 or [::1]; this request named host "${host || '(none)'}".`,
      'Open the admin API as http://localhost:<port> or http://127.0.0.1:<port>.',
    );
  }
}

/**
 * Proxy routes: loopback names, IP literals, *.localhost, *.local, *.internal (containers reach the host as
 * host.docker.internal), the same set Ollama allows, so rebinding through a public name is refused.
 */
export function checkProxyHost(headers: IncomingHttpHeaders, extra: readonly string[] = []): void {
  const host = hostName(headers.host);
  if (host === '' || LOOPBACK_HOSTS.has(host)) return;
  if (/^[\d.]+$/.test(host) || host.startsWith('[')) return;
  if (host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return;
  if (extra.includes(host)) return;
  throw new ApiError(
    'host_not_allowed',
    `Requests must name this machine (localhost, an IP address, *.local or *.internal); host "${host}" is refused to block DNS rebinding.`,
    'Point the client at http://localhost:<port> or http://127.0.0.1:<port>.',
  );
}

/** A browser page from another origin may not call us (no CORS grant). Non-browser clients send no Origin. */
export function checkOrigin(headers: IncomingHttpHeaders): void {
  const origin = headers.origin;
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site') throw crossOrigin(origin ?? 'another site');
  if (!origin || origin === 'null') {
    if (origin === 'null') throw crossOrigin('null');
    return;
  }
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    throw crossOrigin(origin);
  }
  const own = hostName(headers.host);
  if (LOOPBACK_HOSTS.has(u.hostname === '[::1]' ? '[::1]' : u.hostname) && hostName(u.host) === own) return;
  if (u.host === headers.host) return;
  throw crossOrigin(origin);
}

function crossOrigin(origin: string): ApiError {
  return new ApiError(
    'origin_not_allowed',
    `Cross-origin requests from ${origin} are refused.`,
    'Call Switchboard from a local program, or from the Switchboard UI itself.',
  );
}

/** The admin token from `Authorization: Bearer`, `X-Switchboard-Token`, or `?token=` (for EventSource). */
export function checkAdminToken(headers: IncomingHttpHeaders, url: string, token: string): void {
  let given: string | undefined;
  const auth = headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) given = auth.slice(7).trim();
  const header = headers['x-switchboard-token'];
  if (!given && typeof header === 'string') given = header.trim();
  if (!given) {
    const q = url.indexOf('?');
    if (q !== -1) given = new URLSearchParams(url.slice(q + 1)).get('token') ?? undefined;
  }
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new ApiError(
      'invalid_admin_token',
      given ? 'The admin token is wrong.' : 'The admin API needs the admin token.',
      'Send it as "Authorization: Bearer <token>"; `switchboard serve` prints where it is kept (admin-token beside config.json).',
    );
  }
}
