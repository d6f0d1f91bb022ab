// Routes of workflows and swarms under /api/v1 (mounted by api.ts after its key check, so `tenant` is set).
import { Hono } from 'hono';
import type { Swarm, SwarmTask, Workflow, WorkflowRun } from '../../shared/orchestrator.ts';
import { readJson } from './body.ts';
import type { SwarmService } from './swarms.ts';
import type { WorkflowService } from './workflows.ts';

type Env = { Variables: { tenant: string } };
/** A catalog (see catalog.ts) that can also create its definitions. */
type Routed<D, E> = {
  create(raw: unknown, tenant: string): Promise<D>;
  list(tenant: string): { data: D[]; total: number };
  byName(name: string, tenant: string): D;
  execution(name: string, id: string, tenant: string): E;
  executionsOf(name: string, tenant: string): { data: E[]; total: number };
};

/** What workflows and swarms both answer: create, list, one by name, and its runs or tasks (the list and one). */
function catalogRoutes<D, E>(app: Hono<Env>, path: string, executions: string, s: Routed<D, E>): void {
  app.post(path, async (c) => c.json(await s.create(await readJson(c), c.get('tenant')), 201));
  app.get(path, (c) => c.json(s.list(c.get('tenant'))));
  app.get(`${path}/:name`, (c) => c.json(s.byName(c.req.param('name'), c.get('tenant'))));
  app.get(`${path}/:name/${executions}`, (c) => c.json(s.executionsOf(c.req.param('name'), c.get('tenant'))));
  app.get(`${path}/:name/${executions}/:id`, (c) =>
    c.json(s.execution(c.req.param('name'), c.req.param('id'), c.get('tenant'))),
  );
}

export function workflowRoutes(w: WorkflowService): Hono<Env> {
  const app = new Hono<Env>();
  catalogRoutes<Workflow, WorkflowRun>(app, '/workflows', 'runs', w);
  app.post('/workflows/:name/run', async (c) => {
    w.byName(c.req.param('name'), c.get('tenant'));
    return c.json(await w.start(c.req.param('name'), await readJson(c, { empty: {} }), c.get('tenant')), 202);
  });
  return app;
}

export function swarmRoutes(s: SwarmService): Hono<Env> {
  const app = new Hono<Env>();
  catalogRoutes<Swarm, SwarmTask>(app, '/swarms', 'tasks', s);
  app.post('/swarms/:name/tasks', async (c) => {
    s.byName(c.req.param('name'), c.get('tenant'));
    return c.json(await s.submit(c.req.param('name'), await readJson(c), c.get('tenant')), 202);
  });
  return app;
}
