// POST /v1/chat/completions on the raw Node request/response: read, validate, identify, route, forward, log.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { ChatRequestSchema } from '../../shared/openai.ts';
import { parseJson, readBody } from '../proxy/body.ts';
import type { Engine } from '../proxy/engine.ts';
import { forwardWithFailover } from '../proxy/forward.ts';
import { type AppIdentity, identifyApp } from '../proxy/identify-app.ts';
import { logger } from '../observability/logger.ts';
import { ApiError, sendError, toApiError } from './errors.ts';
import { checkOrigin, checkProxyHost } from './guards.ts';

/** Bounded wait for the OS process lookup (a /proc scan or a process spawn). */
const PROCESS_LOOKUP_MS = 250;

export function validateChatRequest(json: unknown): { model: string; stream: boolean } {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ApiError('invalid_request', 'The request body must be a JSON object.', 'Send {"model": "...", "messages": [...]}.');
  }
  const model = (json as { model?: unknown }).model;
  if (model === undefined || model === null || model === '') {
    throw new ApiError('model_required', 'The request has no "model"; Switchboard routes by model name.', 'Add "model": "<name>", e.g. "gpt-4o-mini".');
  }
  const r = ChatRequestSchema.safeParse(json);
  if (!r.success) {
    const details = r.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
    throw new ApiError(
      'invalid_request',
      `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`,
      'Fix the fields named in error.details and send the request again.',
      details,
    );
  }
  return { model: r.data.model, stream: r.data.stream === true };
}

export async function handleChatCompletions(req: IncomingMessage, res: ServerResponse, engine: Engine): Promise<void> {
  const started = performance.now();
  const entry: RequestLogEntry = {
    id: randomUUID(),
    time: new Date().toISOString(),
    method: 'POST',
    path: '/v1/chat/completions',
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
  };
  try {
    checkProxyHost(req.headers);
    checkOrigin(req.headers);
    const body = await readBody(req, engine.maxBodyBytes);
    const json = parseJson(body) as Record<string, unknown>;
    const { model, stream } = validateChatRequest(json);
    entry.requested_model = model;
    entry.stream = stream;
    if (engine.paused) {
      throw new ApiError('routing_paused', 'Routing is paused in Switchboard.', 'Resume routing from the tray menu or the Switchboard window.');
    }
    const router = engine.router;
    const app: AppIdentity | null = await identifyApp(req, { hasRule: router.hasAppRules ? router.hasAppRule : null, timeoutMs: PROCESS_LOOKUP_MS });
    if (app) {
      entry.app = app.name;
      entry.app_source = app.source;
    }
    const route = router.resolve(model, app?.name ?? null);
    entry.routed_model = route.model;
    if (route.candidates.length === 0) {
      const { message, action } = router.noRouteMessage(route);
      throw new ApiError('no_route', message, action, { steps: route.steps, skipped: route.skipped });
    }
    const payload = route.model === model ? body : Buffer.from(JSON.stringify({ ...json, model: route.model }));
    const outcome = await forwardWithFailover(
      { req, res, path: '/chat/completions', body: payload, stream, candidates: route.candidates, model: route.model },
      engine.pool,
    );
    entry.provider = outcome.provider;
    entry.route = outcome.route;
    entry.attempts = outcome.attempts;
    entry.status = outcome.status;
    entry.error_code = outcome.errorCode;
    entry.ttfb_ms = outcome.ttfbMs;
    entry.prompt_tokens = outcome.promptTokens;
    entry.completion_tokens = outcome.completionTokens;
    if (outcome.error) sendError(res, outcome.error);
  } catch (err) {
    const e = toApiError(err);
    entry.status = e.status;
    entry.error_code = e.code;
    if (!(err instanceof ApiError)) logger.error({ err }, 'chat completion failed unexpectedly');
    sendError(res, e);
  } finally {
    entry.latency_ms = Math.round(performance.now() - started);
    engine.requestLog.add(entry);
  }
}
