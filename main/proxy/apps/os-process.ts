// Entry point: which OS process is on the other end of a local connection, or listening on a port.
import { darwinProcessLookup } from './darwin.ts';
import { withDeadline } from './deadline.ts';
import { linuxProcessLookup } from './linux.ts';
import { isLoopbackAddress } from './socket-address.ts';
import type { PlatformProcessLookup, ProcessInfo, SocketPair } from './types.ts';
import { win32ProcessLookup } from './win32.ts';

export { bareAppName } from '../../../shared/app-name.ts';
export type { ProcessInfo, SocketPair } from './types.ts';

export type OsLookupOptions = {
  /** Give up (resolve null, kill any spawned command) after this long. Default 250 ms. */
  timeoutMs?: number;
  /** Which implementation to use; defaults to `process.platform`. */
  platform?: NodeJS.Platform;
};

const defaultTimeoutMs = 250;

const lookupsByPlatform: Partial<Record<NodeJS.Platform, PlatformProcessLookup>> = {
  linux: linuxProcessLookup,
  darwin: darwinProcessLookup,
  win32: win32ProcessLookup,
};

/**
 * The process on the client end of a connection accepted by our server: its socket's local end is
 * `pair.remoteAddress:remotePort` and its remote end is `pair.localAddress:localPort`.
 * Never throws. Null for non-loopback clients (checked before any I/O), unsupported platforms,
 * timeouts, permission problems, and connections whose owner cannot be found.
 */
export function lookupClientProcess(pair: SocketPair, opts: OsLookupOptions = {}): Promise<ProcessInfo | null> {
  const lookup = lookupsByPlatform[opts.platform ?? process.platform];
  if (!lookup || !isValidPair(pair) || !isLoopbackAddress(pair.remoteAddress)) return Promise.resolve(null);
  return withDeadline(opts.timeoutMs ?? defaultTimeoutMs, (signal) => lookup.clientProcess(pair, signal));
}

/** The process listening on TCP `port` (any local address), for "port 11434 is in use by ..." messages. */
export function findListeningProcess(port: number, opts: OsLookupOptions = {}): Promise<ProcessInfo | null> {
  const lookup = lookupsByPlatform[opts.platform ?? process.platform];
  if (!lookup || !isValidPort(port)) return Promise.resolve(null);
  return withDeadline(opts.timeoutMs ?? defaultTimeoutMs, (signal) => lookup.listeningProcess(port, signal));
}

/** Guards against a destroyed socket, whose address fields are undefined at run time despite the types. */
function isValidPair(pair: SocketPair): boolean {
  return (
    typeof pair.localAddress === 'string' &&
    typeof pair.remoteAddress === 'string' &&
    isValidPort(pair.localPort) &&
    isValidPort(pair.remotePort)
  );
}

function isValidPort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port <= 65535;
}
