// Test support: the HTTP plumbing every mock provider shares: a loopback server that collects request bodies,
// timers that close() cancels, and a close() that also cuts open (even hanging) connections.
import http from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export type MockHttp = {
  port: number;
  /** Runs fn after ms unless the mock is closed first. */
  later(fn: () => void, ms: number): void;
  /** Closes the server and destroys every open socket, hanging requests included. */
  close(): Promise<void>;
};

export type MockHandler = (req: http.IncomingMessage, res: http.ServerResponse, chunks: Buffer[], receivedAt: number) => void;

export async function startMockHttp(port: number | undefined, handle: MockHandler): Promise<MockHttp> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer({ keepAlive: true, noDelay: true }, (req, res) => {
    const receivedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, chunks, receivedAt));
  });
  // Long enough that a benchmark's keep-alive pool never races an idle close between runs.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as { port: number }).port,
    later(fn, ms) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closing;
    },
  };
}
