// The Hono app: front doors, admin API, guards and the one error handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { ConfigStore } from '../config/store.ts';
import type { Engine } from '../proxy/engine.ts';
import { logger } from '../observability/logger.ts';
import { VERSION } from '../version.ts';
import { adminRoutes } from './admin.ts';
import { uiRoutes } from './ui.ts';
import type { Context } from 'hono';
import { anthropicFormat, countTokens as anthropicCountTokens } from '../proxy/formats/anthropic/index.ts';
import { geminiFormat, countTokens as geminiCountTokens } from '../proxy/formats/gemini/index.ts';
import type { ClientContext, ClientFormat } from '../proxy/formats/hub/index.ts';
import { ollamaFormat } from '../proxy/formats/ollama/index.ts';
import { compatRoutes } from './compat.ts';
import { anthropicMessagesDoor, completionsDoor, enginesEmbeddingsDoor, geminiGenerateDoor } from './doors.ts';
import { ollamaChatDoor, ollamaEmbedDoor, ollamaGenerateDoor, ollamaLegacyEmbedDoor, openaiChatDoor } from './doors.ts';
import { openaiEmbeddingsDoor, responsesDoor } from './doors.ts';
import type { FrontDoor } from '../proxy/door.ts';
import { handleFrontDoor } from './front-door.ts';
import { ApiError, toApiError } from '../errors.ts';
import { checkAdminHost, checkAdminToken, checkOrigin, checkProxyHost } from './guards.ts';
import { orchestratorRoutes, type OrchestratorApiDeps } from '../orchestrator/api.ts';
import { gatewayAuth, isGatewayMode } from '../gateway/gateway.ts';
import { gatewayRoutes } from '../gateway/routes.ts';
import { realtimeUpgrade } from '../gateway/realtime.ts';

type Ctx = Context<{ Bindings: HttpBindings }>;

/** A small JSON body for the helper routes (count tokens), or the error response in the route's own format. */
async function readJson(c: Ctx, format: ClientFormat): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    const e = new ApiError('invalid_json', 'The request body is not valid JSON.', 'Send a JSON object.');
    return c.json(format.errorBody(e.toWire()) as object, 400);
  }
}

export type AppDeps = {
  engine: () => Engine;
  store: ConfigStore;
  adminToken: string;
  listenPort: () => number;
  /** The agent API under /api/v1 (absent in tests of the router alone). */
  agents?: Omit<OrchestratorApiDeps, 'engine' | 'version'>;
};

/** The agent API's error body: `details` is always present (null when absent). */
const agentApiBody = (e: ApiError) => {
  const b = e.toBody();
  return { error: { ...b.error, details: b.error.details ?? null } };
};
const isAgentApi = (p: string) => p === '/api/v1' || p.startsWith('/api/v1/');
/** A metrics label for a path: ids folded so the label set stays small. */
const routeLabel = (p: string) =>
  isAgentApi(p)
    ? p.replace(/\/(agt|tsk)_[A-Za-z0-9]+/g, '/:id')
    : p.startsWith('/admin/')
      ? '/admin/*'
      : p.startsWith('/v1beta/')
        ? '/v1beta/*'
        : p;

