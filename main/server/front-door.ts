// One front door per client wire format, all on the raw Node request/response: read, convert to the hub,
// identify the app, route, forward (passthrough or translated), log. Errors are said in the client's format.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { logger } from '../observability/logger.ts';
import { parseJson, readBody } from '../proxy/body.ts';
import type { Engine } from '../proxy/engine.ts';
import type { ClientContext, ClientFormat, HubRequest, WireError } from '../proxy/formats/hub/index.ts';
import { type AttemptPlan, chatPlan, forwardWithFailover, type Planner, type PlanTarget, type UploadBody } from '../proxy/forward.ts';
import { type AppIdentity, identifyApp } from '../proxy/identify-app.ts';
import { ApiError, toApiError } from '../errors.ts';
import { checkOrigin, checkProxyHost } from './guards.ts';
import { gatewayFor, isGatewayMode } from '../gateway/gateway.ts';
import { estimateTokens, type Admission } from '../proxy/limits.ts';

/** Bounded wait for the OS process lookup (a /proc scan or a process spawn). */
const PROCESS_LOOKUP_MS = 250;

export type PlanInput = { hub: HubRequest; rawBody: Buffer; ctx: ClientContext; stream: boolean; model: string; clientModel: string; upload: SpooledBody | null };

/** A body spooled to disk as it arrived (multipart uploads): its text fields and a streamed body per attempt. */
export type SpooledBody = {
  fields: Record<string, string>;
  /** The body to send, with the `model` field's value rewritten when it differs from the client's. */
  withModel(model: string): UploadBody;
  /** Removes the spooled file (called when the request ends, whatever happened). */
  dispose(): void;
};

const EMPTY = Buffer.alloc(0);

export type FrontDoor = {
  format: ClientFormat;
  /** The route, for the request log. */
  path: string;
  /** Path below a provider's base_url when it speaks this format natively (bytes pass through), else null. */
  nativePath: (target: PlanTarget, model: string, stream: boolean, ctx: ClientContext) => string | null;
  /** Whether the model is a field of the body (rewritten on passthrough when routing changed it). */
  modelInBody: boolean;
  /**
   * A request this format's hub conversion refuses (e.g. a vendor's built-in tools) may still pass through to a
   * provider of the client's own kind. Off for OpenAI chat: its format is the hub.
   */
  passthroughUntranslatable?: boolean;
  /** Ollama streams unless told not to; every other format streams only when asked. */
  streamsByDefault?: boolean;
  /** A request the router answers itself (e.g. Ollama's "load the model" call), or null to route it. */
  local?: (body: unknown) => unknown | null;
  /** A body that is not JSON (multipart uploads): its fields as an object, in place of the JSON parse. */
  parseBody?: (body: Buffer, req: IncomingMessage) => unknown;
  /** Spools the body to disk instead of reading it (multipart uploads); null: read it as usual. */
  spool?: (req: IncomingMessage, limitBytes: number) => Promise<SpooledBody> | null;
  /** A non-chat endpoint supplies its own plan per provider (e.g. embeddings); chat doors use chatPlan. */
  plan?: (target: PlanTarget, input: PlanInput) => AttemptPlan | string;
};

/** Writes an ApiError in the client's own error shape. */
export function sendFormatError(res: ServerResponse, format: ClientFormat, e: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(format.errorBody(e.toWire()));
  res.writeHead(e.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...e.headers });
  res.end(body);
}

function newEntry(path: string): RequestLogEntry {
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
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
  };
}

/** Each candidate's call for one request through a door (a class: no per-request closures on the hot path). */
class DoorPlanner implements Planner {
  constructor(
    private readonly door: FrontDoor,
    private readonly input: PlanInput,
    private readonly untranslatable: ApiError | null,
    private readonly replyCtx: ClientContext & { model: string },
  ) {}

  plan(t: PlanTarget): AttemptPlan | string {
    const { door, input } = this;
    if (door.plan) return door.plan(t, input);
    const native = door.nativePath(t, input.model, input.stream, input.ctx);
    if (this.untranslatable && native === null) {
      return `${this.untranslatable.message.replace(/\.$/, '')}; provider "${t.name}" (type ${t.kind.type}) would need it translated`;
    }
    return chatPlan(t, native, input.rawBody, input.hub, door.format, this.replyCtx, input.stream);
  }
}

