// The HTTP side of a front door, on the raw Node request/response: guards, credentials, the body, the calling app,
// the route, limits, then forwarding (passthrough or translated) and the request log. Errors are said in the
// client's format. What a door is and how it plans each candidate's call: main/proxy/door.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ApiError } from '../errors.ts';
import { gatewayFor, isGatewayMode } from '../gateway/gateway.ts';
import { ResponseTap } from '../insight/capture.ts';
import { logger } from '../observability/logger.ts';
import { checkBrowserJson, parseJson, readBody, requestError } from '../proxy/body.ts';
import { DoorPlanner, type FrontDoor, type PlanInput, type SpooledBody } from '../proxy/door.ts';
import type { Engine } from '../proxy/engine.ts';
import type { ClientContext, HubRequest } from '../proxy/formats/hub/index.ts';
import { forwardWithFailover, HttpReplyTarget, sendFormatError } from '../proxy/forward/index.ts';
import { StreamSeam } from '../proxy/forward/continuation.ts';
import { type AppIdentity, identifyApp } from '../proxy/identify-app.ts';
import { estimateTokens, type Admission } from '../proxy/limits.ts';
import { guardAlwaysOff, noteGuard, redactedForCapture } from '../proxy/guard/index.ts';
import { quirkTableFor } from '../proxy/quirks.ts';
import type { ResolvedRoute } from '../proxy/routing.ts';
import {
  noteOffline,
  offlineAdmission,
  offlineOutcome,
  OfflinePlanner,
  offlinePlan,
  unreachableNow,
} from '../proxy/offline.ts';
import { expectedOutput } from '../proxy/strategy/choose.ts';
import { sessionOf } from '../proxy/session-id.ts';
import { stickyKeyOf } from '../proxy/strategy/sticky.ts';
import {
  checkBudget,
  checkNotPaused,
  chooseCandidates,
  newLogEntry,
  recordOutcome,
  requestSize,
  routeRequest,
  stampLogEntry,
} from '../proxy/request.ts';
import { checkOrigin, checkProxyHost, grantCors } from './guards.ts';

type ReplayMarks = { of: string; id: string; provider: string };

/** Bounded wait for the OS process lookup (a /proc scan or a process spawn). */
const PROCESS_LOOKUP_MS = 250;

const EMPTY = Buffer.alloc(0);

function rawModel(json: unknown, ctx: ClientContext): string | null {
  const m = ctx.pathModel ?? (json as { model?: unknown } | null)?.model;
  return typeof m === 'string' && m !== '' ? m : null;
}

function rawStream(json: unknown, ctx: ClientContext, byDefault: boolean): boolean {
  if (ctx.pathStream !== undefined) return ctx.pathStream;
  const s = (json as { stream?: unknown } | null)?.stream;
  return byDefault ? s !== false : s === true;
}

/**
 * A replay's marks (POST /admin/v1/replay sends it through this door): its x-switchboard-replay header,
 * `<the engine's replay token>.<base64url JSON {of, id, provider}>`; null for any other request (a client without the
 * token cannot mark its requests as replays, nor pin a provider).
 */
function replayMarks(h: string | string[] | undefined, token: string): ReplayMarks | null {
  if (typeof h !== 'string' || !h.startsWith(`${token}.`)) return null;
  try {
    const m = JSON.parse(Buffer.from(h.slice(token.length + 1), 'base64url').toString('utf8')) as ReplayMarks;
    return typeof m.of === 'string' && typeof m.id === 'string' && typeof m.provider === 'string' ? m : null;
  } catch {
    return null;
  }
}

/** The route of a replay: the provider it names, alone (no failover: a replay compares that provider). */
function pinnedRoute(engine: Engine, route: ResolvedRoute, provider: string): ResolvedRoute {
  const config = engine.config.providers.find((p) => p.name === provider);
  if (!config || !config.enabled)
    throw new ApiError(
      'invalid_request',
      `Provider "${provider}" ${config ? 'is disabled' : 'does not exist'}: a replay can only go to an enabled provider.`,
    );
  return {
    ...route,
    candidates: [{ provider, reason: 'replay', config }],
    steps: [...route.steps, `replay → ${provider}`],
  };
}

