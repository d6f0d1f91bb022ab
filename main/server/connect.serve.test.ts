// Connect through the admin API of a real `switchboard serve` whose HOME is a temporary folder: the overview, connect
// and undo (the files the tools read, then a request made the way each tool makes it, named as its app in the request
// log), the refusals in the admin error shape, and Try it through the real routes to a mock provider.
import Anthropic from '@anthropic-ai/sdk';
import fs from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectOverviewSchema, ConnectResultSchema, TryResultSchema } from '../../shared/connect.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';

let mock: MockProvider;
let sb: ServeProcess;
let tmp: TempDir;
let home: string;
beforeAll(async () => {
  tmp = await makeTempDir('sb-connect-serve');
  home = path.join(tmp.dir, 'home');
  await fs.mkdir(path.join(home, '.claude'), { recursive: true });
  await fs.mkdir(path.join(home, '.codex'));
  await fs.mkdir(path.join(tmp.dir, 'bin'));
  mock = await startMockProvider({ name: 'mock' });
  sb = await startServe({
    // The mock is on loopback, which would cost 0: a price override gives /try a cost to compute.
    config: configFor(
      { mock: mock.baseUrl },
      { rules: [{ pattern: 'gpt-*', provider: 'mock' }], prices: [{ provider: 'mock', input: 1, output: 2 }] },
    ),
    env: {
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      PATH: path.join(tmp.dir, 'bin'),
    },
  });
});
shutDownAfterAll(() => [sb, mock]);
afterAll(() => tmp?.cleanup());
defaultBehaviorBeforeEach(() => [mock]);

const post = (route: string, body?: unknown) =>
  sb.admin(route, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
const errorOf = async (res: Response) => ErrorBodySchema.parse(await res.json()).error;
const lastApp = async () => {
  const logs = (await (await sb.admin('/logs?limit=1')).json()) as { data: { app: string | null }[] };
  return logs.data[0]?.app;
};

describe('GET /admin/v1/connect', () => {
  it('answers every tool in order, with base URLs on the port the server listens on', async () => {
    const res = await sb.admin('/connect');
    expect(res.status).toBe(200);
    const o = ConnectOverviewSchema.parse(await res.json());
    expect(o.base_urls).toEqual({
      openai: `http://localhost:${sb.port}/v1`,
      anthropic: `http://localhost:${sb.port}`,
      gemini: `http://localhost:${sb.port}/v1beta`,
      ollama: `http://localhost:${sb.port}`,
    });
    expect(o.tools[0]).toMatchObject({ id: 'claude-code', installed: true, state: 'not_connected' });
    expect(o.tools.find((t) => t.id === 'gemini-cli')).toMatchObject({ installed: false, state: 'not_installed' });
  });

  it('needs the admin token', async () => {
    const res = await fetch(`${sb.url}/admin/v1/connect`);
    expect(res.status).toBe(401);
  });
});

describe('POST /admin/v1/connect/:tool, then the tool calls Switchboard as it is configured', () => {
  it('Claude Code: the Anthropic SDK with the settings written is named "claude-code"; undo removes the file', async () => {
    const res = await post('/connect/claude-code');
    expect(res.status).toBe(200);
    const r = ConnectResultSchema.parse(await res.json());
    const file = path.join(home, '.claude', 'settings.json');
    expect(r.changed).toEqual([{ path: file, action: 'created', backup: null }]);
    const { env } = JSON.parse(await fs.readFile(file, 'utf8'));
    const client = new Anthropic({
      baseURL: env.ANTHROPIC_BASE_URL,
      authToken: env.ANTHROPIC_AUTH_TOKEN,
      apiKey: null,
    });
    const reply = await client.messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(reply.content[0]).toMatchObject({ type: 'text', text: 'Hello from mock' });
    expect(await lastApp()).toBe('claude-code');

    const u = ConnectResultSchema.parse(await (await post('/connect/claude-code/undo')).json());
    expect(u.changed).toEqual([{ path: file, action: 'removed', backup: null }]);
    await expect(fs.stat(file)).rejects.toThrow();
    const again = await post('/connect/claude-code/undo');
    expect(again.status).toBe(404);
    expect((await errorOf(again)).message).toContain('Nothing to undo for Claude Code');
  });

  it('Codex: the Responses API with the provider written to config.toml is named "codex"; undo restores the bytes', async () => {
    const file = path.join(home, '.codex', 'config.toml');
    const original = '# mine\nmodel = "gpt-4o-mini"\n\n[tui]\nnotifications = false\n';
    await fs.writeFile(file, original, { mode: 0o600 });
    expect((await post('/connect/codex', {})).status).toBe(200);
    const toml = parseToml(await fs.readFile(file, 'utf8')) as any;
    const provider = toml.model_providers[toml.model_provider];
    const client = new OpenAI({ baseURL: provider.base_url, apiKey: 'unused', defaultHeaders: provider.http_headers });
    const reply = await client.responses.create({ model: toml.model, input: 'hi' });
    expect(reply.output_text).toBe('Hello from mock');
    expect(await lastApp()).toBe('codex');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);

    expect((await post('/connect/codex/undo')).status).toBe(200);
    expect(await fs.readFile(file, 'utf8')).toBe(original);
  });
});

