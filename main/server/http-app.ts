// The Hono app: the front doors other than the hot path, the admin API, the agent API, the guards and the one error
// handler. Loaded on the first request that is not POST /v1/chat/completions (main/server/app.ts), not at start:
// @hono/node-server makes a Response when it loads, which loads Node's built-in fetch (~25 ms of a start on these
// machines), and imports node:http2 (~7 ms); see docs/PERFORMANCE.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, type Http2Bindings, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { ConfigStore } from '../config/store.ts';
import type { Engine } from '../proxy/engine.ts';
import { logger } from '../observability/logger.ts';
import { VERSION } from '../version.ts';
import { adminRoutes } from './admin.ts';
import type { ListenControl } from './listen-change.ts';
import { mcpRoutes } from './mcp-routes.ts';
import { uiRoutes } from './ui.ts';
import { countTokens as anthropicCountTokens } from '../proxy/formats/anthropic/index.ts';
import { geminiFormat, countTokens as geminiCountTokens } from '../proxy/formats/gemini/index.ts';
import type { ClientContext } from '../proxy/formats/hub/index.ts';
import { compatRoutes } from './compat.ts';
import { anthropicMessagesDoor, completionsDoor, enginesEmbeddingsDoor, geminiGenerateDoor } from './doors.ts';
import { ollamaChatDoor, ollamaEmbedDoor, ollamaGenerateDoor, ollamaLegacyEmbedDoor, openaiChatDoor } from './doors.ts';
import { openaiEmbeddingsDoor, responsesDoor } from './doors.ts';
import type { FrontDoor } from '../proxy/door.ts';
import { handleFrontDoor } from './front-door.ts';
import { agentApiBody, errorBodyFor, isAgentApi, targetOf } from './error-body.ts';
import { httpMetrics } from './route-label.ts';
import { ApiError } from '../errors.ts';
import { parseJson, readRouteBody, requestError } from '../proxy/body.ts';
import { checkAdminHost, checkAdminToken, checkOrigin, checkProxyHost, grantCors, preflightHeaders } from './guards.ts';
import { healthOf, orchestratorRoutes, type OrchestratorApiDeps } from '../orchestrator/api.ts';
import { gatewayAuth, gatewayStoreStatus, isGatewayMode } from '../gateway/gateway.ts';
import { gatewayRoutes } from '../gateway/routes.ts';

type Ctx = Context<{ Bindings: HttpBindings }>;

/** The JSON body of a helper route (count tokens), bounded by max_body_mb like the front doors' own. */
async function readJson(c: Ctx, engine: Engine): Promise<unknown> {
  return parseJson(await readRouteBody(c, engine.maxBodyBytes));
}

export type AppDeps = {
  engine: () => Engine;
  store: ConfigStore;
  adminToken: string;
  listenPort: () => number;
  /** How a listen_port change is applied, for the save answer (absent: never moved, as with `--port`). */
  listen?: ListenControl;
  /** The agent API under /api/v1 (absent in tests of the router alone). */
  agents?: Omit<OrchestratorApiDeps, 'engine' | 'version'>;
};

/** An error in the shape of the API the request belongs to (its path, else the caller's headers), so each SDK reads it. */
function errorBodyOf(c: Ctx, e: ApiError): object {
  return errorBodyFor(c.req.path, c.env.incoming.headers, new URL(c.req.url).searchParams, e);
}

