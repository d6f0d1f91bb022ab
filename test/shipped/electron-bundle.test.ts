// The desktop app's compiled main bundle (dist/main/electron/main.js, what the packaged app runs) loaded in plain Node
// against the stand-in for Electron's API (test/support/electron-bundle-preload.ts), on each Node of the as-shipped
// tier (Electron 45's main process runs Node 22). The shell starts the engine, the tray and the window; then every
// lazily loaded chunk of the bundle is taken through its feature over real sockets (the Hono app, JWTs, the realtime
// upgrade, Connect, the Redis store and its team log, MCP over stdio, SSE and streamable HTTP, http_get), and the
// test checks that each chunk in dist/main/chunks/ was loaded, and each package the bundle leaves to node_modules
// (what the installers ship): a new chunk or package that no feature here reaches fails, naming it. The app's own
// state goes through the real electron-store (from node_modules, as shipped) into the user-data folder.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { call, createKey, type Json } from '../support/agent-api.ts';
import { settled } from '../support/agent-serve.ts';
import { type MockProvider, startMockProvider } from '../support/mock-provider.ts';
import { freePort } from '../support/ports.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { configFor, eventually } from '../support/serve-process.ts';
import { testNode } from '../support/test-node.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const SECRET = 'a-64-byte-secret-for-hs256-tokens-0123456789abcdef0123456789abcd';

type State = {
  trayLabels: string[];
  pages: (string | null)[];
  windows: { options: Record<string, unknown>; bounds: Record<string, number>; maximized: boolean }[];
  channels: string[];
  resolved: string[];
  required: string[];
};

/** An MCP server-everything in `mode` (sse, streamableHttp) on a free port, once it listens. */
async function everythingOver(mode: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(testNode(), [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) } });
  let said = '';
  child.stderr!.on('data', (d: Buffer) => (said += d.toString()));
  await eventually(() => expect(said).toMatch(new RegExp(`(running on|listening on) port ${port}`)), 15_000);
  return { child, port };
}

