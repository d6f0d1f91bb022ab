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

export type MockHandler = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  chunks: Buffer[],
  receivedAt: number,
) => void;

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

/** A streamed reply's events (or pieces of one: only an event's last piece counts as the event being sent). */
export type StreamItem = string | { text: string; endsEvent: boolean };

export type StreamPlan = {
  /** Cut the connection once this many events have reached the socket (0: right after the headers). */
  failAfter?: number;
  /** Delay before the next item, given how many items were written so far. */
  delayMs?: number | ((written: number) => number);
  /** Told after each write (e.g. to timestamp chunks). */
  onWrite?: () => void;
};

/** Writes a reply's items one by one, with delays and a mid-stream cut on demand; the headers are the caller's. */
export function writeStream(
  res: http.ServerResponse,
  later: MockHttp['later'],
  items: StreamItem[],
  plan: StreamPlan = {},
): void {
  const { failAfter } = plan;
  if (failAfter !== undefined && failAfter <= 0) {
    res.flushHeaders();
    later(() => res.destroy(), 0);
    return;
  }
  let next = 0;
  let events = 0;
  const step = (): void => {
    // A pipelined response has no socket until the ones before it finish: that is not "gone".
    while (!res.destroyed && !res.writableEnded && res.socket?.destroyed !== true) {
      const item = items[next++]!;
      const text = typeof item === 'string' ? item : item.text;
      const endsEvent = typeof item === 'string' || item.endsEvent;
      if (endsEvent) events++;
      if (failAfter !== undefined && endsEvent && events >= failAfter) {
        // Destroy only once the event has reached the socket, so the client sees exactly N events.
        res.write(text, () => res.destroy());
        plan.onWrite?.();
        return;
      }
      res.write(text);
      plan.onWrite?.();
      if (next === items.length) return void res.end();
      const delay = typeof plan.delayMs === 'function' ? plan.delayMs(next) : (plan.delayMs ?? 0);
      if (delay > 0) return later(step, delay);
    }
  };
  step();
}

/** A request body as the mocks record it: parsed JSON, else the raw text; undefined when empty. */
export function parseBodyText(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
