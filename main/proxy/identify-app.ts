// Who is calling: a header, X-Title, an `app:<name>` key, the process owning the socket, then the User-Agent.
import type { IncomingMessage } from 'node:http';
import type { AppSource } from '../../shared/admin.ts';
import { APP_NAME_MAX } from '../../shared/app-name.ts';
import { identifyOnce } from './apps/connection-cache.ts';
import { lookupClientProcess } from './apps/os-process.ts';

export type AppIdentity = { name: string; source: AppSource };

/** A name as a client sent it, cut to APP_NAME_MAX characters (the request log, metrics and usage keep no more). */
const capped = (name: string): string => (name.length > APP_NAME_MAX ? name.slice(0, APP_NAME_MAX) : name);

/** The app named by the request itself (headers or key), without touching the OS. */
export function appFromHeaders(req: IncomingMessage): AppIdentity | null {
  const h = req.headers;
  const explicit = h['x-switchboard-app'];
  if (typeof explicit === 'string' && explicit.trim()) return { name: capped(explicit.trim()), source: 'header' };
  const title = h['x-title'];
  if (typeof title === 'string' && title.trim()) return { name: capped(title.trim()), source: 'x-title' };
  const auth = h.authorization;
  let key = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
  if (!key && typeof h['x-api-key'] === 'string') key = h['x-api-key'].trim();
  if (key && key.startsWith('app:') && key.length > 4) return { name: capped(key.slice(4)), source: 'api-key' };
  return null;
}

export function appFromUserAgent(req: IncomingMessage): AppIdentity | null {
  const ua = req.headers['user-agent'];
  if (!ua) return null;
  const m = /^\s*([^\s/;()]+)/.exec(ua);
  return m ? { name: capped(m[1]!), source: 'user-agent' } : null;
}

export type IdentifyOptions = {
  /** Does an app rule name this app? (bare, case-insensitive names) */
  hasRule: ((name: string) => boolean) | null;
  timeoutMs: number;
};

/**
 * Tries each method in order and returns the first name an app rule matches; when no rule matches, the first
 * name found (for the log). With no app rules at all, nothing is looked up beyond the headers and User-Agent.
 * The OS lookup runs only when app rules exist and no earlier method matched one, and once per connection.
 */
export async function identifyApp(req: IncomingMessage, opts: IdentifyOptions): Promise<AppIdentity | null> {
  const named = appFromHeaders(req);
  const hasRule = opts.hasRule;
  if (!hasRule) return named ?? appFromUserAgent(req);
  if (named && hasRule(named.name)) return named;
  let first = named;
  const socket = req.socket;
  const proc = await identifyOnce(socket, () =>
    lookupClientProcess(
      {
        localAddress: socket.localAddress ?? '',
        localPort: socket.localPort ?? 0,
        remoteAddress: socket.remoteAddress ?? '',
        remotePort: socket.remotePort ?? 0,
      },
      { timeoutMs: opts.timeoutMs },
    ),
  );
  if (proc) {
    const byProcess: AppIdentity = { name: proc.name, source: 'process' };
    if (hasRule(proc.name)) return byProcess;
    first ??= byProcess;
  }
  const ua = appFromUserAgent(req);
  if (ua && hasRule(ua.name)) return ua;
  return first ?? ua;
}
