// Shared shapes for the OS "who owns this socket" lookup and the per-platform implementations behind it.

/** A TCP connection as seen from OUR server socket: local = our listening side, remote = the client's side. */
export type SocketPair = {
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remotePort: number;
};

/** The OS process found; `name` is the bare process name (comm, lsof command, or Windows image name). */
export type ProcessInfo = { pid: number; name: string; exe?: string };

/** One platform's way of answering both questions. Implementations may throw; the entry point catches. */
export type PlatformProcessLookup = {
  clientProcess(pair: SocketPair, signal: AbortSignal): Promise<ProcessInfo | null>;
  listeningProcess(port: number, signal: AbortSignal): Promise<ProcessInfo | null>;
};