function rawModel(json: unknown, ctx: ClientContext): string | null {
  const m = ctx.pathModel ?? (json as { model?: unknown } | null)?.model;
  return typeof m === 'string' && m !== '' ? m : null;
}

function rawStream(json: unknown, ctx: ClientContext, byDefault: boolean): boolean {
  if (ctx.pathStream !== undefined) return ctx.pathStream;
  const s = (json as { stream?: unknown } | null)?.stream;
  return byDefault ? s !== false : s === true;
}

export async function handleFrontDoor(door: FrontDoor, req: IncomingMessage, res: ServerResponse, engine: Engine, ctx: ClientContext = {}): Promise<void> {
  const started = performance.now();
  const entry = newEntry(door.path);
  let admission: Admission | null = null;
  let spooled: SpooledBody | null = null;
  try {
    // Gateway mode (keys required) answers any Host; local mode keeps the DNS-rebinding guard.
    const gatewayMode = isGatewayMode(engine.config, req);
    if (!gatewayMode) checkProxyHost(req.headers);
    checkOrigin(req.headers);
    const gateway = gatewayFor(engine);
    const principal = gatewayMode ? await gateway.authenticate(engine.config, req) : null;
    const spooling = door.spool ? door.spool(req, engine.maxBodyBytes) : null;
    if (spooling) spooled = await spooling;
    const body = spooled ? EMPTY : await readBody(req, engine.maxBodyBytes);
    const json = spooled ? spooled.fields : door.parseBody ? door.parseBody(body, req) : parseJson(body);
    const local = door.local?.(json);
    if (local) {
      const text = JSON.stringify(local);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      entry.status = 200;
      return;
    }
    // A request the hub cannot express (e.g. a vendor's built-in tools) can still pass through to a provider of
    // the client's own kind: keep the reason, and route it by the model alone.
    let hub: HubRequest | null = null;
    let untranslatable: ApiError | null = null;
    try {
      hub = door.format.requestToHub(json, ctx);
    } catch (err) {
      if (!door.passthroughUntranslatable || !(err instanceof ApiError) || err.code !== 'invalid_request' || !rawModel(json, ctx)) throw err;
      untranslatable = err;
    }
    const model = hub?.model ?? rawModel(json, ctx)!;
    const stream = hub ? hub.stream === true : rawStream(json, ctx, door.streamsByDefault === true);
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
    gateway.checkModel(principal, route.model);
    const textBytes = door.parseBody || spooled ? Buffer.byteLength(JSON.stringify(json)) : body.length;
    admission = gateway.admit(engine.config, principal, app?.name ?? null, estimateTokens(textBytes));
    if (route.candidates.length === 0) {
      if (untranslatable) throw untranslatable;
      const { message, action } = router.noRouteMessage(route);
      throw new ApiError('no_route', message, action, { steps: route.steps, skipped: route.skipped });
    }
    const rerouted = route.model !== model;
    const rawBody = rerouted && door.modelInBody && !spooled ? Buffer.from(JSON.stringify({ ...(json as object), model: route.model })) : body;
    const routedHub = hub && rerouted ? { ...hub, model: route.model } : hub;
    const input: PlanInput = { hub: routedHub ?? { model: route.model, messages: [] }, rawBody, ctx, stream, model: route.model, clientModel: model, upload: spooled };
    const replyCtx = { ...ctx, model };
    const outcome = await forwardWithFailover(
      {
        req,
        res,
        client: door.format,
        ctx,
        stream,
        candidates: route.candidates,
        model: route.model,
        ...(admission ? { replyHeaders: admission.headers } : {}),
        planner: new DoorPlanner(door, input, untranslatable, replyCtx),
      },
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
    if (outcome.error) {
      if (admission) Object.assign(outcome.error.headers, admission.headers);
      sendFormatError(res, door.format, outcome.error);
    }
  } catch (err) {
    const e = toApiError(err);
    entry.status = e.status;
    entry.error_code = e.code;
    if (!(err instanceof ApiError)) logger.error({ err }, `${door.path} failed unexpectedly`);
    if (admission) Object.assign(e.headers, admission.headers);
    sendFormatError(res, door.format, e);
  } finally {
    spooled?.dispose();
    const p = entry.prompt_tokens;
    const c = entry.completion_tokens;
    admission?.settle(p === null && c === null ? null : (p ?? 0) + (c ?? 0));
    entry.latency_ms = Math.round(performance.now() - started);
    engine.requestLog.add(entry);
  }
}
