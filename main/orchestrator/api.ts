// The agent API (spec/orchestrator.md) as a Hono sub-app mounted at /api/v1: auth, agents, tasks, events, WAL, health, metrics.
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { AGENT_STATUSES, BUILTIN_TOOLS, CreateAgentSchema, RunTaskSchema, TASK_STATUSES, UpdateAgentSchema, type AgentEvent } from '../../shared/orchestrator.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Engine } from '../proxy/engine.ts';
import { ApiError } from '../errors.ts';
import type { WalLog } from '../wal/index.ts';
import type { KeyRing } from './keys.ts';
import { LIST_LIMIT, type Orchestrator } from './orchestrator.ts';
import { swarmRoutes, workflowRoutes } from './workflows-api.ts';

type Env = { Bindings: HttpBindings; Variables: { tenant: string } };
export type OrchestratorApiDeps = {
  orchestrator: Orchestrator;
  wal: WalLog;
  keys: KeyRing;
  metrics: Metrics;
  engine: () => Engine;
  heartbeatMs: () => number;
  version: string;
};

const invalid = (details: { field: string; message: string }[]) =>
  new ApiError('invalid_request', `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, 'Fix the fields listed in error.details.', details);

async function body<S extends z.ZodType>(c: Context<Env>, schema: S): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw invalid([{ field: '(body)', message: 'must be a JSON object' }]);
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw invalid(r.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message })));
  return r.data;
}

function tools(list: string[] | undefined): void {
  const bad = (list ?? []).map((t, i) => ({ t, i })).filter(({ t }) => !(BUILTIN_TOOLS as readonly string[]).includes(t));
  if (bad.length) throw invalid(bad.map(({ t, i }) => ({ field: `tools.${i}`, message: `"${t}" is not a known tool (known: ${BUILTIN_TOOLS.join(', ')})` })));
}

function intQuery(c: Context<Env>, name: string, def: number, min: number, max: number, problems: { field: string; message: string }[]): number {
  const v = c.req.query(name);
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push({ field: name, message: `must be a whole number from ${min} to ${max}` });
    return def;
  }
  return n;
}

function enumQuery(c: Context<Env>, name: string, values: readonly string[], problems: { field: string; message: string }[]): string | undefined {
  const v = c.req.query(name);
  if (v === undefined || v === '') return undefined;
  if (!values.includes(v)) problems.push({ field: name, message: `must be one of ${values.join(', ')}` });
  return v;
}

function frame(e: AgentEvent): string {
  return `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`;
}

export function orchestratorRoutes(deps: OrchestratorApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  const o = deps.orchestrator;

  // No key: liveness for supervisors and load balancers, and metrics for scrapers (counts only, no tenant data).
  app.get('/health', (c) => {
    let wal: Record<string, unknown>;
    try {
      const fault = deps.wal.info().fault;
      wal = { status: fault ? 'error' : 'ok', ...deps.wal.status(), error: fault ? fault.message : null };
    } catch (err) {
      wal = { status: 'error', error: (err as Error).message };
    }
    const providers = deps.engine().pool.all().map((p) => p.status());
    const count = (s: string) => providers.filter((p) => p.state === s).length;
    return c.json({
      status: wal.status === 'ok' ? 'ok' : 'degraded',
      version: deps.version,
      time: new Date().toISOString(),
      uptime_s: Math.round(process.uptime()),
      wal,
      providers: { total: providers.length, ok: count('ok'), failed: count('failed'), unknown: count('unknown'), disabled: count('disabled'), items: providers.map((p) => ({ name: p.name, state: p.state, circuit: p.circuit })) },
      queue: { depth: o.queue.depth, running: o.queue.running },
    });
  });
  app.get('/metrics', async (c) => c.text(await deps.metrics.text(), 200, { 'content-type': deps.metrics.registry.contentType }));

  app.use('*', async function agentAuth(c, next) {
    const tenant = await deps.keys.tenantOf(c.req.header('x-api-key'));
    if (!tenant) throw new ApiError('unauthorized', 'X-API-Key is missing or invalid.', 'Send a key made by `switchboard keys create` in the X-API-Key header.');
    c.set('tenant', tenant);
    await next();
  });

  app.post('/agents', async (c) => {
    const b = await body(c, CreateAgentSchema);
    tools(b.tools);
    return c.json(await o.createAgent(b, c.get('tenant')), 201);
  });
  app.get('/agents', (c) => {
    const problems: { field: string; message: string }[] = [];
    const status = enumQuery(c, 'status', AGENT_STATUSES, problems);
    const limit = intQuery(c, 'limit', LIST_LIMIT.default, 1, LIST_LIMIT.max, problems);
    const offset = intQuery(c, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, problems);
    if (problems.length) throw invalid(problems);
    return c.json(o.listAgents(c.get('tenant'), status, limit, offset));
  });
  app.get('/agents/:id', (c) => c.json(o.agent(c.req.param('id'), c.get('tenant'))));
  app.put('/agents/:id', async (c) => {
    o.agent(c.req.param('id'), c.get('tenant'));
    const b = await body(c, UpdateAgentSchema);
    tools(b.tools);
    return c.json(await o.updateAgent(c.req.param('id'), b, c.get('tenant')));
  });
  app.delete('/agents/:id', async (c) => {
    await o.deleteAgent(c.req.param('id'), c.get('tenant'));
    return c.json({ id: c.req.param('id'), deleted: true });
  });
  app.post('/agents/:id/run', async (c) => {
    o.agent(c.req.param('id'), c.get('tenant'));
    const b = await body(c, RunTaskSchema);
    const t = await o.run(c.req.param('id'), b, c.get('tenant'));
    return c.json({ task_id: t.task_id, status: o.isRunning(t.task_id) ? 'running' : t.status, agent_id: t.agent_id });
  });

  app.get('/tasks', (c) => {
    const problems: { field: string; message: string }[] = [];
    const status = enumQuery(c, 'status', TASK_STATUSES, problems);
    const limit = intQuery(c, 'limit', LIST_LIMIT.default, 1, LIST_LIMIT.max, problems);
    if (problems.length) throw invalid(problems);
    return c.json(o.listTasks(c.get('tenant'), { agent_id: c.req.query('agent_id') || undefined, status }, limit));
  });
  app.get('/tasks/:id', (c) => c.json(o.task(c.req.param('id'), c.get('tenant'))));
  app.post('/tasks/:id/stop', async (c) => c.json(await o.stop(c.req.param('id'), c.get('tenant'))));

  app.get('/events', (c) => {
    const tenant = c.get('tenant');
    const asked = c.req.query('tenant');
    if (asked && asked !== tenant) throw new ApiError('tenant_forbidden', `This key belongs to another tenant than "${asked}".`, 'Use a key of that tenant, or leave out the tenant filter.');
    // workflow_id: a workflow's id, or its name (resolved to the id now); run_id and swarm_task_id narrow further.
    const wfQuery = c.req.query('workflow_id');
    const workflow = wfQuery && ([...o.store.workflows.values()].find((w) => w.tenant === tenant && w.name === wfQuery)?.id ?? wfQuery);
    const run = c.req.query('run_id');
    const swarmTask = c.req.query('swarm_task_id');
    const lastRaw = c.req.header('last-event-id') ?? c.req.query('last_event_id');
    const last = lastRaw !== undefined && /^\d+$/.test(lastRaw) ? Number(lastRaw) : null;
    const wanted = (e: AgentEvent) =>
      e.tenant === tenant && (!workflow || e.workflow_id === workflow) && (!run || e.run_id === run) && (!swarmTask || e.swarm_task_id === swarmTask);
    const res = c.env.outgoing;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': connected\n\n');
    const send = (e: AgentEvent) => {
      if (!wanted(e)) return;
      res.write(frame(e));
      if (res.writableLength > 16 * 1024 * 1024) res.destroy(); // a reader that stopped reading
    };
    // Replay and subscribe in one synchronous step: no event can fall between them.
    if (last !== null) {
      const first = o.store.events[0];
      if (first && first.id > last + 1) res.write(`: events ${last + 1}..${first.id - 1} are past the retention window and cannot be replayed\n\n`);
      for (const e of o.store.events) if (e.id > last) send(e);
    }
    const unsubscribe = o.store.subscribe(send, () => res.end());
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.heartbeatMs());
    res.once('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
    return RESPONSE_ALREADY_SENT;
  });

  app.route('/', workflowRoutes(o));
  app.route('/', swarmRoutes(o));

  app.get('/wal/status', (c) => c.json(deps.wal.status()));
  app.post('/wal/compact', async (c) => {
    const r = await deps.wal.compact();
    return c.json({ compacted: true, seq: r.seq, at: r.at, dropped_segments: r.droppedSegments.length, status: deps.wal.status() });
  });
  return app;
}
