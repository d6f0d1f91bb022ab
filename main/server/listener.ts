// The HTTP listener: binds listen_port, rebinds on a port change, and turns EADDRINUSE into a helpful error; caps
// open connections (max_connections) and answers a body that stops arriving (body_idle_timeout_ms) with a 408.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';
import { logger } from '../observability/logger.ts';
import { errorBodyFor } from './error-body.ts';
import { PortInUseError, freePortNear, identifyPortHolder, portConflictMessage } from './port-conflict.ts';

/** The server's own limits, read from config.json at every new connection (so a reload applies to the next ones). */
export type ListenerLimits = { maxConnections: number; bodyIdleMs: number };
export const listenerLimits = (config: Config): ListenerLimits => ({
  maxConnections: config.max_connections,
  bodyIdleMs: config.body_idle_timeout_ms,
});

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export class Listener {
  private server: http.Server | null = null;
  port = 0;
  host = '127.0.0.1';

  constructor(
    private readonly handler: RequestHandler,
    private readonly configPath: string,
  ) {}

  get url(): string {
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${h}:${this.port}`;
  }

  /**
   * Binds; on EADDRINUSE rejects with a PortInUseError that says who holds the port and how to fix it. A rebind
   * calls `onBound` once the new port is bound, before the old one is closed (closing waits for open requests).
   */
  async listen(port: number, host: string, onBound?: () => void): Promise<void> {
    const server = http.createServer(
      // requireHostHeader: a request without Host is refused by the app, in the route's own shape (app.ts).
      { keepAliveTimeout: 30_000, requestTimeout: 300_000, requireHostHeader: false },
      this.handler,
    );
    // WebSocket upgrades go to the handler's `upgrade` (the realtime proxy), or are refused.
    const upgrade = (this.handler as { upgrade?: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void })
      .upgrade;
    server.on('upgrade', (req, socket, head) => {
      if (!upgrade) return void socket.destroy();
      upgradedSockets.add(socket);
      socket.once('close', () => upgradedSockets.delete(socket));
      upgrade(req, socket, head);
    });
    server.headersTimeout = 60_000;
    server.on('clientError', answerClientError);
    const limits = (this.handler as { limits?: () => ListenerLimits }).limits;
    if (limits) guardConnections(server, limits);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => reject(err);
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        resolve();
      });
    }).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        const holder = await identifyPortHolder(port, host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);
        const free = await freePortNear(port, host);
        throw new PortInUseError(port, holder, portConflictMessage(port, holder, this.configPath, free), free);
      }
      throw err;
    });
    const old = this.server;
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    this.host = host;
    onBound?.();
    if (old) await closeServer(old);
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await closeServer(s);
  }
}

/**
 * At most max_connections open at once (0: no cap): a new one beyond it is closed as soon as it is accepted, and the
 * log says why (once a minute at most). A connection whose request body stops arriving for body_idle_timeout_ms gets
 * 408 request_timeout from the route reading it (in the route's own error shape), then is closed; the socket idle
 * timeout is server.timeout, so it costs nothing per request. A request whose body is whole is never cut by it: a
 * slow provider's stream may pause longer (timeouts.idle_ms governs that). The whole request, body included, still
 * has requestTimeout (300 s). Both settings are read at every new connection, so a reload applies to the next ones.
 */
function guardConnections(server: http.Server, limits: () => ListenerLimits): void {
  server.timeout = limits().bodyIdleMs;
  let open = 0;
  let warnedAt = -Infinity;
  server.on('connection', (socket: Socket) => {
    const l = limits();
    if (l.maxConnections > 0 && open >= l.maxConnections) {
      socket.destroy();
      if (performance.now() - warnedAt < 60_000) return;
      warnedAt = performance.now();
      logger.warn(
        `refused a connection: ${open} are open, the most max_connections in config.json allows; raise it if this load is expected`,
      );
      return;
    }
    open++;
    socket.once('close', () => open--);
    server.timeout = l.bodyIdleMs; // what Node gives the socket again after each keep-alive pause
    socket.setTimeout(l.bodyIdleMs);
  });
  server.on('timeout', (socket: Socket) => onIdle(socket, limits().bodyIdleMs));
}

/** Node's own handles on a server socket: the request being parsed and the response being written. */
type HttpSocket = Socket & {
  parser?: { incoming?: http.IncomingMessage | null } | null;
  _httpMessage?: http.ServerResponse | null;
};

function onIdle(socket: Socket, idleMs: number): void {
  const req = (socket as HttpSocket).parser?.incoming;
  const res = (socket as HttpSocket)._httpMessage;
  // No request in flight: a keep-alive connection between requests (keepAliveTimeout), or headers that never came.
  if (!req || !res) return void socket.destroy();
  if (req.complete) return; // the body is whole: the reply may take its time
  // Already answered (a 413 still draining), or nobody is reading the body: there is no one to tell.
  if (res.headersSent || req.listenerCount('error') === 0) return void socket.destroy();
  const path = (req.url ?? '').split('?')[0]; // never the query: it may carry a key (?key=, ?token=)
  logger.info(`${req.method} ${path}: 408, no body bytes for ${idleMs} ms (body_idle_timeout_ms)`);
  res.shouldKeepAlive = false; // the answer goes out with Connection: close
  // The body's reader (readBody, the multipart spool) rejects with it, so the route answers in its own shape.
  req.emit(
    'error',
    new ApiError(
      'request_timeout',
      `No request body bytes arrived for ${idleMs} ms, so the request was given up.`,
      'Send the whole body without pausing, or raise body_idle_timeout_ms in config.json.',
    ),
  );
}

/** Sockets handed to the upgrade handler (open WebSocket sessions). */
const upgradedSockets = new Set<Duplex>();

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Streams in flight get a moment to finish; then every connection is cut so close() never hangs.
    setTimeout(() => {
      server.closeAllConnections();
      for (const s of upgradedSockets) s.destroy(); // WebSockets are not the HTTP server's to close
    }, 2_000).unref();
  });
}

/** The error Node's HTTP parser raised: its code, and the bytes it was reading when it gave up. */
type ParserError = Error & { code?: string; rawPacket?: Buffer };

/** What each refusal of the parser is, as Node's own answer says it (431, 413, 408, else 400). */
function parserRefusal(err: ParserError): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'invalid_request',
        'The request headers are over 16 KB, more than this server reads.',
        'Send fewer or shorter headers (a long cookie or a pasted token is the usual cause).',
        undefined,
        431,
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('body_too_large', 'The chunk extensions of the request body are too long.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'The whole request did not arrive in time.');
    case 'HPE_INVALID_METHOD':
      return new ApiError(
        'invalid_request',
        'The request method is not an HTTP method this server reads.',
        "Send GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS: see the reference (docs/README.md) for each endpoint's.",
      );
    default:
      return new ApiError(
        'invalid_request',
        `The request is not well-formed HTTP (${err.code ?? err.message}).`,
        'Send a well-formed HTTP/1.1 request: one Content-Length or Transfer-Encoding, valid header names and values, a path without spaces or control characters.',
      );
  }
}

/**
 * What the request line and headers of the refused bytes say, for the error's shape: the path's family (its vendor,
 * the admin or the agent API) and the headers that name a vendor elsewhere. Best effort: the bytes may start past the
 * request line (headers sent in several packets), and then the answer is in OpenAI's shape.
 */
function refusedRequest(raw: Buffer | undefined): {
  path: string;
  headers: http.IncomingHttpHeaders;
  query: URLSearchParams;
} {
  const text = raw ? raw.subarray(0, 64 * 1024).toString('latin1') : '';
  const lines = text.split('\r\n');
  const target = /^[!-~]+ (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? '')?.[1] ?? '/';
  const q = target.indexOf('?');
  let path = q === -1 ? target : target.slice(0, q);
  try {
    path = new URL(path, 'http://x').pathname;
  } catch {
    path = '/';
  }
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines.slice(1)) {
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { path, headers, query: new URLSearchParams(q === -1 ? '' : target.slice(q + 1)) };
}

/**
 * What Node's HTTP parser refuses (bad framing, an unknown method, a head over 16 KB, bytes not allowed in a path or
 * header) is answered as Node would, with its status, but with a JSON body in the error shape of the path's family,
 * which every SDK can show (Node's default is a bare "400 Bad Request" with no body); then the connection closes.
 */
function answerClientError(err: ParserError, socket: Duplex): void {
  const res = (socket as HttpSocket)._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || (res && res.headersSent)) return void socket.destroy();
  const e = parserRefusal(err);
  const r = refusedRequest(err.rawPacket);
  const body = JSON.stringify(errorBodyFor(r.path, r.headers, r.query, e));
  socket.end(
    `HTTP/1.1 ${e.status} ${http.STATUS_CODES[e.status] ?? 'Bad Request'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
