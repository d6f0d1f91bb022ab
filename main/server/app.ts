// The Hono app: front doors, admin API, guards and the one error handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { ConfigStore } from '../config/store.ts';
import type { Engine } from '../proxy/engine.ts';
import { logger } from '../observability/logger.ts';
import { VERSION, adminRoutes } from './admin.ts';
import { openaiChatDoor } from './doors.ts';
import { handleFrontDoor } from './front-door.ts';
import { ApiError, toApiError } from './errors.ts';
import { checkAdminHost, checkAdminToken, checkOrigin, checkProxyHost } from './guards.ts';

export type AppDeps = { engine: () => Engine; store: ConfigStore; adminToken: string; listenPort: () => number };

export function buildHttpApp(deps: AppDeps): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.onError((err, c) => {
    const e = toApiError(err);
    if (!(err instanceof ApiError)) logger.error({ err }, 'unexpected error');
    return c.json(e.toBody(), e.status as 400, e.headers);
  });
  app.notFound((c) => {
    const e = new ApiError('not_found', `No route for ${c.req.method} ${c.req.path}.`, 'See the README for the endpoints Switchboard serves.');
    return c.json(e.toBody(), 404, { 'x-switchboard-version': VERSION });
  });

  app.use('/admin/*', async function adminGuard(c, next) {
    checkAdminHost(c.env.incoming.headers);
    checkOrigin(c.env.incoming.headers);
    checkAdminToken(c.env.incoming.headers, c.env.incoming.url ?? '', deps.adminToken);
    await next();
  });
  app.use('*', async function proxyGuard(c, next) {
    if (!c.req.path.startsWith('/admin/')) {
      checkProxyHost(c.env.incoming.headers);
      checkOrigin(c.env.incoming.headers);
    }
    await next();
  });

  app.get('/', (c) => c.text('Switchboard is running', 200, { 'x-switchboard-version': VERSION }));

  app.post('/v1/chat/completions', async (c) => {
    await handleFrontDoor(openaiChatDoor, c.env.incoming, c.env.outgoing, deps.engine());
    return RESPONSE_ALREADY_SENT;
  });

  app.get('/v1/models', async (c) => {
    const listing = await deps.engine().models.list();
    const headers: Record<string, string> = {};
    if (listing.failed.length) headers['x-switchboard-unavailable'] = listing.failed.map((f) => f.provider).join(',');
    return c.json({ object: 'list', data: listing.data }, 200, headers);
  });

  app.route('/admin/v1', adminRoutes(deps.engine, deps.store, deps.listenPort));
  return app;
}

/**
 * The server's request listener. POST /v1/chat/completions, the hot path, runs on the raw Node request and
 * response (no Request/Response objects, no web streams: see FACTS.md on Hono's cost); everything else is Hono.
 */
export function buildRequestListener(deps: AppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const hono = getRequestListener(buildHttpApp(deps).fetch);
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url.startsWith('/v1/chat/completions') && (url.length === 20 || url[20] === '?')) {
      void handleFrontDoor(openaiChatDoor, req, res, deps.engine());
      return;
    }
    void hono(req, res);
  };
}
