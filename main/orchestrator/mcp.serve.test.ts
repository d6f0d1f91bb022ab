// MCP tools through `switchboard serve`, against real MCP servers from npm (@modelcontextprotocol/server-everything
// over stdio and over streamable HTTP, @modelcontextprotocol/server-filesystem over stdio) and the test server of
// test/support/mcp-test-server.ts (a call that crashes it, one that hangs, one that is slow), with the mock provider
// as the model calling them.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type EventStream, type Json, openEvents } from '../../test/support/agent-api.ts';
import { type AgentServe, type AgentServeProcess, settled, startAgentServe } from '../../test/support/agent-serve.ts';
import { freePort } from '../../test/support/ports.ts';
import { eventually } from '../../test/support/serve-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const TEST_SERVER = path.join(ROOT, 'test/support/mcp-test-server.ts');
const SECRET = 'ghp_mcpSecretToken0123456789abcdef';

let world: AgentServe<[string]>;
let sb: AgentServeProcess;
let key = '';
let api = '';
let events: EventStream;
let http: ChildProcess;
let files = '';
let log = '';

const agent = async (name: string, tools: string[], extra: Record<string, unknown> = {}) =>
  (await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model', tools, ...extra })).body;

/** Runs the agent with the mock answering `script` then "done", and answers the task's events once it is over. */
async function run(agentId: string, script: { name: string; arguments: object }[]) {
  world.mock.setBehavior({ script: script.map((toolCall) => ({ toolCall })), tokens: ['done'] });
  const r = await call(`${api}/agents/${agentId}/run`, key, 'POST', { message: 'go' });
  expect(r.status).toBe(200);
  const task = await settled(`${api}/tasks/${r.body.task_id}`, key);
  const got = events.events.filter((e) => e.task_id === r.body.task_id);
  return { task, got, results: got.filter((e) => e.type === 'tool_result').map((e) => e.output ?? '') };
}

const chats = () => world.mock.requests.filter((r) => r.url === '/v1/chat/completions');

beforeAll(async () => {
  files = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-mcp-files-'));
  log = path.join(files, '..', `${path.basename(files)}.log`);
  await fs.writeFile(path.join(files, 'hello.txt'), 'hello from disk');
  const port = await freePort();
  http = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) } });
  let said = '';
  http.stderr!.on('data', (d: Buffer) => (said += d.toString()));
  await eventually(() => expect(said).toContain('listening on port'), 15_000);
  const node = process.execPath;
  world = await startAgentServe('sb-mcp-', ['acme'], {
    orchestrator: { run_window_ms: 0, workers: 2, sse_heartbeat_ms: 300 },
    mcp_servers: {
      everything: { command: node, args: [EVERYTHING, 'stdio'] },
      fs: { command: node, args: [FILESYSTEM, files] },
      web: { url: `http://127.0.0.1:${port}/mcp` },
      t: {
        command: node,
        args: ['--import', 'tsx', TEST_SERVER],
        cwd: ROOT,
        env: { MCP_TEST_LOG: log, GITHUB_TOKEN: SECRET },
        call_timeout_s: 3,
      },
      brief: { command: node, args: ['--import', 'tsx', TEST_SERVER], cwd: ROOT, idle_timeout_s: 1 },
      ghost: { command: 'switchboard-test-no-such-mcp-server' },
    },
  });
  [key] = world.keys;
  sb = await world.serve();
  api = sb.api;
  events = await openEvents(`${api}/events`, key);
}, 60_000);

afterAll(async () => {
  events?.close();
  await world?.close();
  http?.kill();
  await fs.rm(files, { recursive: true, force: true });
  await fs.rm(log, { force: true });
});

