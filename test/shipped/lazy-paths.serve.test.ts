// What the build loads on first use, exercised through the compiled `serve` on the project's Node (issue 31: on Node 20
// every import() of the code-cached CLI bundle threw "A dynamic import callback was not specified", so MCP servers,
// http_get and every JWT failed in the build while every test of the sources passed). Each test here is the feature
// test of one or more of the build's lazily loaded modules (dist/main/dynamic-imports.json), as dynamic-imports.test.ts
// maps them: an agent's MCP tools over stdio and over the legacy SSE transport (@modelcontextprotocol/server-everything),
// http_get to a loopback host allow_hosts names, a draft-07 structured output (ajv), gateway JWTs (jose), pretty logs on
// a terminal (pino-pretty) and the memory trim's malloc_trim (koffi).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Json } from '../support/agent-api.ts';
import { type AgentServe, type AgentServeProcess, settled, startAgentServe } from '../support/agent-serve.ts';
import { shutDownAfterAll } from '../support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../support/mock-provider.ts';
import { freePort } from '../support/ports.ts';
import { configFor, eventually, type ServeProcess, startServe, switchboardArgs } from '../support/serve-process.ts';
import { testNode } from '../support/test-node.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('agents on the build: MCP tools, http_get, structured output', () => {
  let world: AgentServe<[string]>;
  let sb: AgentServeProcess;
  let key = '';
  let sseServer: ChildProcess;
  let page: http.Server;
  let pageUrl = '';

  beforeAll(async () => {
    // server-everything in its legacy SSE mode: Switchboard tries streamable HTTP first, then falls back to SSE.
    const ssePort = await freePort();
    sseServer = spawn(testNode(), [EVERYTHING, 'sse'], { env: { ...process.env, PORT: String(ssePort) } });
    let said = '';
    sseServer.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    await eventually(() => expect(said).toContain(`running on port ${ssePort}`), 15_000);
    page = http.createServer((_req, res) => res.end('<p>a page on loopback</p>'));
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/page`;
    world = await startAgentServe('sb-lazy-', ['acme'], {
      orchestrator: { run_window_ms: 0, http_get: { allow_hosts: ['127.0.0.1'] } },
      mcp_servers: {
        everything: { command: testNode(), args: [EVERYTHING, 'stdio'] },
        legacy: { url: `http://127.0.0.1:${ssePort}/sse` },
      },
    });
    [key] = world.keys;
    sb = await world.serve();
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    sseServer?.kill();
    await new Promise((r) => page?.close(r));
  });

  /** Runs a new agent with `tools` while the mock model calls `script`, then says "done"; the settled task. */
  async function runAgent(tools: string[], script: { name: string; arguments: object }[], extra: Json = {}) {
    const made = await call(`${sb.api}/agents`, key, 'POST', {
      name: `a${Math.random().toString(36).slice(2, 10)}`,
      model: 'mock-model',
      tools,
      ...extra,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    world.mock.setBehavior({ script: script.map((toolCall) => ({ toolCall })), tokens: ['done'] });
    const r = await call(`${sb.api}/agents/${made.body.id}/run`, key, 'POST', { message: 'go' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return settled(`${sb.api}/tasks/${r.body.task_id}`, key);
  }
  /** What the model was told each tool answered in the last task (the tool messages of its last request). */
  const toolAnswers = (): string[] =>
    (world.mock.requests.filter((r) => r.url === '/v1/chat/completions').at(-1)!.body.messages as Json[])
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content));

  it('an agent uses a tool of @modelcontextprotocol/server-everything over stdio', async () => {
    const task = await runAgent(['everything.get-sum'], [{ name: 'everything__get-sum', arguments: { a: 2, b: 3 } }]);
    expect(task).toMatchObject({ status: 'completed', result: 'done' });
    expect(toolAnswers()).toEqual(['The sum of 2 and 3 is 5.']);
  });

  it('an agent uses a tool of an MCP server that speaks only the legacy SSE transport', async () => {
    const task = await runAgent(['legacy.echo'], [{ name: 'legacy__echo', arguments: { message: 'over sse' } }]);
    expect(task).toMatchObject({ status: 'completed', result: 'done' });
    expect(toolAnswers()).toEqual(['Echo: over sse']);
  });

  it('http_get fetches a page from a loopback host that orchestrator.http_get.allow_hosts allows', async () => {
    const task = await runAgent(['http_get'], [{ name: 'http_get', arguments: { url: pageUrl } }], {
      approvals: { http_get: 'auto' },
    });
    expect(task).toMatchObject({ status: 'completed', result: 'done' });
    expect(toolAnswers()[0]).toContain('<p>a page on loopback</p>');
  });

  it('checks a structured answer against a draft-07 schema (ajv) and a 2020-12 one (ajv/dist/2020.js)', async () => {
    for (const $schema of ['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2020-12/schema']) {
      const made = await call(`${sb.api}/agents`, key, 'POST', {
        name: `s${Math.random().toString(36).slice(2, 10)}`,
        model: 'mock-model',
      });
      const schema = { $schema, type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
      world.mock.setBehavior({ tokens: ['{"n":"not a number"}'] });
      const r = await call(`${sb.api}/agents/${made.body.id}/run`, key, 'POST', {
        message: 'a number',
        context: { response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const task = await settled(`${sb.api}/tasks/${r.body.task_id}`, key);
      // The answer does not fit: asked again with ajv's words, then failed.
      expect(task.status).toBe('failed');
      expect(JSON.stringify(task.error)).toContain('/n must be integer');
    }
  });
});

describe('gateway JWTs on the build (jose)', () => {
  const SECRET = 'a-64-byte-secret-for-hs256-tokens-0123456789abcdef0123456789abcd';
  let mock: MockProvider;
  let sb: ServeProcess;
  beforeAll(async () => {
    mock = await startMockProvider({ name: 'mock', behavior: { tokens: ['Hello', ' JWT'] } });
    sb = await startServe({
      config: { ...configFor({ mock: mock.baseUrl }), gateway: { enabled: true, jwt: { secret: SECRET } } },
    });
  }, 60_000);
  shutDownAfterAll(() => [sb, mock]);

  const token = (secret: string) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(secret));
  const chat = async (jwt: string) =>
    fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('a valid HS256 JWT is accepted and a wrong one refused with the JWT reason', async () => {
    const ok = await chat(await token(SECRET));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Json).choices[0].message.content).toBe('Hello JWT');
    const wrong = await chat(await token(SECRET.replace('a-64', 'b-64')));
    expect(wrong.status).toBe(401);
    const body = (await wrong.json()) as Json;
    expect(body.error).toMatchObject({ type: 'authentication_error' });
    expect(body.error.message).toContain('The JWT is not valid: signature verification failed');
  });
});

describe('what the build loads for a terminal and after a burst', () => {
  it('logs in colour through pino-pretty when stderr is a terminal', async () => {
    // `script` gives the child a pseudo-terminal, as a person's shell does.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-tty-'));
    const configPath = path.join(dir, 'config.json');
    await fs.writeFile(configPath, JSON.stringify(configFor({})));
    const command = [testNode(), ...switchboardArgs('serve', '--config', configPath, '--port', '0')]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'info', TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(() => expect(out).toContain('listening on'), 15_000);
      // An edit of config.json is logged at info ("config reloaded from …"). pino-pretty's line: a time, the level in
      // colour, the message; a JSON line would start with {"level":
      await fs.writeFile(configPath, JSON.stringify({ ...configFor({}), log_requests: true }));
      await eventually(() => expect(out).toMatch(/\[\d\d:\d\d:\d\d\] \x1b\[32mINFO\x1b\[39m.*config reloaded/), 15_000);
      expect(out).not.toContain('{"level"');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("loads glibc's malloc_trim (koffi) once a burst's connections are gone", async () => {
    const mock = await startMockProvider({ name: 'mock' });
    const sb = await startServe({ config: configFor({ mock: mock.baseUrl }), env: { SWITCHBOARD_LOG_LEVEL: 'debug' } });
    try {
      // 40 connections held open past one of the memory trim's looks (every 2 s), then closed: its first burst is
      // over, and it readies malloc_trim.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
      await Promise.all(
        Array.from(
          { length: 40 },
          () =>
            new Promise<void>((resolve, reject) => {
              http.get(`${sb.baseUrl}/models`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
            }),
        ),
      );
      await new Promise((r) => setTimeout(r, 2_500));
      agent.destroy();
      await eventually(
        () => expect(sb.stderr() + sb.stdout()).toMatch(/memory trim: glibc's malloc_trim is ready/),
        15_000,
        200,
      );
      expect(sb.stderr() + sb.stdout()).not.toMatch(/malloc_trim is not reachable/);
    } finally {
      await sb.stop();
      await mock.close();
    }
  });
});