export async function handleFrontDoor(
  door: FrontDoor,
  req: IncomingMessage,
  res: ServerResponse,
  engine: Engine,
  ctx: ClientContext = {},
): Promise<void> {
  const started = performance.now();
  const startedAt = Date.now();
  // Stamped (id, time) when it is logged, after the reply: off the path to the first byte.
  const entry = newLogEntry(door.path, false);
  let admission: Admission | null = null;
  let spooled: SpooledBody | null = null;
  /** Request capture: the body read and what the client is sent (only when `capture` covers the app). */
  let tap: ResponseTap | null = null;
  let captured: Buffer = EMPTY;
  let replay: ReplayMarks | null = null;
  try {
    // Gateway mode (keys required) answers any Host; local mode keeps the DNS-rebinding guard.
    const gatewayMode = isGatewayMode(engine.config, req);
    if (!gatewayMode) {
      const checking = checkProxyHost(req.headers, engine.config.allowed_hosts);
      if (checking) await checking; // a *.local-style name not looked up yet
    }
    const grant = checkOrigin(req.headers, engine.config.allowed_origins);
    if (grant !== null) grantCors(res, grant);
    const gateway = gatewayFor(engine);
    const principal = gatewayMode ? await gateway.authenticate(engine.config, req) : null;
    if (principal) entry.key = principal.name; // the usage by key, and budgets[].key
    const spooling = door.spool ? door.spool(req, engine.maxBodyBytes) : null;
    if (spooling) spooled = await spooling;
    else checkBrowserJson(req.headers);
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
      if (
        !door.passthroughUntranslatable ||
        !(err instanceof ApiError) ||
        err.code !== 'invalid_request' ||
        !rawModel(json, ctx)
      )
        throw err;
      untranslatable = err;
    }
    const model = hub?.model ?? rawModel(json, ctx)!;
    const stream = hub ? hub.stream === true : rawStream(json, ctx, door.streamsByDefault === true);
    entry.requested_model = model;
    entry.stream = stream;
    checkNotPaused(engine);
    const router = engine.router;
    const app: AppIdentity | null = await identifyApp(req, {
      hasRule: router.hasAppRules ? router.hasAppRule : null,
      timeoutMs: PROCESS_LOOKUP_MS,
    });
    if (app) {
      entry.app = app.name;
      entry.app_source = app.source;
    }
    entry.session = sessionOf(req.headers);
    replay = replayMarks(req.headers['x-switchboard-replay'], engine.replayToken);
    if (replay !== null) entry.replay_of = replay.of;
    if (!spooled && engine.capture?.wants(app?.name ?? null)) {
      tap = new ResponseTap(res);
      captured = redactedForCapture(body, hub);
    }
    // A replay goes to the provider it names, whether or not a rule routes the model there.
    const route = replay
      ? pinnedRoute(engine, engine.router.resolve(model, app?.name ?? null), replay.provider)
      : routeRequest(engine, model, app?.name ?? null, entry, untranslatable);
    if (replay) entry.routed_model = route.model;
    gateway.checkModel(principal, route.model);
    checkBudget(engine, app?.name ?? null, principal?.name ?? null);
    const textBytes = door.parseBody || spooled ? Buffer.byteLength(JSON.stringify(json)) : body.length;
    const admitted = gateway.admit(engine.config, principal, app?.name ?? null, estimateTokens(textBytes));
    admission = admitted instanceof Promise ? await admitted : admitted; // a Promise only with store kind "redis"
    const rerouted = route.model !== model;
    const rawBody =
      rerouted && door.modelInBody && !spooled
        ? Buffer.from(JSON.stringify({ ...(json as object), model: route.model }))
        : body;
    const routedHub = hub && rerouted ? { ...hub, model: route.model } : hub;
    const input: PlanInput = {
      hub: routedHub ?? { model: route.model, messages: [] },
      rawBody,
      ctx,
      stream,
      model: route.model,
      clientModel: model,
      upload: spooled,
      quirks: quirkTableFor(engine.config),
      // The secret guard reads JSON bodies only (an upload's fields are not a conversation).
      guardConfig: spooled || door.parseBody || guardAlwaysOff(engine.config) ? null : engine.config,
      app: app?.name ?? null,
    };
    const replyCtx = { ...ctx, model, ...(hub ? { request: hub } : {}) };
    const planner = new DoorPlanner(door, input, untranslatable, replyCtx);
    // continue_on_cut: a stream cut after its text started is resumed on the next provider (forward/continuation.ts).
    const continuing = route.continueOnCut && stream && hub !== null && !spooled && door.plan === undefined;
    if (continuing) input.continueOnCut = true;
    const target = new HttpReplyTarget(res, door.format, replyCtx, stream);
    const seam = continuing ? (target.seam = new StreamSeam(res)) : null;
    // A route with a strategy: its candidates ordered for this request, and spent quotas skipped (proxy/strategy/).
    const size = requestSize(route, textBytes, hub?.max_completion_tokens ?? hub?.max_tokens);
    const outcome = await forwardWithFailover(
      {
        headers: req.headers,
        target,
        candidates: chooseCandidates(engine, route, size),
        ...(seam
          ? {
              continuation: {
                seam,
                planner: (prefix: string) => new DoorPlanner(door, input, untranslatable, replyCtx, prefix),
              },
            }
          : {}),
        model: route.model,
        ...(size ? { estimate: size.promptTokens, stream } : {}),
        ...(route.keyPools ? { session: () => stickyKeyOf(req.headers, json, hub?.messages[0]) } : {}),
        unreachable: unreachableNow(engine),
        ...(admission ? { admission } : {}),
        ...(door.replies ? { replies: door.replies } : {}),
        planner,
      },
      engine.pool,
    );
    // Every provider of the route out of reach: the local providers of routing.offline, the model mapped (offline.ts).
    const offline = offlinePlan(engine, route, outcome, {
      promptTokens: estimateTokens(textBytes),
      outputTokens: expectedOutput(hub?.max_completion_tokens ?? hub?.max_tokens),
    });
    if (offline?.refusal) {
      recordOutcome(entry, outcome); // the cloud's attempts stay in the log
      throw offline.refusal;
    }
    if (offline !== null) {
      const local = offline.model;
      const localInput: PlanInput = {
        ...input,
        hub: { ...input.hub, model: local },
        model: local,
        rawBody:
          door.modelInBody && !spooled ? Buffer.from(JSON.stringify({ ...(json as object), model: local })) : rawBody,
      };
      const localOutcome = await forwardWithFailover(
        {
          headers: req.headers,
          target: new HttpReplyTarget(res, door.format, replyCtx, stream),
          candidates: offline.candidates,
          model: local,
          admission: offlineAdmission(admission, offline.header),
          ...(door.replies ? { replies: door.replies } : {}),
          planner: new OfflinePlanner(new DoorPlanner(door, localInput, untranslatable, replyCtx), offline.numCtx),
        },
        engine.pool,
      );
      const served = offlineOutcome(engine, offline, outcome, localOutcome);
      recordOutcome(entry, served);
      if (served.error) {
        if (admission) Object.assign(served.error.headers, admission.headers);
        sendFormatError(res, door.format, served.error);
      }
      return;
    }
    if (outcome.error === null) noteOffline(engine, false, '');
    recordOutcome(entry, outcome);
    if (planner.guard?.record) noteGuard(engine, entry, planner.guard.record);
    if (outcome.error) {
      if (admission) Object.assign(outcome.error.headers, admission.headers);
      sendFormatError(res, door.format, outcome.error);
    }
  } catch (err) {
    const e = requestError(err, req);
    entry.status = e.status;
    entry.error_code = e.code;
    if (e.code === 'client_closed_request') {
      // Nobody is listening: nothing is written to the dead socket.
      logger.info(`${door.path}: 499, the client closed the connection before its body was whole`);
      return;
    }
    if (!(err instanceof ApiError) && e.status >= 500) logger.error({ err }, `${door.path} failed unexpectedly`);
    if (admission) Object.assign(e.headers, admission.headers);
    sendFormatError(res, door.format, e);
  } finally {
    spooled?.dispose();
    const p = entry.prompt_tokens;
    const c = entry.completion_tokens;
    admission?.settle(p === null && c === null ? null : (p ?? 0) + (c ?? 0));
    entry.latency_ms = Math.round(performance.now() - started);
    stampLogEntry(entry, startedAt);
    if (replay) entry.id = replay.id; // the replay route's own id for it, to answer with
    if (tap && engine.capture) {
      entry.captured = true;
      void engine.capture.add({
        id: entry.id,
        time: entry.time,
        req,
        body: captured,
        tap,
        app: entry.app,
        provider: entry.provider,
        model: entry.routed_model ?? entry.requested_model,
        stream: entry.stream,
        replayOf: entry.replay_of ?? null,
        session: entry.session ?? null,
        inputTokens: entry.prompt_tokens, // the hub's sense: cache reads and writes included
      });
    }
    engine.requestLog.add(entry);
  }
}
