// Routes of threads and of a task's wait and deletion under /api/v1 (mounted by api.ts after its key check, so
// `tenant` is set).
import type { HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { Task } from '../../shared/orchestrator.ts';
import { invalidRequest, type FieldProblem } from '../errors.ts';
import { isActive } from './executor.ts';
import type { Orchestrator } from './orchestrator.ts';
import { waitAsked, waitReply, waitUntil } from './waiting.ts';

type Env = { Bindings: HttpBindings; Variables: { tenant: string } };

/** A task as the API shows it: `running` as soon as a worker holds it (its record may still be on its way). */
export function shownTask(o: Orchestrator, t: Task): Task {
  return t.status === 'queued' && o.tasks.isRunning(t.task_id) ? { ...t, status: 'running' } : t;
}

/** Waits for a task's end as the request asks, then answers it with `done` (see waiting.ts). */
export async function replyWithTask(
  c: Context,
  o: Orchestrator,
  t: Task,
  tenant: string,
  ask: NonNullable<ReturnType<typeof waitAsked>>,
): Promise<Response> {
  const over = () => {
    const now = o.store.tasks.get(t.task_id);
    return !now || !isActive(now);
  };
  const done = await waitUntil(c, o.store.waits, t.task_id, over, ask);
  return waitReply(c, shownTask(o, o.tasks.get(t.task_id, tenant)), done);
}

function page(limitRaw: string | undefined, offsetRaw: string | undefined): { limit: number; offset: number } {
  const problems: FieldProblem[] = [];
  const int = (raw: string | undefined, name: string, def: number, min: number, max: number) => {
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    problems.push({ field: name, message: `must be a whole number from ${min} to ${max}` });
    return def;
  };
  const limit = int(limitRaw, 'limit', 20, 1, 100);
  const offset = int(offsetRaw, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  if (problems.length) throw invalidRequest(problems, 'Fix the fields listed in error.details.');
  return { limit, offset };
}

export function threadRoutes(o: Orchestrator): Hono<Env> {
  const app = new Hono<Env>();
  app.get('/threads', (c) => {
    const { limit, offset } = page(c.req.query('limit'), c.req.query('offset'));
    return c.json(o.tasks.threads.list(c.get('tenant'), c.req.query('agent_id') || undefined, limit, offset));
  });
  app.get('/threads/:id', (c) => c.json(o.tasks.threads.shown(c.req.param('id'), c.get('tenant'))));
  app.delete('/threads/:id', async (c) => {
    await o.tasks.threads.delete(c.req.param('id'), c.get('tenant'));
    return c.json({ id: c.req.param('id'), deleted: true });
  });

  app.get('/tasks/:id/wait', async (c) => {
    const t = o.tasks.get(c.req.param('id'), c.get('tenant'));
    return replyWithTask(c, o, t, c.get('tenant'), waitAsked(c, true) as NonNullable<ReturnType<typeof waitAsked>>);
  });
  app.delete('/tasks/:id', async (c) => {
    await o.tasks.delete(c.req.param('id'), c.get('tenant'));
    return c.json({ id: c.req.param('id'), deleted: true });
  });
  return app;
}