export function buildHttpApp(deps: AppDeps): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.onError((err, c) => {
    const e = toApiError(err);
    if (!(err instanceof ApiError)) logger.error({ err }, e.code === 'wal_error' ? 'WAL error' : 'unexpected error');
    return c.json(isAgentApi(c.req.path) ? agentApiBody(e) : e.toBody(), e.status as 400, e.headers);
  });
  app.notFound((c) => {
    const e = new ApiError(
      'not_found',
      `No route for ${c.req.method} ${c.req.path}.`,
      'See the README for the endpoints Switchboard serves.',
    );
    // In the shape of the API the path belongs to, so each vendor's SDK shows the message.
    if (isAgentApi(c.req.path)) return c.json(agentApiBody(e), 404);
    const body = c.req.path.startsWith('/api/')
      ? ollamaFormat.errorBody(e.toWire())
      : c.req.path.startsWith('/v1beta/')
        ? geminiFormat.errorBody(e.toWire())
        : e.toBody();
    return c.json(body as object, 404, { 'x-switchboard-version': VERSION });
  });

  app.use('/admin/*', async function adminGuard(c, next) {
    checkAdminHost(c.env.incoming.headers);
    checkOrigin(c.env.incoming.headers);
    checkAdminToken(c.env.incoming.headers, c.env.incoming.url ?? '', deps.adminToken);
    await next();
  });
  if (deps.agents) {
    const metrics = deps.agents.metrics;
    app.use('*', async function httpMetrics(c, next) {
      const t0 = performance.now();
      await next();
      metrics.observeHttp(c.req.method, routeLabel(c.req.path), c.res.status, (performance.now() - t0) / 1000);
    });
  }
  app.use('*', async function proxyGuard(c, next) {
    if (!c.req.path.startsWith('/admin/')) {
      if (!isGatewayMode(deps.engine().config, c.env.incoming)) checkProxyHost(c.env.incoming.headers);
      checkOrigin(c.env.incoming.headers);
    }
    await next();
  });
  app.use('*', gatewayAuth(deps.engine));

  /** A front door on the raw Node objects; Hono only routes to it. */
  const door =
    (d: FrontDoor, ctx: (c: Ctx) => ClientContext = () => ({})) =>
    async (c: Ctx) => {
      await handleFrontDoor(d, c.env.incoming, c.env.outgoing, deps.engine(), ctx(c));
      return RESPONSE_ALREADY_SENT;
    };

  app.post('/v1/chat/completions', door(openaiChatDoor));
  app.post('/v1/messages', door(anthropicMessagesDoor));
  app.post('/v1/messages/count_tokens', async (c) => {
    const body = await readJson(c, anthropicFormat);
    if (body instanceof Response) return body;
    return c.json(anthropicCountTokens(body));
  });
  app.post('/v1/responses', door(responsesDoor));
  app.post('/v1/completions', door(completionsDoor));
  app.post('/v1/embeddings', door(openaiEmbeddingsDoor));
  app.post(
    '/v1/engines/:model/embeddings',
    door(enginesEmbeddingsDoor, (c) => ({ pathModel: c.req.param('model') })),
  );
  app.post('/api/chat', door(ollamaChatDoor));
  app.post('/api/generate', door(ollamaGenerateDoor));
  app.post('/api/embed', door(ollamaEmbedDoor));
  app.post('/api/embeddings', door(ollamaLegacyEmbedDoor));

  // Gemini: /v1beta/models/{model}:{generateContent|streamGenerateContent|countTokens}
  app.post('/v1beta/models/*', async (c) => {
    const rest = decodeURIComponent(c.req.path.slice('/v1beta/models/'.length));
    const colon = rest.lastIndexOf(':');
    const model = colon > 0 ? rest.slice(0, colon) : rest;
    const action = colon > 0 ? rest.slice(colon + 1) : '';
    const query = new URL(c.req.url).searchParams;
    if (action === 'generateContent' || action === 'streamGenerateContent') {
      return door(geminiGenerateDoor, () => ({
        pathModel: model,
        pathStream: action === 'streamGenerateContent',
        query,
      }))(c);
    }
    if (action === 'countTokens') {
      const body = await readJson(c, geminiFormat);
      if (body instanceof Response) return body;
      return c.json(geminiCountTokens(body));
    }
    const e = new ApiError(
      'not_found',
      `Gemini action "${action || '(none)'}" is not supported for model "${model}".`,
      'Use :generateContent, :streamGenerateContent or :countTokens.',
    );
    return c.json(geminiFormat.errorBody(e.toWire()) as object, 404);
  });

  if (deps.agents) app.route('/api/v1', orchestratorRoutes({ ...deps.agents, engine: deps.engine, version: VERSION }));
  app.route('/', compatRoutes(deps.engine));
  app.route(
    '/',
    gatewayRoutes({ engine: deps.engine, runDoor: (d, req, res) => handleFrontDoor(d, req, res, deps.engine()) }),
  );

  app.route('/admin/v1', adminRoutes(deps.engine, deps.store, deps.listenPort));
  app.route('/ui', uiRoutes());
  return app;
}

/**
 * The server's request listener. POST /v1/chat/completions, the hot path, runs on the raw Node request and
 * response (no Request/Response objects, no web streams, which cost several times the CPU); everything else is Hono.
 */
export function buildRequestListener(deps: AppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const hono = getRequestListener(buildHttpApp(deps).fetch);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url.startsWith('/v1/chat/completions') && (url.length === 20 || url[20] === '?')) {
      void handleFrontDoor(openaiChatDoor, req, res, deps.engine());
      return;
    }
    void hono(req, res);
  };
  // WebSocket upgrades (/v1/realtime): the Listener wires this to the server's 'upgrade' event.
  // The server's host and origin guards run before the gateway's realtime proxy looks at the request.
  const guard = (req: IncomingMessage): void => {
    if (!isGatewayMode(deps.engine().config, req)) checkProxyHost(req.headers);
    checkOrigin(req.headers);
  };
  return Object.assign(listener, { upgrade: realtimeUpgrade({ engine: deps.engine, guard }) });
}
