// HTTP metrics for the Hono side of the server: each request is labelled by the TEMPLATE of the route that serves
// its method and path (`/api/v1/agents/:id`), never by the raw path, so no client can add series (issue 13).
// A path no route serves is `not_found`, whatever answered it (a 404, or a guard's 401/403); a guard's refusal of a
// path a route serves is counted under that route. The status is the one the client got: a handler that answered on
// the raw Node response (a front door, RESPONSE_ALREADY_SENT) is read from it, once its headers are out.
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Metrics } from '../observability/metrics.ts';

export const NOT_FOUND_ROUTE = 'not_found';
/** The hot path's label (it bypasses Hono: see buildRequestListener). */
export const CHAT_ROUTE = '/v1/chat/completions';
/** The header @hono/node-server's RESPONSE_ALREADY_SENT carries. */
const ALREADY_SENT = 'x-hono-already-sent';
/** Status of a request whose client went away before any answer (nginx's "client closed request"). */
export const CLIENT_CLOSED = 499;

const GEMINI_MODELS = '/v1beta/models/*';
const GEMINI_PREFIX = '/v1beta/models/';
const GEMINI_ACTIONS = ['generateContent', 'streamGenerateContent', 'countTokens'] as const;

/** `/v1beta/models/{model}:{action}` for an action the Gemini route serves, else `not_found` (it answers 404). */
function geminiLabel(path: string): string {
  let p = path;
  try {
    p = decodeURIComponent(path); // as the route does: `%3A` is a colon
  } catch {
    // a bad escape: matched as sent
  }
  const colon = p.lastIndexOf(':');
  const action = colon > GEMINI_PREFIX.length ? p.slice(colon + 1) : ''; // a model, then :action
  return (GEMINI_ACTIONS as readonly string[]).includes(action) ? `/v1beta/models/{model}:${action}` : NOT_FOUND_ROUTE;
}

/**
 * The template of the first route (not middleware: `use` registers method ALL) that matches the request's method
 * and path, which is the one that answers it; Hono matches before any middleware runs, so a refusal by a guard
 * still finds it. `not_found` when none matches.
 */
export function routeLabel(c: Context): string {
  for (const r of matchedRoutes(c)) {
    if (r.method === 'ALL') continue;
    return r.path === GEMINI_MODELS ? geminiLabel(c.req.path) : r.path;
  }
  return NOT_FOUND_ROUTE;
}

/** The middleware that counts every request Hono serves (registered first, so guards' refusals are counted too). */
export function httpMetrics(metrics: Metrics): MiddlewareHandler<{ Bindings: HttpBindings }> {
  return async function httpMetrics(c, next) {
    const t0 = performance.now();
    await next();
    const route = routeLabel(c);
    const out = c.env?.outgoing as ServerResponse | undefined;
    // Hono writes c.res after this middleware returns; a handler that answered on the raw response said so.
    if (!out || !c.res.headers.has(ALREADY_SENT)) {
      metrics.observeHttp(c.req.method, route, c.res.status, (performance.now() - t0) / 1000);
      return;
    }
    const method = c.req.method;
    if (out.headersSent || out.writableEnded || out.destroyed) observeRaw(metrics, method, route, t0, out);
    else out.once('close', () => observeRaw(metrics, method, route, t0, out));
  };
}

/** Counts a request the listener served without Hono (the hot path), once its handler is done. */
export function observeRaw(metrics: Metrics, method: string, route: string, t0: number, res: ServerResponse): void {
  const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
  metrics.observeHttp(method, route, status, (performance.now() - t0) / 1000);
}