describe('MCP tools', () => {
  it("offers the allowed tools as <server>__<tool> with the server's JSON schemas and runs a call over stdio", async () => {
    const a = await agent('adder', ['everything.get-sum', 'calculator']);
    const { task, got, results } = await run(a.id, [{ name: 'everything__get-sum', arguments: { a: 2, b: 3 } }]);
    expect(task).toMatchObject({ status: 'completed', result: 'done' });
    const offered = chats().at(-2)!.body.tools as { function: { name: string; parameters: Record<string, unknown> } }[];
    expect(offered.map((t) => t.function.name).sort()).toEqual(['calculator', 'everything__get-sum']);
    const sum = offered.find((t) => t.function.name === 'everything__get-sum')!.function;
    expect(sum.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    // Events name the tool as the agent's list does; get-sum is read-only (readOnlyHint), so it ran without asking.
    expect(got.map((e) => e.type)).toEqual(['tool_call', 'tool_result', 'output', 'completed']);
    expect(got[0]).toMatchObject({ tool: 'everything.get-sum', input: { a: 2, b: 3 }, call_id: 'call_mock1' });
    expect(results).toEqual(['The sum of 2 and 3 is 5.']);
    expect(chats().at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'The sum of 2 and 3 is 5.' });
  });

  it('passes images on as image parts of a user message, and structured content as JSON', async () => {
    const a = await agent('looker', ['everything.get-tiny-image', 'everything.get-structured-content']);
    const { results } = await run(a.id, [
      { name: 'everything__get-tiny-image', arguments: {} },
      { name: 'everything__get-structured-content', arguments: { location: 'Chicago' } },
    ]);
    expect(results[0]).toMatch(/^Here's the image you requested:\n\[image 1: image\/png, [\d.]+ KB, attached after/);
    const afterImage = chats().at(-2)!.body.messages;
    expect(afterImage.at(-1)).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: 'Images the tools above returned:' },
        { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } },
      ],
    });
    expect(JSON.parse(results[1]!)).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  });

  it('allow lists take globs: fs.* reaches the filesystem server, a tool outside the list is refused', async () => {
    const writer = await agent('writer', ['fs.*'], { approvals: { 'fs.*': 'auto' } });
    const target = path.join(files, 'made-by-agent.txt');
    const { results } = await run(writer.id, [
      { name: 'fs__write_file', arguments: { path: target, content: 'written over MCP' } },
      { name: 'fs__read_text_file', arguments: { path: path.join(files, 'hello.txt') } },
    ]);
    expect(await fs.readFile(target, 'utf8')).toBe('written over MCP');
    expect(results[1]).toBe('hello from disk');
    const reader = await agent('reader', ['fs.read_*']);
    const names = () => (chats().at(-2)!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    const { results: refused } = await run(reader.id, [
      { name: 'fs__write_file', arguments: { path: target, content: 'no' } },
    ]);
    expect(names()).toContain('fs__read_text_file');
    expect(names()).not.toContain('fs__write_file');
    expect(refused).toEqual(['error: tool "fs__write_file" is not enabled for this agent']);
    expect(await fs.readFile(target, 'utf8')).toBe('written over MCP');
  });

  it('speaks streamable HTTP (server-everything in its streamableHttp mode)', async () => {
    const a = await agent('web', ['web.echo']);
    const { results } = await run(a.id, [{ name: 'web__echo', arguments: { message: 'over http' } }]);
    expect(results).toEqual(['Echo: over http']);
  });

  it('a server that crashes mid-call gives the model a tool error (and says why); the next call starts it again', async () => {
    const a = await agent('crasher', ['t.crash', 't.echo']);
    const { task, results } = await run(a.id, [
      { name: 't__crash', arguments: {} },
      { name: 't__echo', arguments: { text: 'back again' } },
    ]);
    expect(task.status).toBe('completed');
    expect(results[0]).toMatch(/^error: MCP server "t" failed calling crash: the server closed the connection/);
    expect(results[0]).toContain('crashing on purpose');
    expect(results[1]).toBe('back again');
    // The environment given to the server never shows: GITHUB_TOKEN's value is scrubbed from every error text.
    expect(JSON.stringify(events.events)).not.toContain(SECRET);
  });

  it('a call that hangs ends at call_timeout_s with a tool error, never a stuck task', async () => {
    const a = await agent('hanger', ['t.hang']);
    const t0 = Date.now();
    const { task, results } = await run(a.id, [{ name: 't__hang', arguments: {} }]);
    expect(task.status).toBe('completed');
    expect(results).toEqual(['error: MCP server "t" failed calling hang: no answer within call_timeout_s (3 s)']);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('a server that is not installed: its tools are still offered, a call says why it failed, and the model is told', async () => {
    const a = await agent('ghostly', ['ghost.search'], { approvals: { 'ghost.*': 'auto' } });
    const { task, results } = await run(a.id, [{ name: 'ghost__search', arguments: { q: 'x' } }]);
    expect(task.status).toBe('completed');
    expect(results[0]).toMatch(
      /^error: MCP server "ghost" failed starting: the command "switchboard-test-no-such-mcp-server" was not found/,
    );
    const first = chats().at(-2)!.body;
    expect(first.messages.at(-1).content).toContain(
      'The MCP server "ghost" is unavailable (MCP server "ghost" failed starting',
    );
    expect(first.tools[0].function).toMatchObject({
      name: 'ghost__search',
      description: expect.stringContaining('unavailable'),
    });
  });

  // Issue 35: a person was asked to approve a call that could not run (its server was known to be down).
  it('a call to a server known to be unavailable is not put to a person: no approval, the model gets why', async () => {
    const a = await agent('ghost-asker', ['ghost.search']); // an MCP tool, not read-only: its policy is ask
    const { task, got, results } = await run(a.id, [{ name: 'ghost__search', arguments: { q: 'x' } }]);
    expect(task.status).toBe('completed');
    expect(got.map((e) => e.type)).not.toContain('approval_required');
    expect(results[0]).toMatch(/^error: the MCP server "ghost" is unavailable \(MCP server "ghost" failed starting/);
    expect(results[0]).toContain('no approval was asked');
    expect((await call(`${api}/approvals?task_id=${task.task_id}`, key)).body.data).toEqual([]);
  });

  it('stopping a task cancels its MCP call (the server is told, notifications/cancelled)', async () => {
    const a = await agent('sleeper', ['t.slow']);
    world.mock.setBehavior({ script: [{ toolCall: { name: 't__slow', arguments: { ms: 60_000 } } }] });
    const r = await call(`${api}/agents/${a.id}/run`, key, 'POST', { message: 'sleep' });
    await events.waitFor((e) => e.some((x) => x.type === 'tool_call' && x.task_id === r.body.task_id));
    await new Promise((res) => setTimeout(res, 300));
    const t0 = Date.now();
    const stop = await call(`${api}/tasks/${r.body.task_id}/stop`, key, 'POST');
    expect(stop.body.status).toBe('stopped');
    expect(Date.now() - t0).toBeLessThan(2000);
    await eventually(async () => expect(await fs.readFile(log, 'utf8')).toMatch(/cancelled slow/));
  });

  it('an agent naming a server that is not configured is refused, naming the entry', async () => {
    const r = await call(`${api}/agents`, key, 'POST', { name: 'x', model: 'm', tools: ['calculator', 'github.*'] });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      {
        field: 'tools.1',
        message: expect.stringContaining('names MCP server "github", which is not in config.json\'s mcp_servers'),
      },
    ]);
  });

  it('GET /admin/v1/mcp: each server, its state and tools; secrets in env masked by the config API', async () => {
    const overview = (await (await sb.admin('/mcp')).json()) as Json;
    const byName = Object.fromEntries(overview.servers.map((s: { name: string }) => [s.name, s]));
    expect(byName.everything).toMatchObject({ transport: 'stdio', state: 'running', enabled: true, error: null });
    expect(byName.everything.tools.map((t: { name: string }) => t.name)).toContain('everything.get-sum');
    expect(byName.web).toMatchObject({
      transport: 'http',
      target: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
    });
    expect(byName.ghost).toMatchObject({ state: 'failed', error: expect.stringContaining('was not found') });
    expect(overview.sources.map((s: { source: string }) => s.source)).toEqual(
      expect.arrayContaining(['claude-desktop', 'claude-code', 'cursor']),
    );
    const cfg = (await (await sb.admin('/config')).json()) as Json;
    expect(cfg.config.mcp_servers.t.env.GITHUB_TOKEN).toBe('ghp****cdef');
    expect(cfg.config.mcp_servers.t.env.MCP_TEST_LOG).toBe(log);
    expect(JSON.stringify(cfg)).not.toContain(SECRET);
    // Refresh starts a stopped server and lists its tools.
    const refreshed = (await (await sb.admin('/mcp/brief/refresh', { method: 'POST' })).json()) as Json;
    expect(refreshed).toMatchObject({ name: 'brief', state: 'running' });
    expect(refreshed.tools.map((t: { tool: string }) => t.tool)).toEqual(['echo', 'note', 'slow', 'hang', 'crash']);
    // ...and idle_timeout_s (1 s for this one) stops it again.
    await eventually(async () => {
      const s = ((await (await sb.admin('/mcp')).json()) as Json).servers.find(
        (x: { name: string }) => x.name === 'brief',
      );
      expect(s.state).toBe('stopped');
    }, 5_000);
    expect((await sb.admin('/mcp/nope/refresh', { method: 'POST' })).status).toBe(404);
  });

  it('POST /admin/v1/mcp/import: a pasted mcpServers block joins config.json (a taken name is skipped) and works at once', async () => {
    const post = (body: unknown) =>
      sb.admin('/mcp/import', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const pasted = {
      mcpServers: {
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
        'pasted echo': {
          command: process.execPath,
          args: ['--import', 'tsx', TEST_SERVER],
          cwd: ROOT,
          alwaysAllow: ['echo'],
        },
      },
    };
    const r = await post(pasted);
    expect(r.status).toBe(200);
    const body = (await r.json()) as Json;
    expect(body.imported).toEqual([
      {
        name: 'pasted-echo',
        from: '(pasted)',
        original_name: 'pasted echo',
        notes: [
          'renamed from "pasted echo" (server names take letters, digits, "-", "_")',
          '"alwaysAllow" not imported: Switchboard has no such setting',
        ],
      },
    ]);
    expect(body.skipped).toEqual([
      expect.objectContaining({ name: 'everything', reason: expect.stringContaining('not overwritten') }),
    ]);
    expect(body.backup).toEqual(expect.any(String));
    const cfg = (await (await sb.admin('/config')).json()) as Json;
    expect(cfg.config.mcp_servers.everything.args).toEqual([EVERYTHING, 'stdio']); // untouched
    const a = await agent('importer', ['pasted-echo.echo']);
    expect(a.id).toMatch(/^agt_/);
    const { results } = await run(a.id, [{ name: 'pasted-echo__echo', arguments: { text: 'imported and working' } }]);
    expect(results).toEqual(['imported and working']);
    const bad = await post({ from: 'notepad' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error.details).toEqual([expect.objectContaining({ field: 'from' })]);
  });
});