describe('the desktop main bundle on Node, against the Electron stand-in', () => {
  let dir = '';
  let port = 0;
  let mock: MockProvider;
  let redis: TestRedis;
  let app: ChildProcess;
  let servers: ChildProcess[] = [];
  let page: http.Server;
  let agentKey = '';
  let adminToken = '';
  let jwt = '';
  let exitCode: Promise<number | null>;
  let output = '';
  let nextId = 1;
  const pending = new Map<number, (m: { result?: unknown; error?: string }) => void>();

  const ask = <T>(msg: { cmd: string; [k: string]: unknown }): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (m) => (m.error ? reject(new Error(m.error)) : resolve(m.result as T)));
      app.send({ ...msg, id });
    });
  const url = (p: string) => `http://127.0.0.1:${port}${p}`;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-electron-bundle-'));
    port = await freePort();
    mock = await startMockProvider({ name: 'mock' });
    redis = await startRedis();
    const sse = await everythingOver('sse');
    const web = await everythingOver('streamableHttp');
    servers = [sse.child, web.child];
    page = http.createServer((_req, res) => res.end('<p>fetched by the desktop app</p>'));
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    const configPath = path.join(dir, 'config.json');
    await fs.writeFile(
      configPath,
      JSON.stringify({
        ...configFor({ mock: mock.baseUrl }),
        listen_port: port,
        gateway: { enabled: true, jwt: { secret: SECRET } },
        store: { kind: 'redis', url: redis.url, prefix: `e${randomUUID().slice(0, 8)}:` },
        orchestrator: { run_window_ms: 0, http_get: { allow_hosts: ['127.0.0.1'] } },
        // The mock stands in for OpenAI's API, so its requests are priced by the price table (loaded on first use).
        quirks: { provider_hosts: { mock: 'api.openai.com' }, entries: [] },
        mcp_servers: {
          everything: { command: testNode(), args: [EVERYTHING, 'stdio'] },
          legacy: { url: `http://127.0.0.1:${sse.port}/sse` },
          web: { url: `http://127.0.0.1:${web.port}/mcp` },
        },
      }),
    );
    agentKey = await createKey(configPath, 'acme');
    // The desktop state an earlier launch left, in the user-data folder --user-data-dir names (main.ts moves it there).
    await fs.mkdir(path.join(dir, 'user-data'), { recursive: true });
    await fs.writeFile(
      path.join(dir, 'user-data/desktop-state.json'),
      JSON.stringify({ window: { x: 120, y: 90, width: 1000, height: 700, maximized: false }, auto_update: 'check' }),
    );
    jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('desk')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));

    app = spawn(
      testNode(),
      [
        '--import',
        'tsx',
        '--import',
        path.join(ROOT, 'test/support/electron-bundle-preload.ts'),
        path.join(ROOT, 'dist/main/electron/main.js'),
        `--user-data-dir=${path.join(dir, 'user-data')}`,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, SWITCHBOARD_CONFIG: configPath, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'xdg') },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      },
    );
    app.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    app.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    app.on('message', (m: { id: number; result?: unknown; error?: string }) => pending.get(m.id)?.(m));
    exitCode = new Promise((r) => app.once('exit', (code) => r(code)));
    await eventually(async () => expect((await fetch(url('/api/v1/health'))).status, output).toBe(200), 30_000, 100);
    adminToken = (await fs.readFile(path.join(dir, 'admin-token'), 'utf8')).trim();
    // The engine answers before the shell has made its tray and window: wait for both.
    await eventually(async () => {
      const state = await ask<State>({ cmd: 'state' });
      expect(state.trayLabels.length * state.windows.length).toBeGreaterThan(0);
    }, 10_000);
  }, 90_000);

  afterAll(async () => {
    if (app && app.exitCode === null) app.kill('SIGKILL');
    for (const s of servers) s.kill();
    await new Promise((r) => page?.close(r));
    await mock?.close();
    await redis?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('starts the engine, the tray and the window, and answers the renderer over IPC', async () => {
    const state = await ask<State>({ cmd: 'state' });
    expect(state.trayLabels.join(' | ')).toContain(`port ${port}`);
    expect(state.pages[0]).toBe(path.join(ROOT, 'dist/renderer/index.html'));
    expect(state.channels).toContain('sb:getAppInfo');
    const info = await ask<{ ok: boolean; data: Json }>({ cmd: 'invoke', channel: 'sb:getAppInfo' });
    expect(info.ok).toBe(true);
  });

  it("keeps the app's own state with electron-store (from node_modules, as shipped): the window's place and the auto-update switch", async () => {
    const file = path.join(dir, 'user-data/desktop-state.json');
    const state = await ask<State>({ cmd: 'state' });
    expect(state.windows[0]!.options).toMatchObject({ x: 120, y: 90, width: 1000, height: 700 });
    expect(await ask({ cmd: 'invoke', channel: 'sb:getDesktopSettings' })).toMatchObject({
      ok: true,
      data: { auto_update: 'check', updates_supported: false },
    });
    expect(await ask({ cmd: 'invoke', channel: 'sb:setAutoUpdate', req: { mode: 'off' } })).toMatchObject({
      ok: true,
      data: { auto_update: 'off' },
    });
    await ask({ cmd: 'moveWindow', x: 300, y: 200 });
    await eventually(async () =>
      expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({
        window: { x: 300, y: 200, width: 1000, height: 700, maximized: false },
        auto_update: 'off',
      }),
    );
  });

  it('takes each lazily loaded chunk through its feature, and every chunk of the bundle was loaded', async () => {
    const auth = { authorization: `Bearer ${jwt}` };
    // The Hono app (every route but chat completions) and jose (a JWT in gateway mode).
    const models = await fetch(url('/v1/models'), { headers: auth });
    expect(models.status).toBe(200);
    const wrong = await fetch(url('/v1/models'), { headers: { authorization: `Bearer ${jwt}x` } });
    expect(((await wrong.json()) as Json).error.message).toContain('The JWT is not valid');
    // The realtime upgrade: refused with the spec's error body for want of a model, after the chunk loaded.
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime`, { headers: auth });
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => reject(new Error('opened without a model')));
      ws.once('error', () => undefined);
    });
    expect(refused).toBe(400);
    // A priced request: the price table (a CommonJS package required on the first price).
    const priced = await fetch(url('/v1/chat/completions'), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(priced.status).toBe(200);
    // Connect, through the admin API the window uses.
    const connect = await fetch(url('/admin/v1/connect'), { headers: { authorization: `Bearer ${adminToken}` } });
    expect(connect.status).toBe(200);
    expect(((await connect.json()) as Json).tools.length).toBeGreaterThan(3);
    // The Redis store and its team log: the status says Redis is up.
    await eventually(async () => {
      const status = (await (
        await fetch(url('/admin/v1/status'), { headers: { authorization: `Bearer ${adminToken}` } })
      ).json()) as Json;
      expect(status.store).toMatchObject({ kind: 'redis', up: true });
    }, 10_000);
    // An agent with MCP tools over stdio, SSE and streamable HTTP, and http_get.
    const api = url('/api/v1');
    const agent = await call(`${api}/agents`, agentKey, 'POST', {
      name: 'desk',
      model: 'mock-model',
      tools: ['everything.get-sum', 'legacy.echo', 'web.echo', 'http_get'],
      approvals: { http_get: 'auto' },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    mock.setBehavior({
      script: [
        { toolCall: { name: 'everything__get-sum', arguments: { a: 1, b: 2 } } },
        { toolCall: { name: 'legacy__echo', arguments: { message: 'sse' } } },
        { toolCall: { name: 'web__echo', arguments: { message: 'http' } } },
        { toolCall: { name: 'http_get', arguments: { url: pageUrl } } },
      ],
      tokens: ['done'],
    });
    const run = await call(`${api}/agents/${agent.body.id}/run`, agentKey, 'POST', { message: 'go' });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const task = await settled(`${api}/tasks/${run.body.task_id}`, agentKey);
    expect(task).toMatchObject({ status: 'completed', result: 'done' });
    const told = (mock.requests.filter((r) => r.url === '/v1/chat/completions').at(-1)!.body.messages as Json[])
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(told.slice(0, 3)).toEqual(['The sum of 1 and 2 is 3.', 'Echo: sse', 'Echo: http']);
    expect(told[3]).toContain('fetched by the desktop app');

    const chunksDir = path.join(ROOT, 'dist/main/chunks');
    const chunks = (await fs.readdir(chunksDir)).filter((f) => f.endsWith('.js'));
    const { resolved } = await ask<State>({ cmd: 'state' });
    const loaded = new Set(resolved.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u)));
    const notLoaded = chunks.filter((c) => !loaded.has(path.join(chunksDir, c)));
    expect(notLoaded, 'chunks of the desktop bundle no feature here loaded: add the feature that loads each').toEqual(
      [],
    );

    // Every package the bundle leaves to node_modules (shipped by the installers) was loaded from there, but those
    // this run cannot reach: electron-updater (the stand-in's; only a packaged app asks for it) and pino-pretty (a
    // terminal only).
    const { required } = await ask<State>({ cmd: 'state' });
    const files = [...loaded, ...required];
    const bundle = [path.join(ROOT, 'dist/main/electron/main.js'), ...chunks.map((c) => path.join(chunksDir, c))];
    const text = (await Promise.all(bundle.map((f) => fs.readFile(f, 'utf8')))).join('\n');
    const pkg = JSON.parse(await fs.readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // Named as a module: from "x", import("x/…"), require("x"), a createRequire's ("x").
    const named = Object.keys(pkg.dependencies).filter((d) =>
      new RegExp(`(from\\s*|\\()"${d.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/[^"]*)?"`).test(text),
    );
    expect(named).toContain('electron-store');
    const unreached = named
      .filter((d) => !['electron-updater', 'pino-pretty'].includes(d))
      .filter((d) => !files.some((f) => f.includes(`${path.sep}node_modules${path.sep}${d}${path.sep}`)));
    expect(unreached, 'packages the desktop bundle loads from node_modules that no feature here loaded').toEqual([]);
  });

  it('quits when asked, stopping the engine', async () => {
    await ask({ cmd: 'quit' });
    expect(await exitCode).toBe(0);
    await expect(fetch(url('/api/v1/health'))).rejects.toThrow();
  });
});
