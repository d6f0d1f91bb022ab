// Test support: the HTTP plumbing every mock provider shares: a loopback server that collects request bodies,
// timers that close() cancels, and a close() that also cuts open (even hanging) connections; and what every mock
// keeps and offers besides (the behaviour knobs they all have, the recorded requests, the failTimes budget).
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

/** True once the client is gone or the reply is over: delayed work must then do nothing. */
export function finished(res: http.ServerResponse): boolean {
  // A pipelined response has no socket until the ones before it finish: that is not "gone".
  return res.destroyed || res.writableEnded || res.socket?.destroyed === true;
}

/** Answers with a JSON text and its length; `headers` add to the content-type (or replace it: vendors differ). */
export function sendJsonText(
  res: http.ServerResponse,
  status: number,
  text: string,
  headers: http.OutgoingHttpHeaders = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Splits text into up to `n` non-empty pieces of about equal length (a tool call's arguments, streamed). */
export function splitInto(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
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
    while (!finished(res)) {
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

/** The behaviour knobs every mock provider has (each adds its own), so a test can give every mock the same one. */
export type CommonBehavior = {
  /** Reply pieces; default ['Hello', ' from', ' <name>']. */
  tokens?: string[];
  /** Delay between the events of a stream (SSE events, JSON-array elements, NDJSON lines); default 0. */
  chunkDelayMs?: number;
  /** Answer this status with the vendor's error body. */
  status?: number;
  /** With status: fail only the first N chat requests, then behave normally. */
  failTimes?: number;
  /** Stream: send N events, then destroy the socket mid-stream. */
  failAfterChunks?: number;
  /** Reply with this tool call instead of text. */
  toolCall?: { name: string; arguments: object };
  /** Reply with these tool calls, all in one reply (parallel calls), instead of text; wins over toolCall. */
  toolCalls?: { name: string; arguments: object }[];
  /** Ids for the model list; the default is each mock's own (['mock-model'] for most). */
  models?: string[];
  /**
   * With status: the error's message, made from the request's headers (a provider that echoes the credential it
   * refused). mock-provider and mock-anthropic; mock-anthropic's `event: error` (errorEventAfterChunks) says it too.
   */
  errorMessage?: (headers: http.IncomingHttpHeaders) => string;
  /** With status: this text/html page, made from the request's headers, instead of the error JSON (mock-provider). */
  errorPage?: (headers: http.IncomingHttpHeaders) => string;
  /** Headers added to every chat reply, failed or not (e.g. x-ratelimit-remaining-requests: "0"). */
  replyHeaders?: Record<string, string>;
  /** Keys refused with 401 (a revoked key), read from Authorization: Bearer or x-api-key. */
  rejectKeys?: string[];
};

/** The key a request carries: x-api-key, else Authorization's Bearer token. */
export function requestKey(headers: http.IncomingHttpHeaders): string | undefined {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x !== '') return x;
  return /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
}

/** Sets a behaviour's replyHeaders on the reply (before writeHead, which merges them). */
export function setReplyHeaders(res: http.ServerResponse, b: CommonBehavior): void {
  for (const [name, value] of Object.entries(b.replyHeaders ?? {})) res.setHeader(name, value);
}

/** The tool calls a behaviour answers with: toolCalls, else toolCall alone, else none. */
export function callsOf(b: CommonBehavior): { name: string; arguments: object }[] {
  return b.toolCalls ?? (b.toolCall ? [b.toolCall] : []);
}

/** A request as every mock records it (some mocks add fields). */
export type RecordedHttpRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON; the raw text when the body is not JSON; undefined when there is no body. */
  body: any;
};

/** What every mock provider hands a test (some mocks add fields). */
export type MockServer<Behavior, Recorded> = {
  name: string;
  port: number;
  /** What a provider config's base_url is for this mock. */
  baseUrl: string;
  /** Every request, in order. */
  requests: Recorded[];
  /** Number of chat requests received. */
  chatCount(): number;
  /** Replaces the behaviour for later requests and restarts the failTimes count. */
  setBehavior(b: Behavior): void;
  /** Closes the server and destroys every open socket, hanging requests included. */
  close(): Promise<void>;
};

/** What a mock keeps between requests: the behaviour it was last given, the requests, its chat and failure counts. */
export class MockState<Behavior extends CommonBehavior, Recorded> {
  behavior: Behavior;
  readonly requests: Recorded[] = [];
  chats = 0;
  private failuresSent = 0;

  constructor(behavior: Behavior) {
    this.behavior = behavior;
  }

  setBehavior(b: Behavior): void {
    this.behavior = b;
    this.failuresSent = 0;
  }

  /**
   * Whether `b` answers this request with its status: always without failTimes, else until failTimes failures have
   * gone out since the last setBehavior(). Only a request that `counts` (a chat request) spends one.
   */
  failing(b: Behavior, counts: boolean): boolean {
    const failing = b.status !== undefined && (b.failTimes === undefined || this.failuresSent < b.failTimes);
    if (failing && counts) this.failuresSent++;
    return failing;
  }

  /** The fields every mock returns, over its started server. */
  handle(name: string, server: MockHttp, baseUrl: string): MockServer<Behavior, Recorded> {
    return {
      name,
      port: server.port,
      baseUrl,
      requests: this.requests,
      chatCount: () => this.chats,
      setBehavior: (b) => this.setBehavior(b),
      close: () => server.close(),
    };
  }
}
