// /v1/realtime: a WebSocket proxy to the routed provider. The upstream socket is opened first (failing over to the
// next candidate on a refused or failed handshake); only then is the client's upgrade accepted, with the upstream's
// subprotocol. Messages pass both ways with their text/binary kind; a close on one side closes the other. Enforced
// budgets apply as to every model request (issue 33, item 3): a spent budget refuses the upgrade (402), and a session
// whose budget runs out meanwhile is ended at the client's next message, with the realtime API's `error` event.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { Engine } from '../proxy/engine.ts';
import { identifyApp } from '../proxy/identify-app.ts';
import { ApiError, toApiError } from '../errors.ts';
import { noRouteError } from '../proxy/request.ts';
import { REALTIME_PATH } from './front-doors.ts';
import { gatewayFor } from './gateway.ts';

/** Browsers cannot set headers on a WebSocket: OpenAI's clients send the key as this subprotocol. */
const KEY_PROTOCOL = 'openai-insecure-api-key.';

/** A close code the other side may be sent as is (1005, 1006 and 1015 are reserved for "no status"). */
export function relayableCode(code: number): boolean {
  return (
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999)
  );
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
};

/** What is wrong with a client's WebSocket handshake, as ws checks it (null: nothing). */
function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return `a WebSocket handshake is a GET, not ${req.method}`;
  if (String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'the Upgrade header is not "websocket"';
  if (!/^[+/0-9A-Za-z]{22}==$/.test(String(req.headers['sec-websocket-key'] ?? '')))
    return 'the Sec-WebSocket-Key header is missing or not 16 bytes of base64';
  const version = String(req.headers['sec-websocket-version'] ?? '');
  if (version !== '13' && version !== '8') return 'the Sec-WebSocket-Version header is not 13';
  // Subprotocols are tokens, each once (RFC 6455 §4.1): a bad list used to reach the provider's handshake and fail it
  // there (a 502 blamed on the provider).
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols !== undefined) {
    const list = String(protocols)
      .split(',')
      .map((p) => p.trim());
    if (list.some((p) => !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(p)) || new Set(list).size !== list.length)
      return 'the Sec-WebSocket-Protocol header is not a list of distinct tokens';
  }
  return null;
}

const handshakeError = (why: string): ApiError =>
  new ApiError(
    'invalid_request',
    `The WebSocket handshake is not valid: ${why.replace(/\.$/, '')}.`,
    'Connect with a WebSocket client (it sends the handshake): ws://localhost:<port>/v1/realtime?model=<model>.',
  );

