// The admin API of MCP servers (docs/agents.md, "MCP tools"): each server's state and tools, a refresh (start it and list its
// tools), enabling or disabling one, and importing the mcpServers block of Claude Desktop, Claude Code and Cursor
// (or of a file named by path: imported disabled) into config.json. Mounted
// under /admin/v1 (app.ts), so the admin token, Host and Origin guards apply.
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { McpImportRequestSchema, type McpOverview } from '../../shared/mcp.ts';
import { ConfigError, type ConfigStore } from '../config/store.ts';
import { ApiError, invalidRequest, issuesToProblems } from '../errors.ts';
import { importMcpServers, sourceFiles } from '../orchestrator/mcp/import.ts';
import { setServerEnabled } from '../orchestrator/mcp/launch.ts';
import type { McpManager } from '../orchestrator/mcp/manager.ts';
import { parseJsonBounded, readApiBody } from '../proxy/body.ts';

export function mcpRoutes(mcp: McpManager, store: ConfigStore): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.get('/mcp', async (c) => {
    const body: McpOverview = { servers: mcp.states(), sources: await sourceFiles(process.env, process.cwd()) };
    return c.json(body);
  });

  /** Starts the server if needed and lists its tools now; a server that fails answers its state with the error. */
  app.post('/mcp/:name/refresh', async (c) => {
    const name = c.req.param('name');
    if (!mcp.names().includes(name))
      throw new ApiError('not_found', `No MCP server "${name}" in config.json.`, 'GET /admin/v1/mcp lists them.');
    const ac = new AbortController();
    c.env.incoming.once('close', () => ac.abort());
    await mcp.refresh(name, ac.signal).catch(() => undefined); // the failure is in the state
    return c.json(mcp.states().find((s) => s.name === name));
  });

  /**
   * Enables or disables one server in config.json (no body). The answer is its state, whose `launch` says what it runs:
   * the UI shows that line and asks before it enables a server (issue 33, item 2).
   */
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const)
    app.post(`/mcp/:name/${action}`, async (c) => {
      const name = c.req.param('name');
      try {
        await setServerEnabled(store, name, enabled);
      } catch (err) {
        if (err instanceof ConfigError)
          throw new ApiError(
            'config_invalid',
            `config.json was not saved: ${err.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`,
            'Fix config.json first; it is unchanged.',
            err.problems,
          );
        throw err;
      }
      await mcp.configure(); // a server disabled now is stopped now
      return c.json(mcp.states().find((s) => s.name === name));
    });

  app.post('/mcp/import', async (c) => {
    const raw = await readApiBody(c);
    let value: unknown = {};
    if (raw.toString('utf8').trim() !== '') {
      try {
        value = parseJsonBounded(raw);
      } catch (err) {
        throw new ApiError('invalid_json', `The body is not valid JSON: ${(err as Error).message}.`);
      }
    }
    const parsed = McpImportRequestSchema.safeParse(value);
    if (!parsed.success)
      throw invalidRequest(
        issuesToProblems(parsed.error.issues),
        'Send {} (every known source), {"from": "claude-desktop" | "claude-code" | "cursor"}, {"path": "<file>"} or {"mcpServers": {…}}.',
      );
    try {
      return c.json(await importMcpServers(store, parsed.data));
    } catch (err) {
      if (err instanceof ConfigError)
        throw new ApiError(
          'config_invalid',
          `The imported servers were not saved: ${err.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`,
          'Fix config.json (or the source file) and import again; config.json is unchanged.',
          err.problems,
        );
      throw err;
    }
  });
  return app;
}
