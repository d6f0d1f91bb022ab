// When listen_port is taken: find out who holds it (Ollama answers /api/version) and say how to fix it.
import net from 'node:net';
import { findListeningProcess } from '../proxy/apps/os-process.ts';

export type PortHolder =
  | { kind: 'ollama'; version: string }
  | { kind: 'switchboard' }
  | { kind: 'process'; name: string; pid: number }
  | { kind: 'unknown' };

export async function identifyPortHolder(port: number, host = '127.0.0.1'): Promise<PortHolder> {
  try {
    const { request } = await import('undici'); // only when the port is taken
    const res = await request(`http://${host.includes(':') ? `[${host}]` : host}:${port}/api/version`, {
      headersTimeout: 1000,
      bodyTimeout: 1000,
      signal: AbortSignal.timeout(1500),
    });
    const text = await res.body.text();
    if (res.headers['x-switchboard-version'] || /Switchboard/.test(String(res.headers['server'] ?? '')))
      return { kind: 'switchboard' };
    if (res.statusCode === 200) {
      const v = (JSON.parse(text) as { version?: unknown }).version;
      if (typeof v === 'string') return { kind: 'ollama', version: v };
    }
  } catch {
    // not an HTTP server that answers like Ollama
  }
  const proc = await findListeningProcess(port, { timeoutMs: 1500 }).catch(() => null);
  if (proc) return { kind: 'process', name: proc.name, pid: proc.pid };
  return { kind: 'unknown' };
}

/** Binds port on host and closes at once: null when it could be bound, else the error (EADDRINUSE, EACCES...). */
export function tryBind(port: number, host: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** How many ports after a taken one are tried for a suggestion. */
const SUGGESTION_TRIES = 20;

/**
 * A port near `port` that can be bound on `host` now (the next ones up, then down), to suggest instead of a taken
 * one; null when none of the SUGGESTION_TRIES nearest is free.
 */
export async function freePortNear(port: number, host: string): Promise<number | null> {
  for (let i = 1; i <= SUGGESTION_TRIES; i++) {
    for (const p of [port + i, port - i]) {
      if (p < 1024 || p > 65535) continue;
      if ((await tryBind(p, host)) === null) return p;
    }
  }
  return null;
}

/**
 * The message for a port conflict: who, and two ways out. Pure, so the desktop shell can show it too. `suggested`
 * is a port checked free just now (freePortNear), or null when none was found near.
 */
export function portConflictMessage(
  port: number,
  holder: PortHolder,
  configPath: string,
  suggested: number | null,
): string {
  const next = suggested ?? 'a free port';
  const moveUs =
    suggested === null
      ? `set "listen_port" in ${configPath} to a free port (or run \`switchboard serve --port <port>\`) and point your clients at it`
      : `set "listen_port": ${next} in ${configPath} (or run \`switchboard serve --port ${next}\`; it is free now) and point your clients at http://localhost:${next}/v1`;
  const ollamaPort = suggested ?? 11435;
  switch (holder.kind) {
    case 'ollama':
      return (
        `Port ${port} is in use by Ollama ${holder.version}. Either ${moveUs}, ` +
        `or move Ollama to another port (set OLLAMA_HOST=127.0.0.1:${ollamaPort} and restart it) and add it to Switchboard as a provider ` +
        `with "type": "ollama" and "base_url": "http://127.0.0.1:${ollamaPort}" (the "local" template), so Switchboard can take ${port}.`
      );
    case 'switchboard':
      return `Port ${port} is in use by another Switchboard that is already running. Use that one, stop it, or ${moveUs}.`;
    case 'process':
      return `Port ${port} is in use by ${holder.name} (pid ${holder.pid}). Stop it, or ${moveUs}.`;
    default:
      return `Port ${port} is in use by another program. Stop it, or ${moveUs}.`;
  }
}

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly holder: PortHolder,
    message: string,
    /** A port near it that was free when the conflict was found (null: none near). */
    readonly suggested: number | null = null,
  ) {
    super(message);
    this.name = 'PortInUseError';
  }
}
