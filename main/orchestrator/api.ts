// The agent API (spec/orchestrator.md) as a Hono sub-app mounted at /api/v1: auth, agents, tasks, events, WAL,
// health, metrics.
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { AGENT_STATUSES, CreateAgentSchema, IdempotencyKeySchema, RunTaskSchema } from '../../shared/orchestrator.ts';
import { TASK_STATUSES, UpdateAgentSchema } from '../../shared/orchestrator.ts';
import type { StreamEvent } from '../../shared/orchestrator.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { StoreStatus } from '../../shared/admin.ts';
import type { Engine } from '../proxy/engine.ts';
import { ApiError, invalidRequest, type FieldProblem } from '../errors.ts';
import type { WalLog } from '../wal/index.ts';
import { approvalRoutes, checkTools } from './approvals-api.ts';
import { parseBody } from './body.ts';
import type { KeyRing } from './keys.ts';
import type { Orchestrator } from './orchestrator.ts';
import { schemaProblems } from './structured-output.ts';
import { replyWithTask, shownTask, threadRoutes } from './threads-api.ts';
import { waitAsked } from './waiting.ts';
import { swarmRoutes, workflowRoutes } from './workflows-api.ts';

type Env = {
  Bindings: HttpBindings;
  Variables: { tenant: string; keyId: string; revocations: Pick<KeyRing, 'onRevoked'> };
};
export type OrchestratorApiDeps = {
  orchestrator: Orchestrator;
  wal: WalLog;
  keys: KeyRing;
  metrics: Metrics;
  engine: () => Engine;
  heartbeatMs: () => number;
  version: string;
  /** The gateway's shared state (limits, keys…): embedded, or Redis up, down or slow (issue 36). */
  gatewayStore?: () => StoreStatus;
};

/**
 * GET /api/v1/health (and GET /health): `ok`, or `degraded` when the WAL reports a fault, the agents' store is down,
 * or the gateway's store is not answering (down, or slow: its breaker open), each with its state and since when.
 * The status code is what a balancer acts on: 503 while the configured Redis has never been reached since this
 * instance started (a wrong URL or password: it cannot serve the team's keys), else 200, `degraded` included (an
 * outage of the one Redis every instance shares must not take every instance out: the gateway fails open). A
 * balancer that should drain degraded instances too matches the body's `"status":"ok"` (docs/team.md).
 */
export function healthOf(deps: Omit<OrchestratorApiDeps, 'keys' | 'metrics' | 'heartbeatMs'>): {
  status: 200 | 503;
  body: Record<string, unknown>;
} {
  const o = deps.orchestrator;
  let wal: Record<string, unknown>;
  try {
    const fault = deps.wal.info().fault;
    wal = { status: fault ? 'error' : 'ok', ...deps.wal.status(), error: fault ? fault.message : null };
  } catch (err) {
    wal = { status: 'error', error: (err as Error).message };
  }
  const providers = deps
    .engine()
    .pool.all()
    .map((p) => p.status());
  const count = (s: string) => providers.filter((p) => p.state === s).length;
  // Where the agent state lives (embedded WAL, or the team's Redis), whether it is up, and what an acknowledged
  // change survives there (issue 35).
  const store = o.store.status();
  const gatewayStore = deps.gatewayStore?.() ?? null;
  const gatewayOk = gatewayStore === null || (gatewayStore.up && gatewayStore.state !== 'slow');
  const unreached = gatewayStore?.kind === 'redis' && gatewayStore.reached === false;
  return {
    status: unreached ? 503 : 200,
    body: {
      status: wal.status === 'ok' && store.up && gatewayOk ? 'ok' : 'degraded',
      store,
      ...(gatewayStore ? { gateway_store: gatewayStore } : {}),
      version: deps.version,
      time: new Date().toISOString(),
      uptime_s: Math.round(process.uptime()),
      wal,
      providers: {
        total: providers.length,
        ok: count('ok'),
        failed: count('failed'),
        unknown: count('unknown'),
        disabled: count('disabled'),
        items: providers.map((p) => ({ name: p.name, state: p.state, circuit: p.circuit })),
      },
      queue: { depth: o.queue.depth, running: o.queue.running },
      // Requests waiting for a task, run or swarm task to end (?wait=true and the wait endpoints).
      waits: o.store.waits.count,
    },
  };
}

export const LIST_LIMIT = { default: 20, max: 100 } as const;
const FIX = 'Fix the fields listed in error.details.';

type Problems = FieldProblem[];

function intQuery(c: Context<Env>, name: string, def: number, min: number, max: number, problems: Problems): number {
  const v = c.req.query(name);
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push({ field: name, message: `must be a whole number from ${min} to ${max}` });
    return def;
  }
  return n;
}

/** The Idempotency-Key header checked (shared/orchestrator.ts), or undefined when absent. */
function idempotencyKeyOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const r = IdempotencyKeySchema.safeParse(raw);
  if (!r.success) {
    const message = r.error.issues[0]?.message ?? 'is not valid';
    throw invalidRequest(
      [{ field: 'Idempotency-Key', message }],
      'Send a new UUID as the Idempotency-Key of each run.',
    );
  }
  return r.data;
}