function reject(socket: Duplex, e: ApiError): void {
  const body = JSON.stringify(e.toBody());
  const headers = [
    `HTTP/1.1 ${e.status} ${STATUS_TEXT[e.status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  for (const [k, v] of Object.entries(e.headers)) headers.push(`${k}: ${v}`);
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

function openUpstream(
  url: string,
  protocols: string[],
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers, handshakeTimeout: timeoutMs, perMessageDeflate: false });
    ws.once('open', () => {
      // The provider may speak first (session.created) before the client's side is accepted: keep it.
      const early: [RawData, boolean][] = [];
      const keep = (data: RawData, isBinary: boolean) => early.push([data, isBinary]);
      ws.on('message', keep);
      (ws as WebSocket & { drainEarly?: (to: WebSocket) => void }).drainEarly = (to) => {
        ws.off('message', keep);
        for (const [data, isBinary] of early) to.send(data, { binary: isBinary });
      };
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => {
      reject(new Error(`HTTP ${res.statusCode ?? 0}`));
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

/** The realtime API's error event (what OpenAI's server sends before it closes a session it ends). */
export function realtimeErrorEvent(e: ApiError): string {
  return JSON.stringify({
    type: 'error',
    event_id: `event_sb_${Date.now().toString(36)}`,
    error: { type: e.type, code: e.code, message: e.message, param: null, event_id: null },
  });
}

/** Policy violation: the session is ended because a rule (here, a budget) says so. */
const CLOSE_POLICY = 1008;

/**
 * Pipes two open sockets together until either closes. `allowed` runs before each client message is passed on: an
 * ApiError ends the session (the error event to the client, then both sockets closed), the message is not sent.
 */
function bridge(client: WebSocket, upstream: WebSocket, done: () => void, allowed: () => ApiError | null): void {
  const forward = (to: WebSocket) => (data: RawData, isBinary: boolean) => {
    if (to.readyState === WebSocket.OPEN) to.send(data, { binary: isBinary });
  };
  const toUpstream = forward(upstream);
  let ended = false;
  client.on('message', (data: RawData, isBinary: boolean) => {
    if (ended) return;
    const refusal = allowed();
    if (!refusal) return toUpstream(data, isBinary);
    ended = true;
    if (client.readyState === WebSocket.OPEN) {
      client.send(realtimeErrorEvent(refusal));
      client.close(CLOSE_POLICY, refusal.code);
    }
  });
  (upstream as WebSocket & { drainEarly?: (to: WebSocket) => void }).drainEarly?.(client);
  upstream.on('message', forward(client));
  let finished = false;
  const closeOther = (other: WebSocket, code: number, reason: Buffer) => {
    if (!finished) {
      finished = true;
      done();
    }
    if (other.readyState === WebSocket.OPEN || other.readyState === WebSocket.CONNECTING) {
      other.close(
        relayableCode(code) ? code : 1011,
        relayableCode(code) ? reason : Buffer.from('peer closed abnormally'),
      );
    }
  };
  client.on('close', (code, reason) => closeOther(upstream, code, reason));
  upstream.on('close', (code, reason) => closeOther(client, code, reason));
  if (upstream.readyState !== WebSocket.OPEN) closeOther(client, 1011, Buffer.alloc(0)); // it went away meanwhile
  client.on('error', () => client.terminate());
  upstream.on('error', () => upstream.terminate());
}

export type RealtimeDeps = {
  engine: () => Engine;
  /** The server's host and origin guards for this request (rejects with ApiError): main/server/app.ts hands them in. */
  guard: (req: IncomingMessage) => Promise<void>;
};

export function realtimeUpgrade({
  engine,
  guard,
}: RealtimeDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (_p, req) => (req as IncomingMessage & { chosenProtocol?: string }).chosenProtocol ?? false,
  });
  // Who served the session, in the handshake's response headers (as x-switchboard-provider on HTTP replies).
  wss.on('headers', (headers, req) => {
    const served = (req as IncomingMessage & { servedBy?: string }).servedBy;
    if (served) headers.push(`x-switchboard-provider: ${served}`);
  });
  // A handshake ws refuses after the provider's socket is open (a subprotocol list it cannot parse...): answered in the
  // JSON error shape, and the provider's socket and the session's slot are let go (they leaked: found by the fuzz).
  wss.on('wsClientError', (err, socket, req) => {
    const r = req as IncomingMessage & { upstream?: WebSocket; release?: () => void };
    r.upstream?.terminate();
    r.release?.();
    reject(socket, handshakeError(err.message));
  });
  return (req, socket, head) => {
    void (async () => {
      const e = engine();
      let settle: ((n: number | null) => void) | null = null;
      try {
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname !== REALTIME_PATH)
          throw new ApiError('not_found', `No WebSocket route ${url.pathname}.`, 'Connect to /v1/realtime?model=...');
        await guard(req);
        // The client's handshake is checked before the provider is asked (a bad one used to open the provider's
        // socket, then be refused by ws in text/html, the provider's socket left open).
        const problem = handshakeProblem(req);
        if (problem) throw handshakeError(problem);
        const offered = String(req.headers['sec-websocket-protocol'] ?? '')
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean);
        const keyProto = offered.find((p) => p.startsWith(KEY_PROTOCOL));
        if (keyProto && !req.headers.authorization)
          req.headers.authorization = `Bearer ${keyProto.slice(KEY_PROTOCOL.length)}`;
        const gateway = gatewayFor(e);
        const principal = await gateway.authenticate(e.config, req);
        const model = url.searchParams.get('model');
        if (!model)
          throw new ApiError(
            'model_required',
            'The realtime URL has no ?model=; Switchboard routes by it.',
            'Connect to /v1/realtime?model=<model>.',
          );
        const app = await identifyApp(req, {
          hasRule: e.router.hasAppRules ? e.router.hasAppRule : null,
          timeoutMs: 250,
        });
        const appName = app?.name ?? null;
        const route = e.router.resolve(model, appName);
        if (route.candidates.length === 0) throw noRouteError(e.router, route);
        gateway.checkModel(principal, route.model);
        // A spent enforced budget refuses the session as it refuses a chat request (402 budget_exceeded).
        e.budgets?.check(appName, principal?.name ?? null);
        // A session holds one concurrency slot and counts one request; its tokens are not estimated.
        const admission = await gateway.admit(e.config, principal, app?.name ?? null, 0);
        settle = admission ? (n) => admission.settle(n) : null;
        const upstreamProtocols = offered.filter((p) => !p.startsWith(KEY_PROTOCOL));
        const failures: string[] = [];
        let upstream: WebSocket | null = null;
        let served = '';
        for (const cand of route.candidates) {
          const p = e.pool.get(cand.provider);
          if (!p) continue;
          if (p.kind.format !== 'openai') {
            failures.push(`provider "${p.name}" (type ${p.kind.type}) does not offer /v1/realtime`);
            continue;
          }
          if (!p.breaker.allow()) {
            failures.push(`${p.name}: circuit open: skipped`);
            continue;
          }
          const target = new URL(`${p.baseUrl.href.replace(/\/+$/, '')}/realtime`);
          target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
          url.searchParams.forEach((v, k) => target.searchParams.set(k, v));
          target.searchParams.set('model', route.model);
          const headers: Record<string, string> = { ...p.requestHeaders() };
          const beta = req.headers['openai-beta'];
          if (typeof beta === 'string') headers['openai-beta'] = beta;
          const t0 = performance.now();
          try {
            upstream = await openUpstream(
              target.href,
              upstreamProtocols,
              headers,
              p.timeouts.connect_ms + p.timeouts.first_byte_ms,
            );
            p.recordSuccess(performance.now() - t0);
            served = p.name;
            break;
          } catch (err) {
            p.recordFailure(
              { retryable: true, status: null, kind: 'connect', message: (err as Error).message },
              performance.now() - t0,
            );
            failures.push(`${p.name}: ${(err as Error).message}`);
          }
        }
        if (!upstream) {
          const onlyUnsupported = failures.every((f) => f.includes('does not offer'));
          throw onlyUnsupported
            ? new ApiError(
                'unsupported_endpoint',
                `${failures.join('; ')}.`,
                'Route this model to an OpenAI-compatible provider with a realtime endpoint.',
              )
            : new ApiError(
                'upstream_unreachable',
                `No provider for model "${route.model}" accepted the realtime connection: ${failures.join('; ')}.`,
                'Check the providers, or add a backup provider.',
              );
        }
        const up = upstream;
        (req as IncomingMessage & { chosenProtocol?: string }).chosenProtocol = up.protocol || undefined;
        const done = settle;
        settle = null;
        Object.assign(req, { upstream: up, release: () => done?.(null) });
        (req as IncomingMessage & { servedBy?: string }).servedBy = served;
        // During the session: the budget is checked again before each client message goes on (the engine of now).
        const allowed = (): ApiError | null => {
          try {
            engine().budgets?.check(appName, principal?.name ?? null);
            return null;
          } catch (err) {
            return toApiError(err);
          }
        };
        wss.handleUpgrade(req, socket, head, (client) => {
          bridge(client, up, () => done?.(null), allowed);
        });
      } catch (err) {
        settle?.(null);
        reject(socket, toApiError(err));
      }
    })();
  };
}