export function buildHttpApp(deps: AppDeps): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.onError((err, c) => {
    const e = requestError(err, c.env.incoming);
    if (e.code === 'client_closed_request') {
      // Nobody is listening: nothing is written (the metrics count it as 499).
      logger.info(`${c.req.method} ${c.req.path}: 499, the client closed the connection before its body was whole`);
      return RESPONSE_ALREADY_SENT;
    }
    if (!(err instanceof ApiError) && e.status >= 500)
      logger.error({ err }, e.code === 'wal_error' ? 'WAL error' : 'unexpected error');
    return c.json(errorBodyOf(c, e), e.status as 400, e.headers);
  });
  app.notFound((c) => {
    const e = new ApiError(
      'not_found',
      `No route for ${c.req.method} ${c.req.path}.`,
      'See the reference (docs/README.md) for the endpoints Switchboard serves.',
    );
    if (isAgentApi(c.req.path)) return c.json(agentApiBody(e), 404);
    return c.json(errorBodyOf(c, e), 404, { 'x-switchboard-version': VERSION });
  });

  // First, so a guard's refusal is counted too; labelled by route template (route-label.ts).
  if (deps.agents) app.use('*', httpMetrics(deps.agents.metrics));
  app.use('/admin/*', async function adminGuard(c, next) {
    checkAdminHost(c.env.incoming.headers);
    checkOrigin(c.env.incoming.headers);
    checkAdminToken(c.env.incoming.headers, c.env.incoming.url ?? '', deps.adminToken);
    await next();
  });
  app.use('*', async function proxyGuard(c, next) {
    if (!c.req.path.startsWith('/admin/')) {
      const config = deps.engine().config;
      const headers = c.env.incoming.headers;
      if (!isGatewayMode(config, c.env.incoming)) await checkProxyHost(headers, config.allowed_hosts);
      // An origin of allowed_origins is granted CORS, and its preflight answered here (before any credential check).
      const grant = checkOrigin(headers, config.allowed_origins);
      if (grant !== null) {
        if (c.req.method === 'OPTIONS' && headers['access-control-request-method'])
          return c.body(null, 204, preflightHeaders(grant, headers));
        grantCors(c.env.outgoing, grant);
      }
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
  app.post('/v1/messages/count_tokens', async (c) => c.json(anthropicCountTokens(await readJson(c, deps.engine()))));
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
    if (action === 'countTokens') return c.json(geminiCountTokens(await readJson(c, deps.engine())));
    const e = new ApiError(
      'not_found',
      `Gemini action "${action || '(none)'}" is not supported for model "${model}".`,
      'Use :generateContent, :streamGenerateContent or :countTokens.',
    );
    return c.json(geminiFormat.errorBody(e.toWire()) as object, 404);
  });

  if (deps.agents) {
    const agentDeps = {
      ...deps.agents,
      engine: deps.engine,
      version: VERSION,
      gatewayStore: () => gatewayStoreStatus(deps.engine()),
    };
    app.route('/api/v1', orchestratorRoutes(agentDeps));
    // The same health answer at the root, where balancers and probes look first (no credential; issue 36).
    app.get('/health', (c) => {
      const { status, body } = healthOf(agentDeps);
      return c.json(body, status);
    });
  }
  app.route('/', compatRoutes(deps.engine));
  app.route(
    '/',
    gatewayRoutes({ engine: deps.engine, runDoor: (d, req, res) => handleFrontDoor(d, req, res, deps.engine()) }),
  );

  app.route(
    '/admin/v1',
    adminRoutes(
      deps.engine,
      deps.store,
      deps.listenPort,
      () => deps.adminToken,
      deps.listen,
      deps.agents ? () => deps.agents!.orchestrator.store.status() : undefined,
    ),
  );
  if (deps.agents) app.route('/admin/v1', mcpRoutes(deps.agents.orchestrator.mcp, deps.store)); // MCP servers
  app.route('/ui', uiRoutes());
  return app;
}

/** The answer to a request Hono could not read (RequestError), in its family's shape when the request is known. */
function unreadableRequest(err: unknown, req: IncomingMessage | null): Response {
  const e = new ApiError(
    'invalid_request',
    `The request cannot be read: ${err instanceof Error ? err.message : String(err)}.`,
    'Send a path without backslashes and a Host header naming this machine, such as localhost:11434.',
  );
  const { path, query } = targetOf(req?.url ?? '/');
  return Response.json(errorBodyFor(path, req?.headers ?? {}, query, e), { status: e.status });
}

/** The Hono app on Node's request and response. */
export function honoListener(deps: AppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  // Hono refuses a request it cannot make a URL of (a backslash in the path, a malformed Host) with a bare 400 before
  // the app sees it; errorHandler is then called at once, within the call below, so `arriving` is that request.
  let arriving: IncomingMessage | null = null;
  const app = buildHttpApp(deps);
  // A route that answers on Node's own response returns RESPONSE_ALREADY_SENT; for a HEAD, Hono wraps what the GET
  // route returned in a new Response, which the adapter then tried to write again (ERR_HTTP_HEADERS_SENT on stderr:
  // issue 33, item 9). An answer already written is the answer, whatever came back.
  // For a HEAD, what such a route writes after its head is a body, which Node drops: the answer ends with the head
  // (an event stream's HEAD used to stay open forever, its head never sent: found by the fuzz).
  const fetch = async (req: Request, env: HttpBindings | Http2Bindings): Promise<Response> => {
    const res = await app.fetch(req, env);
    const out = env.outgoing;
    if (!out.headersSent) return res;
    if (req.method === 'HEAD' && !out.writableEnded) out.end();
    return RESPONSE_ALREADY_SENT;
  };
  const hono = getRequestListener(fetch, {
    errorHandler: (err) => unreadableRequest(err, arriving),
  });
  return (req, res) => {
    arriving = req;
    void hono(req, res);
    arriving = null;
  };
}