function enumQuery(c: Context<Env>, name: string, values: readonly string[], problems: Problems): string | undefined {
  const v = c.req.query(name);
  if (v === undefined || v === '') return undefined;
  if (!values.includes(v)) problems.push({ field: name, message: `must be one of ${values.join(', ')}` });
  return v;
}

/**
 * The last frame made: every open stream is handed the same event in turn, so it is serialised (and encoded as
 * UTF-8) once for all of them.
 */
let lastFramed: { e: StreamEvent; bytes: Buffer } | null = null;

/** One event's frame: its id, its type as the SSE event name (EventSource.addEventListener(type)), its JSON. */
function frame(e: StreamEvent): Buffer {
  if (lastFramed?.e === e) return lastFramed.bytes;
  const bytes = Buffer.from(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  lastFramed = { e, bytes };
  return bytes;
}

/** The last frames of a stream whose key was revoked: a comment and an `error` event in the API's error body. */
function revokedFrame(keyId: string): string {
  const message = `The agent API key ${keyId} was revoked; this stream is closed.`;
  const e = new ApiError('unauthorized', message, 'Reconnect with a valid key made by `switchboard keys create`.');
  const body = { error: { ...e.toBody().error, details: null } };
  return `: ${message}\nevent: error\ndata: ${JSON.stringify(body)}\n\n`;
}

export function orchestratorRoutes(deps: OrchestratorApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  const o = deps.orchestrator;

  // No key: liveness for supervisors and load balancers, and metrics for scrapers (counts only, no tenant data).
  app.get('/health', (c) => {
    const { status, body } = healthOf(deps);
    return c.json(body, status);
  });
  app.get('/metrics', async (c) =>
    c.text(await deps.metrics.text(), 200, { 'content-type': deps.metrics.registry.contentType }),
  );

  app.use('*', async function agentAuth(c, next) {
    const key = await deps.keys.keyOf(c.req.header('x-api-key'));
    if (!key) {
      const action = 'Send a key made by `switchboard keys create` in the X-API-Key header.';
      throw new ApiError('unauthorized', 'X-API-Key is missing or invalid.', action);
    }
    c.set('tenant', key.tenant);
    c.set('keyId', key.id);
    c.set('revocations', deps.keys); // a long wait (waiting.ts) ends when its key is revoked
    // Redis mode: this instance's state is brought up to every change acknowledged before this request (on any
    // instance), so what a client wrote through one instance is what it reads through the next; 503 when Redis is
    // down (no local state that would diverge). Embedded: nothing to wait for.
    if (o.store.kind === 'redis') await o.store.sync(key.tenant);
    await next();
  });

  app.post('/agents', async (c) => {
    const b = await parseBody(c, CreateAgentSchema, FIX);
    checkTools(b.tools, o.mcp.names());
    return c.json(await o.agents.create(b, c.get('tenant')), 201);
  });
  app.get('/agents', (c) => {
    const problems: Problems = [];
    const status = enumQuery(c, 'status', AGENT_STATUSES, problems);
    const limit = intQuery(c, 'limit', LIST_LIMIT.default, 1, LIST_LIMIT.max, problems);
    const offset = intQuery(c, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, problems);
    if (problems.length) throw invalidRequest(problems, FIX);
    return c.json(o.agents.list(c.get('tenant'), status, limit, offset));
  });
  app.get('/agents/:id', (c) => c.json(o.agents.get(c.req.param('id'), c.get('tenant'))));
  app.put('/agents/:id', async (c) => {
    o.agents.get(c.req.param('id'), c.get('tenant'));
    const b = await parseBody(c, UpdateAgentSchema, FIX);
    checkTools(b.tools, o.mcp.names());
    return c.json(await o.agents.update(c.req.param('id'), b, c.get('tenant')));
  });
  app.delete('/agents/:id', async (c) => {
    await o.agents.delete(c.req.param('id'), c.get('tenant'));
    return c.json({ id: c.req.param('id'), deleted: true });
  });
  app.post('/agents/:id/run', async (c) => {
    o.agents.get(c.req.param('id'), c.get('tenant'));
    const ask = waitAsked(c, false);
    const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
    const b = await parseBody(c, RunTaskSchema, FIX);
    const schema = schemaProblems(b.context.response_format);
    if (schema.length) throw invalidRequest(schema, FIX);
    const { task: t, replayed } = await o.tasks.run(c.req.param('id'), b, c.get('tenant'), idempotencyKey);
    // A retry with the same Idempotency-Key answers the first run's task, and says so (as Stripe's API does).
    if (replayed) c.header('idempotent-replayed', 'true');
    if (ask) return replyWithTask(c, o, t, c.get('tenant'), ask);
    const { status } = shownTask(o, t);
    return c.json({ task_id: t.task_id, status, agent_id: t.agent_id, thread_id: t.thread_id ?? null });
  });

  app.get('/tasks', (c) => {
    const problems: Problems = [];
    const status = enumQuery(c, 'status', TASK_STATUSES, problems);
    const limit = intQuery(c, 'limit', LIST_LIMIT.default, 1, LIST_LIMIT.max, problems);
    const offset = intQuery(c, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, problems);
    if (problems.length) throw invalidRequest(problems, FIX);
    const filter = {
      agent_id: c.req.query('agent_id') || undefined,
      thread_id: c.req.query('thread_id') || undefined,
      status,
    };
    return c.json(o.tasks.list(c.get('tenant'), filter, limit, offset));
  });
  app.get('/tasks/:id', (c) => c.json(o.tasks.get(c.req.param('id'), c.get('tenant'))));
  app.post('/tasks/:id/stop', async (c) => c.json(await o.tasks.stop(c.req.param('id'), c.get('tenant'))));

  app.get('/events', (c) => {
    const tenant = c.get('tenant');
    const asked = c.req.query('tenant');
    if (asked && asked !== tenant) {
      const action = 'Use a key of that tenant, or leave out the tenant filter.';
      throw new ApiError('tenant_forbidden', `This key belongs to another tenant than "${asked}".`, action);
    }
    // workflow_id and swarm_id: an id, or a name, looked up at each event (so a workflow created after the stream
    // opened is followed too); run_id and swarm_task_id narrow further.
    const wfQuery = c.req.query('workflow_id');
    const swarmQuery = c.req.query('swarm_id');
    const run = c.req.query('run_id');
    const swarmTask = c.req.query('swarm_task_id');
    const lastRaw = c.req.header('last-event-id') ?? c.req.query('last_event_id');
    const last = lastRaw !== undefined && /^\d+$/.test(lastRaw) ? Number(lastRaw) : null;
    const named = (byId: ReadonlyMap<string, { name: string }>, id: string | null | undefined, q: string) =>
      !!id && (id === q || byId.get(id)?.name === q);
    // A filter that names nothing would stream nothing, forever: 404, as GET /workflows/:name answers.
    const exists = (byId: ReadonlyMap<string, { id: string; name: string; tenant: string }>, q: string) =>
      [...byId.values()].some((d) => d.tenant === tenant && (d.id === q || d.name === q));
    if (wfQuery && !exists(o.store.workflows, wfQuery))
      throw new ApiError(
        'workflow_not_found',
        `No workflow "${wfQuery}" (workflow_id takes a workflow's id or name).`,
        'List workflows with GET /api/v1/workflows.',
      );
    if (swarmQuery && !exists(o.store.swarms, swarmQuery))
      throw new ApiError(
        'swarm_not_found',
        `No swarm "${swarmQuery}" (swarm_id takes a swarm's id or name).`,
        'List swarms with GET /api/v1/swarms.',
      );
    const wanted = (e: StreamEvent) =>
      e.tenant === tenant &&
      (!wfQuery || named(o.store.workflows, e.workflow_id, wfQuery)) &&
      (!swarmQuery || named(o.store.swarms, e.swarm_id, swarmQuery)) &&
      (!run || e.run_id === run) &&
      (!swarmTask || e.swarm_task_id === swarmTask);
    const res = c.env.outgoing;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(': connected\n\n');
    const send = (e: StreamEvent) => {
      if (!wanted(e)) return;
      res.write(frame(e));
      if (res.writableLength > 16 * 1024 * 1024) res.destroy(); // a reader that stopped reading
    };
    // Replay and subscribe in one synchronous step: no event can fall between them.
    if (last !== null) {
      const { lost, events } = o.store.replay(tenant, last);
      if (lost) res.write(`: events ${lost[0]}..${lost[1]} are past the retention window and cannot be replayed\n\n`);
      for (const e of events) send(e);
    }
    let open = true;
    const stop = () => {
      if (!open) return;
      open = false;
      clearInterval(heartbeat);
      unsubscribe();
      stopWatching();
    };
    const unsubscribe = o.store.subscribe(send, () => {
      stop();
      res.end();
    });
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.heartbeatMs());
    // A revoked key's stream ends at once, saying why, and carries nothing more.
    const keyId = c.get('keyId');
    const stopWatching = deps.keys.onRevoked(keyId, () => {
      stop();
      res.end(revokedFrame(keyId));
    });
    res.once('close', stop);
    return RESPONSE_ALREADY_SENT;
  });

  app.route('/', threadRoutes(o));
  app.route('/', approvalRoutes(o));
  app.route('/', workflowRoutes(o.workflows, o.store.waits));
  app.route('/', swarmRoutes(o.swarms, o.store.waits));

  app.get('/wal/status', (c) => c.json(deps.wal.status()));
  app.post('/wal/compact', async (c) => {
    const r = await deps.wal.compact();
    const dropped_segments = r.droppedSegments.length;
    return c.json({ compacted: true, seq: r.seq, at: r.at, dropped_segments, status: deps.wal.status() });
  });
  return app;
}
