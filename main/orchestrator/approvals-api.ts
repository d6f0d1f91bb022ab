// Routes of approvals under /api/v1 (mounted by api.ts after its key check, so `tenant` is set), and the check of an
// agent's `tools` list (built-in names, and MCP entries `<server>.<tool>` whose server is in mcp_servers).
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { APPROVAL_STATUSES, ApprovalDecisionSchema, BUILTIN_TOOLS } from '../../shared/orchestrator.ts';
import { invalidRequest, type FieldProblem } from '../errors.ts';
import { parseBody } from './body.ts';
import { serversOf, splitToolRef } from './mcp/names.ts';
import type { Orchestrator } from './orchestrator.ts';

type Env = { Bindings: HttpBindings; Variables: { tenant: string } };
const FIX = 'Fix the fields listed in error.details.';

/**
 * 400 invalid_request naming each entry of an agent's `tools` that is neither a built-in tool nor `<server>.<tool>`
 * (a glob allowed in either part) whose server is in config.json's mcp_servers.
 */
export function checkTools(list: readonly string[] | undefined, servers: readonly string[]): void {
  const known = BUILTIN_TOOLS as readonly string[];
  const problems: FieldProblem[] = [];
  (list ?? []).forEach((t, i) => {
    if (known.includes(t)) return;
    const ref = splitToolRef(t);
    if (!ref) {
      const hint = servers.length ? `, or "<server>.<tool>" of an MCP server (${servers.join(', ')})` : '';
      problems.push({ field: `tools.${i}`, message: `"${t}" is not a known tool (known: ${known.join(', ')}${hint})` });
    } else if (serversOf(t, servers).length === 0) {
      const have = servers.length ? `(configured: ${servers.join(', ')})` : '(none is configured)';
      problems.push({
        field: `tools.${i}`,
        message: `"${t}" names MCP server "${ref.server}", which is not in config.json's mcp_servers ${have}; add it, or import it with \`switchboard mcp import\``,
      });
    }
  });
  if (problems.length) throw invalidRequest(problems, FIX);
}

export function approvalRoutes(o: Orchestrator): Hono<Env> {
  const app = new Hono<Env>();
  // Read per request: building the routes must not need a running orchestrator (the route list is walked in tests).
  const approvals = () => o.tasks.executor.approvals;
  app.get('/approvals', (c) => {
    const status = c.req.query('status') || undefined;
    if (status && !(APPROVAL_STATUSES as readonly string[]).includes(status))
      throw invalidRequest([{ field: 'status', message: `must be one of ${APPROVAL_STATUSES.join(', ')}` }], FIX);
    const task_id = c.req.query('task_id') || undefined;
    return c.json({ data: approvals().list(c.get('tenant'), { status, task_id }) });
  });
  app.get('/tasks/:id/approvals', (c) => {
    const task = o.tasks.get(c.req.param('id'), c.get('tenant'));
    return c.json({ data: approvals().list(c.get('tenant'), { task_id: task.task_id }) });
  });
  app.post('/tasks/:id/approvals/:call_id', async (c) => {
    o.tasks.get(c.req.param('id'), c.get('tenant'));
    const body = await parseBody(c, ApprovalDecisionSchema, 'Send {"decision": "approve"} or {"decision": "deny"}.');
    return c.json(await approvals().decide(c.req.param('id'), c.req.param('call_id'), body, c.get('tenant')));
  });
  return app;
}
