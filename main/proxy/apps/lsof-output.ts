// Parses `lsof -F pcn` field output (macOS) and picks the process owning a connection or listener (pure).
import { isSameEndpoint, parseEndpoint, type Endpoint } from './socket-address.ts';
import type { SocketPair } from './types.ts';

export type LsofSocket = { local: Endpoint; remote: Endpoint | null };
export type LsofProcess = { pid: number; command: string; sockets: LsofSocket[] };

/**
 * One entry per `p` line. Field lines start with their one-letter id: `p` pid, `c` command,
 * `n` name (`127.0.0.1:52344->127.0.0.1:11434`, `[::1]:11434`, `*:11434`); other fields (`f`, `t`, ...)
 * are ignored, so the output of any `-F` selection that includes p, c and n can be parsed.
 */
export function parseLsofFields(text: string): LsofProcess[] {
  const processes: LsofProcess[] = [];
  let current: LsofProcess | undefined;
  for (const line of text.split(/\r?\n/)) {
    const field = line[0];
    const value = line.slice(1);
    if (field === 'p') {
      const pid = Number(value);
      current = Number.isInteger(pid) && pid > 0 ? { pid, command: '', sockets: [] } : undefined;
      if (current) processes.push(current);
    } else if (field === 'c' && current) {
      current.command = value;
    } else if (field === 'n' && current) {
      const socket = parseLsofName(value);
      if (socket) current.sockets.push(socket);
    }
  }
  return processes;
}

/** `local->remote` or just `local` for a listener; a trailing ` (STATE)` is tolerated. */
function parseLsofName(name: string): LsofSocket | null {
  const [localText = '', remoteText] = name.replace(/\s+\([^)]*\)$/, '').split('->');
  const local = parseEndpoint(localText);
  if (!local) return null;
  if (remoteText === undefined) return { local, remote: null };
  const remote = parseEndpoint(remoteText);
  return remote ? { local, remote } : null;
}

/** The process whose socket has the client's side as LOCAL and our side as REMOTE (not our own end). */
export function pickClientOwner(processes: readonly LsofProcess[], pair: SocketPair): LsofProcess | null {
  const isClientEnd = (socket: LsofSocket): boolean =>
    socket.remote !== null &&
    isSameEndpoint(socket.local, pair.remoteAddress, pair.remotePort) &&
    isSameEndpoint(socket.remote, pair.localAddress, pair.localPort);
  return processes.find((p) => p.command !== '' && p.sockets.some(isClientEnd)) ?? null;
}

/** The first process with a listening socket (no remote end) on `port`. */
export function pickListener(processes: readonly LsofProcess[], port: number): LsofProcess | null {
  const isListener = (socket: LsofSocket): boolean => socket.remote === null && socket.local.port === port;
  return processes.find((p) => p.command !== '' && p.sockets.some(isListener)) ?? null;
}
