// Runs a per-connection lookup once: every request on a keep-alive socket shares the first call's promise.
import type net from 'node:net';

const lookupsBySocket = new WeakMap<net.Socket, Promise<unknown>>();

/**
 * The first call for `socket` starts `lookup`; concurrent and later calls on the same socket get the same
 * promise (even a rejected one: the lookup is not retried on that connection). Entries go away with the
 * socket. The cache is process-wide and holds one value per socket: it is meant for the one identity
 * lookup (which application is on this connection), not for several different questions.
 */
export function identifyOnce<T>(socket: net.Socket, lookup: () => Promise<T>): Promise<T> {
  const existing = lookupsBySocket.get(socket);
  if (existing) return existing as Promise<T>;
  const started = Promise.resolve().then(lookup);
  lookupsBySocket.set(socket, started);
  return started;
}
