// Who is calling: a header, X-Title, an `app:<name>` key, the process owning the socket, then the User-Agent.
import type { IncomingMessage } from 'node:http';
import type { AppSource } from '../../shared/admin.ts';
import { identifyOnce } from './apps/connection-cache.ts';
import { lookupClientProcess } from './apps/os-process.ts';

export type AppIdentity = { name: string; source: AppSource };

/** The app named by the request itself (headers or key), without touching the OS. */
export function appFromHeaders(req: IncomingMessage): AppIdentity | null {
  const h = req.headers;
  const explicit = h['x-switchboard-app'];
  if (typeof explicit === 'string' && explicit.trim()) return { name: explicit.trim(), source: 'header' };
  const title = h['x-title'];
  if (typeof title === 'string' && title.trim()) return { name: title.trim(), source: 'x-title' };
  const auth = h.authorization;
  let key = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
  if (!key && typeof h['x-api-key'] === 'string') key = h['x-api-key'].trim();
  if (key && key.startsWith('app:') && key.length > 4) return { name: key.slice(4), source: 'api-key' };
  return null;
}

export function appFromUserAgent(req: IncomingMessage): AppIdentity | null {
  const ua = req.headers['user-agent'];
  if (!ua) return null;
  const m = /^\s*([^\s/;()]+)/.exec(ua);
  return m ? { name: m[1]!, source: 'user-agent' } : null;
}

export type IdentifyOptions = { processLookup: boolean; timeoutMs: number };

/**
 * The full chain. The OS lookup runs only when `processLookup` is set (an app rule could apply), only when no
 * header named the app, and once per connection (keep-alive requests share the answer).
 */
export async function identifyApp(req: IncomingMessage, opts: IdentifyOptions): Promise<AppIdentity | null> {
  const named = appFromHeaders(req);
  if (named) return named;
  if (opts.processLookup) {
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
    if (proc) return { name: proc.name, source: 'process' };
  }
  return appFromUserAgent(req);
}
