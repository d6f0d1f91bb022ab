// What every way into routing shares (the HTTP front doors and the agents' in-process calls): the request-log entry,
// recording how forwarding went, and route resolution with its two refusals (paused, nothing routes the model).
import { randomUUID } from 'node:crypto';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { ApiError } from '../errors.ts';
import { isoTime } from '../observability/iso-time.ts';
import type { Engine } from './engine.ts';
import type { ForwardOutcome } from './forward/index.ts';
import { estimateTokens } from './limits.ts';
import type { ResolvedCandidate, ResolvedRoute, Router } from './routing.ts';
import { chooseOrder, expectedOutput, type RequestSize } from './strategy/choose.ts';

/**
 * A request's log entry. `stamped: false` leaves its id and time empty for stampLogEntry to fill in just before the
 * entry is logged: a random UUID and an ISO time cost ~20 µs on a request that comes after a pause (cold caches),
 * which the HTTP front door keeps off the path to the first byte.
 */
export function newLogEntry(path: string, stamped = true): RequestLogEntry {
  return {
    id: stamped ? randomUUID() : '',
    time: stamped ? isoTime(Date.now()) : '',
    method: 'POST',
    path,
    app: null,
    app_source: null,
    requested_model: null,
    routed_model: null,
    provider: null,
    route: null,
    attempts: [],
    status: 0,
    error_code: null,
    stream: false,
    latency_ms: 0,
    ttfb_ms: null,
    prompt_tokens: null,
    completion_tokens: null,
    cache_read_tokens: null,
    cache_write_tokens: null,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    reasoning_tokens: null,
    session: null,
  };
}

/** Gives an entry made with `stamped: false` its id, and its time: `startedAt` (epoch ms), when the request came. */
export function stampLogEntry(entry: RequestLogEntry, startedAt: number): void {
  entry.id = randomUUID();
  entry.time = isoTime(startedAt);
}

export function recordOutcome(entry: RequestLogEntry, o: ForwardOutcome): void {
  entry.provider = o.provider;
  entry.route = o.route;
  entry.attempts = o.attempts;
  entry.status = o.status;
  entry.error_code = o.errorCode;
  entry.ttfb_ms = o.ttfbMs;
  entry.prompt_tokens = o.promptTokens;
  entry.completion_tokens = o.completionTokens;
  entry.cache_read_tokens = o.cacheReadTokens;
  entry.cache_write_tokens = o.cacheWriteTokens;
  entry.cache_write_5m_tokens = o.cacheWrite5mTokens;
  entry.cache_write_1h_tokens = o.cacheWrite1hTokens;
  entry.reasoning_tokens = o.reasoningTokens;
}

/** Routing is paused from the tray: every model request is refused until it is resumed. */
export function checkNotPaused(engine: Engine): void {
  if (engine.paused) throw new ApiError('routing_paused', 'Routing is paused in Switchboard.');
}

/**
 * 402 budget_exceeded when an enforced budget of this app, this credential (gateway mode: `key`, its name) or every
 * request is spent: before forwarding.
 */
export function checkBudget(engine: Engine, app: string | null, key: string | null = null): void {
  engine.budgets?.check(app, key);
}

/** 404 no_route: nothing routes this model, with the route's steps and skipped providers in details. */
export function noRouteError(router: Router, route: ResolvedRoute): ApiError {
  const { message, action } = router.noRouteMessage(route);
  return new ApiError('no_route', message, action, { steps: route.steps, skipped: route.skipped });
}

/**
 * The route of one request (app_rules, rules, default provider) with at least one candidate, its routed model noted
 * in the log entry; or the refusal: 503 routing_paused, or 404 no_route (`instead`, when given, is thrown in its
 * place: a request the hub could not translate, which only a provider of the client's own kind could have taken).
 */
export function routeRequest(
  engine: Engine,
  model: string,
  app: string | null,
  entry: RequestLogEntry,
  instead?: ApiError | null,
): ResolvedRoute {
  checkNotPaused(engine);
  const route = engine.router.resolve(model, app);
  entry.routed_model = route.model;
  if (route.candidates.length === 0) throw instead ?? noRouteError(engine.router, route);
  return route;
}

/**
 * What a route's strategies know of a request (null when its rules name no strategy: nothing is estimated): its
 * prompt's tokens, estimated from its bytes as the limits estimate them, and the output expected of it.
 */
export function requestSize(
  route: ResolvedRoute,
  textBytes: number,
  maxTokens: number | undefined,
): RequestSize | null {
  if (route.choice === null) return null;
  return { promptTokens: estimateTokens(textBytes), outputTokens: expectedOutput(maxTokens) };
}

/** The candidates in the order the route's strategies give for this request (the cached list when it has none). */
export function chooseCandidates(engine: Engine, route: ResolvedRoute, size: RequestSize | null): ResolvedCandidate[] {
  const choice = route.choice;
  if (choice === null || size === null) return route.candidates;
  return chooseOrder(route.candidates, choice, {
    pool: engine.pool,
    book: engine.prices,
    config: engine.config,
    size,
    now: Date.now(),
  });
}
