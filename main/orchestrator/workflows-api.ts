// Routes of workflows and swarms under /api/v1 (mounted by api.ts after its key check, so `tenant` is set).
import { Hono, type Context } from 'hono';
import { ApiError } from '../errors.ts';
import type { Orchestrator } from './orchestrator.ts';

type Env = { Variables: { tenant: string } };

/** The JSON body; `empty` is what a body-less request stands for (undefined: a body is required). */
async function json(c: Context<Env>, empty?: unknown): Promise<unknown> {
  try {
    const text = await c.req.text();
    if (empty !== undefined && text.trim() === '') return empty;
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_request', 'Invalid request: (body) must be a JSON object.', 'Send a JSON body.', [{ field: '(body)', message: 'must be a JSON object' }]);
  }
}

export function workflowRoutes(o: Orchestrator): Hono<Env> {
  const app = new Hono<Env>();
  const w = o.workflows;
  app.post('/workflows', async (c) => c.json(await w.create(await json(c), c.get('tenant')), 201));
  app.get('/workflows', (c) => c.json(w.list(c.get('tenant'))));
  app.get('/workflows/:name', (c) => c.json(w.byName(c.req.param('name'), c.get('tenant'))));
  app.post('/workflows/:name/run', async (c) => {
    w.byName(c.req.param('name'), c.get('tenant'));
    return c.json(await w.start(c.req.param('name'), await json(c, {}), c.get('tenant')), 202);
  });
  app.get('/workflows/:name/runs', (c) => c.json(w.runs(c.req.param('name'), c.get('tenant'))));
  app.get('/workflows/:name/runs/:run_id', (c) => c.json(w.run(c.req.param('run_id'), c.req.param('name'), c.get('tenant'))));
  return app;
}

export function swarmRoutes(o: Orchestrator): Hono<Env> {
  const app = new Hono<Env>();
  const s = o.swarms;
  app.post('/swarms', async (c) => c.json(await s.create(await json(c), c.get('tenant')), 201));
  app.get('/swarms', (c) => c.json(s.list(c.get('tenant'))));
  app.get('/swarms/:name', (c) => c.json(s.byName(c.req.param('name'), c.get('tenant'))));
  app.post('/swarms/:name/tasks', async (c) => {
    s.byName(c.req.param('name'), c.get('tenant'));
    return c.json(await s.submit(c.req.param('name'), await json(c), c.get('tenant')), 202);
  });
  app.get('/swarms/:name/tasks', (c) => c.json(s.tasks(c.req.param('name'), c.get('tenant'))));
  app.get('/swarms/:name/tasks/:id', (c) => c.json(s.task(c.req.param('name'), c.req.param('id'), c.get('tenant'))));
  return app;
}