describe('refusals, in the admin error shape', () => {
  it('a tool that points elsewhere: 409 connect_conflict naming the file and the value; force replaces it', async () => {
    const file = path.join(home, '.claude', 'settings.json');
    const original = '{\n  "env": { "ANTHROPIC_BASE_URL": "https://api.example.com" }\n}\n';
    await fs.writeFile(file, original);
    const res = await post('/connect/claude-code');
    expect(res.status).toBe(409);
    const e = await errorOf(res);
    expect(e.code).toBe('connect_conflict');
    expect(e.message).toContain(file);
    expect(e.message).toContain('https://api.example.com');
    expect(e.action).toContain('{"force": true}');
    expect(await fs.readFile(file, 'utf8')).toBe(original);

    const forced = ConnectResultSchema.parse(await (await post('/connect/claude-code', { force: true })).json());
    expect(forced.tool.state).toBe('connected');
    await post('/connect/claude-code/undo');
    expect(await fs.readFile(file, 'utf8')).toBe(original);
  });

  it('a settings file that does not parse: 400 naming file:line:column, nothing written', async () => {
    const file = path.join(home, '.codex', 'config.toml');
    await fs.writeFile(file, 'model = "o3"\nmodel_provider = \n');
    const res = await post('/connect/codex');
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e.code).toBe('invalid_request');
    expect(e.message).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}:2:\\d+: `));
    expect(await fs.readFile(file, 'utf8')).toBe('model = "o3"\nmodel_provider = \n');
    await fs.rm(file);
  });

  it('an unknown tool is 404, a manual one 400 saying why, a body of the wrong shape 400 naming the field', async () => {
    expect((await errorOf(await post('/connect/notepad'))).code).toBe('not_found');
    const manual = await post('/connect/cursor');
    expect(manual.status).toBe(400);
    expect((await errorOf(manual)).message).toBe(
      'Cursor keeps its settings in its own database: set these values by hand.',
    );
    const bad = await post('/connect/codex', { force: 'yes' });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toContain('force');
  });
});

describe('POST /admin/v1/try', () => {
  beforeEach(() => mock.setBehavior({}));

  it('sends one message through the real routes: the answer, who served it, why, tokens, named switchboard-try', async () => {
    const res = await post('/try', { model: 'gpt-4o-mini', message: 'Say hi' });
    expect(res.status).toBe(200);
    const t = TryResultSchema.parse(await res.json());
    expect(t).toMatchObject({
      ok: true,
      status: 200,
      answer: 'Hello from mock',
      provider: 'mock',
      model: 'gpt-4o-mini',
      prompt_tokens: 10,
      completion_tokens: 3,
    });
    // 10 prompt tokens at $1 and 3 completion tokens at $2 per million (config.json's prices override).
    expect(t.cost_usd).toBeCloseTo(0.000016, 12);
    expect(t.why).toContain('rule 1 "gpt-*" matches → mock');
    expect(t.latency_ms).toBeGreaterThanOrEqual(0);
    expect(await lastApp()).toBe('switchboard-try');
    const sent = mock.requests.at(-1)!;
    expect((sent.body as { messages: unknown }).messages).toEqual([{ role: 'user', content: 'Say hi' }]);
  });

  it('as the app it names, and a provider error is ok:false with its status and message (not an error of /try)', async () => {
    mock.setBehavior({ status: 400, errorMessage: () => 'the model refused the prompt' });
    const res = await post('/try', { model: 'gpt-4o-mini', message: 'hi', app: 'my-app' });
    expect(res.status).toBe(200);
    const t = TryResultSchema.parse(await res.json());
    expect(t).toMatchObject({ ok: false, status: 400, provider: 'mock', prompt_tokens: null, cost_usd: null });
    expect(t.answer).toContain('the model refused the prompt');
    expect(await lastApp()).toBe('my-app');
  });

  it('a model no rule matches goes to the default provider and why says so; a missing model is a 400 of /try', async () => {
    const t = TryResultSchema.parse(await (await post('/try', { model: 'claude-x', message: 'hi' })).json());
    expect(t).toMatchObject({ ok: true, provider: 'mock' });
    expect(t.why).toContain('no routing rule matches "claude-x"');
    const bad = await post('/try', { message: 'hi' });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toContain('model');
  });
});
