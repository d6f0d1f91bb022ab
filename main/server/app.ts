// The server's request listener: the hot path on Node's own objects, everything else through the Hono app
// (main/server/http-app.ts), which is loaded on the first request that needs it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { logger } from '../observability/logger.ts';
import { openaiChatDoor } from './doors.ts';
import { handleFrontDoor } from './front-door.ts';
import { errorBodyFor, targetOf } from './error-body.ts';
import { CHAT_ROUTE, observeRaw } from './route-label.ts';
import { ApiError } from '../errors.ts';
import { checkOrigin, checkProxyHost } from './guards.ts';
import { listenerLimits } from './listener.ts';
import { REALTIME_PATH } from '../gateway/front-doors.ts';
import { isGatewayMode } from '../gateway/gateway.ts';
import type { realtimeUpgrade } from '../gateway/realtime.ts';
import type { AppDeps } from './http-app.ts';

export type { AppDeps } from './http-app.ts';

/** An error written on the raw response, in the shape of the request's family (error-body.ts); the connection closes. */
function sendError(req: IncomingMessage, res: ServerResponse, e: ApiError): void {
  const { path, query } = targetOf(req.url ?? '/');
  const body = JSON.stringify(errorBodyFor(path, req.headers, query, e));
  res.writeHead(e.status, { 'content-type': 'application/json', connection: 'close' }).end(body);
}

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The server's request listener. POST /v1/chat/completions, the hot path, runs on the raw Node request and
 * response (no Request/Response objects, no web streams, which cost several times the CPU); everything else is Hono.
 * The Hono app is loaded by the first request that is not the hot path (a start that is asked only for chat
 * completions never loads it): ~35 ms of a start's ~130 ms of its own on these machines (docs/PERFORMANCE.md).
 */
export function buildRequestListener(deps: AppDeps): NodeListener & {
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  limits: () => ReturnType<typeof listenerLimits>;
} {
  let hono: NodeListener | null = null;
  let loading: Promise<NodeListener> | null = null;
  const loadHono = (): Promise<NodeListener> =>
    (loading ??= import('./http-app.ts').then((m) => (hono = m.honoListener(deps))));
  const viaHono = (req: IncomingMessage, res: ServerResponse): void => {
    loadHono().then(
      (h) => h(req, res),
      (err: unknown) => {
        loading = null; // tried again by the next request
        logger.error({ err }, 'cannot load the HTTP app');
        const e = new ApiError('internal_error', 'The server could not load its HTTP routes.', 'See the log.');
        if (!res.headersSent) sendError(req, res, e);
      },
    );
  };
  const metrics = deps.agents?.metrics;
  // The hot path is counted in the HTTP metrics as Hono's routes are: one counter and one histogram per request.
  const hot = async (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    await handleFrontDoor(openaiChatDoor, req, res, deps.engine());
    if (metrics) observeRaw(metrics, 'POST', CHAT_ROUTE, t0, res);
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    // HTTP/1.1 requires a Host (RFC 9112 §3.2); Node's own refusal has no body, so the listener lets it through
    // (requireHostHeader: false) and it is refused here, in the route's shape. HTTP/1.0 may omit it.
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      const e = new ApiError(
        'invalid_request',
        'An HTTP/1.1 request must carry a Host header.',
        'Send the Host header (every HTTP client does): the address you connect to, such as localhost:11434.',
      );
      return void sendError(req, res, e);
    }
    if (req.method === 'POST' && url.startsWith('/v1/chat/completions') && (url.length === 20 || url[20] === '?')) {
      void hot(req, res);
      return;
    }
    if (hono) hono(req, res);
    else viaHono(req, res);
  };
  // WebSocket upgrades (/v1/realtime): the Listener wires this to the server's 'upgrade' event.
  // The server's host and origin guards run before the gateway's realtime proxy looks at the request.
  const guard = async (req: IncomingMessage): Promise<void> => {
    const config = deps.engine().config;
    if (!isGatewayMode(config, req)) await checkProxyHost(req.headers, config.allowed_hosts);
    checkOrigin(req.headers, config.allowed_origins);
  };
  // The realtime proxy (and the ws package) is loaded on the first WebSocket upgrade, not at start.
  let realtime: Promise<ReturnType<typeof realtimeUpgrade>> | null = null;
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const { path, query } = targetOf(req.url ?? '/');
    if (path !== REALTIME_PATH) {
      // An upgrade asked of any other route: 404 in the shape of that route's family (found by the fuzz: it came in
      // OpenAI's shape on Gemini's and the agent API's paths).
      const e = new ApiError('not_found', `No WebSocket route ${path}.`, `Connect to ${REALTIME_PATH}?model=<model>.`);
      const body = JSON.stringify(errorBodyFor(path, req.headers, query, e));
      socket.end(
        `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
      return;
    }
    realtime ??= import('../gateway/realtime.ts').then((m) => m.realtimeUpgrade({ engine: deps.engine, guard }));
    void realtime.then((handle) => handle(req, socket, head)).catch(() => socket.destroy());
  };
  return Object.assign(listener, {
    upgrade,
    limits: () => listenerLimits(deps.engine().config),
  });
}
