// Routes of workflows and swarms under /api/v1 (mounted by api.ts after its key check, so `tenant` is set).
import type { HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { Swarm, SwarmTask, Workflow, WorkflowRun } from '../../shared/orchestrator.ts';
import { readJson } from './body.ts';
import type { SwarmService } from './swarms.ts';
import type { Waits } from './waits.ts';
import { waitAsked, waitReply, waitUntil, type WaitAsk } from './waiting.ts';
import type { WorkflowService } from './workflows.ts';

type Env = { Bindings: HttpBindings; Variables: { tenant: string } };
/** A catalog (see catalog.ts) that can also create, change and delete its definitions. */
type Routed<D, E> = {
  create(raw: unknown, tenant: string): Promise<D>;
  update(name: string, raw: unknown, tenant: string): Promise<D>;
  delete(name: string, tenant: string): Promise<void>;
  list(tenant: string): { data: D[]; total: number };
  byName(name: string, tenant: string): D;
  execution(name: string, id: string, tenant: string): E;
  executionsOf(name: string, tenant: string): { data: E[]; total: number };
};
type Execution = { status: string; tenant: string };

/** Waits for an execution (a run, a swarm task) to end as the request asks, then answers it with `done`. */
async function replyWhenOver<E extends Execution>(
  c: Context<Env>,
  waits: Waits,
  id: string,
  read: () => E,
  ask: WaitAsk,
  view: (e: E) => object = (e) => e,
): Promise<Response> {
  const done = await waitUntil(c, waits, id, () => read().status !== 'running', ask);
  return waitReply(c, view(read()), done);
}

/**
 * A swarm task as the API shows it: its id also as `task_id`, the field agent runs answer with, so a client reads
 * one name for "the task I started" (issue 35); `id` stays for the clients that read it.
 */
export const shownSwarmTask = (t: SwarmTask): SwarmTask & { task_id: string } => ({ ...t, task_id: t.id });

/**
 * What workflows and swarms both answer: create, change, delete, list, one by name, and its runs or tasks (the list,
 * one, and a wait for one).
 */
function catalogRoutes<D, E extends Execution>(
  app: Hono<Env>,
  path: string,
  executions: string,
  s: Routed<D, E>,
  waits: Waits,
  view: (e: E) => object = (e) => e,
): void {
  app.post(path, async (c) => c.json(await s.create(await readJson(c), c.get('tenant')), 201));
  app.get(path, (c) => c.json(s.list(c.get('tenant'))));
  app.get(`${path}/:name`, (c) => c.json(s.byName(c.req.param('name'), c.get('tenant'))));
  app.put(`${path}/:name`, async (c) => {
    s.byName(c.req.param('name'), c.get('tenant'));
    return c.json(await s.update(c.req.param('name'), await readJson(c), c.get('tenant')));
  });
  app.delete(`${path}/:name`, async (c) => {
    await s.delete(c.req.param('name'), c.get('tenant'));
    return c.json({ name: c.req.param('name'), deleted: true });
  });
  app.get(`${path}/:name/${executions}`, (c) => {
    const { data, total } = s.executionsOf(c.req.param('name'), c.get('tenant'));
    return c.json({ data: data.map(view), total });
  });
  app.get(`${path}/:name/${executions}/:id`, (c) =>
    c.json(view(s.execution(c.req.param('name'), c.req.param('id'), c.get('tenant')))),
  );
  app.get(`${path}/:name/${executions}/:id/wait`, (c) => {
    const read = () => s.execution(c.req.param('name'), c.req.param('id'), c.get('tenant'));
    read();
    return replyWhenOver(c, waits, c.req.param('id'), read, waitAsked(c, true) as WaitAsk, view);
  });
}

export function workflowRoutes(w: WorkflowService, waits: Waits): Hono<Env> {
  const app = new Hono<Env>();
  catalogRoutes<Workflow, WorkflowRun>(app, '/workflows', 'runs', w, waits);
  app.post('/workflows/:name/run', async (c) => {
    const { name } = c.req.param();
    w.byName(name, c.get('tenant'));
    const ask = waitAsked(c, false);
    const run = await w.start(name, await readJson(c, { empty: {} }), c.get('tenant'));
    if (!ask) return c.json(run, 202);
    return replyWhenOver(c, waits, run.run_id, () => w.execution(name, run.run_id, c.get('tenant')), ask);
  });
  app.post('/workflows/:name/runs/:id/cancel', async (c) =>
    c.json(await w.cancel(c.req.param('name'), c.req.param('id'), c.get('tenant'))),
  );
  return app;
}

export function swarmRoutes(s: SwarmService, waits: Waits): Hono<Env> {
  const app = new Hono<Env>();
  catalogRoutes<Swarm, SwarmTask>(app, '/swarms', 'tasks', s, waits, shownSwarmTask);
  app.post('/swarms/:name/tasks', async (c) => {
    const { name } = c.req.param();
    s.byName(name, c.get('tenant'));
    const ask = waitAsked(c, false);
    const st = await s.submit(name, await readJson(c), c.get('tenant'));
    if (!ask) return c.json(shownSwarmTask(st), 202);
    return replyWhenOver(c, waits, st.id, () => s.execution(name, st.id, c.get('tenant')), ask, shownSwarmTask);
  });
  app.post('/swarms/:name/tasks/:id/stop', async (c) =>
    c.json(shownSwarmTask(await s.stop(c.req.param('name'), c.req.param('id'), c.get('tenant')))),
  );
  return app;
}
