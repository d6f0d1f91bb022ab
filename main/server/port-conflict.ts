// When listen_port is taken: find out who holds it (Ollama answers /api/version) and say how to fix it.
import { request } from 'undici';
import { findListeningProcess } from '../proxy/apps/os-process.ts';

export type PortHolder =
  | { kind: 'ollama'; version: string }
  | { kind: 'switchboard' }
  | { kind: 'process'; name: string; pid: number }
  | { kind: 'unknown' };

export async function identifyPortHolder(port: number, host = '127.0.0.1'): Promise<PortHolder> {
  try {
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

/** The message for a port conflict: who, and two ways out. Pure, so the desktop shell can show it too. */
export function portConflictMessage(port: number, holder: PortHolder, configPath: string): string {
  const next = port === 65535 ? port - 1 : port + 1;
  const moveUs = `set "listen_port": ${next} in ${configPath} (or run \`switchboard serve --port ${next}\`) and point your clients at http://localhost:${next}/v1`;
  switch (holder.kind) {
    case 'ollama':
      return (
        `Port ${port} is in use by Ollama ${holder.version}. Either ${moveUs}, ` +
        `or move Ollama to another port (set OLLAMA_HOST=127.0.0.1:11435 and restart it) and add it to Switchboard as a provider ` +
        `with "type": "ollama" and "base_url": "http://127.0.0.1:11435" (the "local" template), so Switchboard can take ${port}.`
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
  ) {
    super(message);
    this.name = 'PortInUseError';
  }
}
