// Routing through `switchboard serve` with the official openai client: globs, default, app rules, overrides.
import fs from 'node:fs/promises';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let a: MockProvider;
let b: MockProvider;
let sb: ServeProcess;

const client = (opts: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
  new OpenAI({ baseURL: sb.baseUrl, apiKey: 'sk-client-key-never-forwarded', maxRetries: 0, ...opts });

beforeAll(async () => {
  a = await startMockProvider({ name: 'alpha' });
  b = await startMockProvider({ name: 'beta' });
  sb = await startServe({
    config: configFor(
      { alpha: a.baseUrl, beta: b.baseUrl },
      {
        rules: [
          { pattern: 'gpt-*', provider: 'alpha' },
          { pattern: 'claude-*', provider: 'beta' },
        ],
        default_provider: 'alpha',
        app_rules: [
          { app: 'header-app', default_provider: 'beta' },
          { app: 'Titled App', default_provider: 'beta' },
          { app: 'keyed', default_provider: 'beta' },
          { app: 'curl', default_provider: 'beta' },
          { app: 'override-app', default_provider: 'alpha', model_override: 'claude-override' },
          { app: 'override-only', model_override: 'claude-only' },
        ],
      },
    ),
  });
});
shutDownAfterAll(() => [sb, a, b]);
defaultBehaviorBeforeEach(() => [a, b]);

describe('routing by model glob', () => {
  it("sends a model matching a rule to that rule's provider, with the provider's key, never the client's", async () => {
    const before = b.chatCount();
    const { data, response } = await client()
      .chat.completions.create({ model: 'claude-3-5-sonnet', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toContain('beta');
    expect(response.headers.get('x-switchboard-provider')).toBe('beta');
    expect(response.headers.get('x-switchboard-route')).toBe('rule:claude-*');
    expect(b.chatCount()).toBe(before + 1);
    const seen = b.requests.at(-1)!;
    expect(seen.headers.authorization).toBe('Bearer sk-beta-secret-key-123456');
    expect(JSON.stringify(seen.headers)).not.toContain('sk-client-key-never-forwarded');
    expect(seen.body.model).toBe('claude-3-5-sonnet');
  });

  it('sends a model that matches no rule to routing.default_provider', async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: 'llama-3.1-8b', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toContain('alpha');
    expect(response.headers.get('x-switchboard-route')).toBe('default');
  });

  it("answers with the spec's chat completion shape", async () => {
    const data = await client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(data.object).toBe('chat.completion');
    expect(typeof data.id).toBe('string');
    expect(Number.isInteger(data.created)).toBe(true);
    expect(data.model).toBe('gpt-4o-mini');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
  });
});

describe('app rules by each way of naming the app', () => {
  const ask = (c: OpenAI) =>
    c.chat.completions.create({ model: 'no-rule-model', messages: [{ role: 'user', content: 'hi' }] }).withResponse();

  it('X-Switchboard-App header', async () => {
    const { data, response } = await ask(client({ defaultHeaders: { 'X-Switchboard-App': 'Header-App' } }));
    expect(data.choices[0]!.message.content).toContain('beta');
    expect(response.headers.get('x-switchboard-route')).toBe('app:header-app');
  });

  it('OpenRouter-style X-Title header', async () => {
    const { data } = await ask(client({ defaultHeaders: { 'X-Title': 'Titled App' } }));
    expect(data.choices[0]!.message.content).toContain('beta');
  });

  it('an api_key of the form app:<name>', async () => {
    const { data } = await ask(client({ apiKey: 'app:keyed' }));
    expect(data.choices[0]!.message.content).toContain('beta');
    expect(b.requests.at(-1)!.headers.authorization).toBe('Bearer sk-beta-secret-key-123456');
  });

  it('the User-Agent product token', async () => {
    const { data } = await ask(client({ defaultHeaders: { 'User-Agent': 'curl/8.5.0' } }));
    expect(data.choices[0]!.message.content).toContain('beta');
  });

  it('no app rule for the app: the default provider', async () => {
    const { data } = await ask(client({ defaultHeaders: { 'X-Switchboard-App': 'someone-else' } }));
    expect(data.choices[0]!.message.content).toContain('alpha');
  });

  it('model_override replaces the requested model before the routing rules', async () => {
    const { data, response } = await ask(client({ defaultHeaders: { 'X-Switchboard-App': 'override-app' } }));
    expect(data.choices[0]!.message.content).toContain('beta');
    expect(b.requests.at(-1)!.body.model).toBe('claude-override');
    expect(response.headers.get('x-switchboard-route')).toBe('rule:claude-*');
  });

  it('an app rule with only a model override (no provider) rewrites the model and routes by the rules', async () => {
    const { data, response } = await ask(client({ defaultHeaders: { 'X-Switchboard-App': 'override-only' } }));
    expect(data.choices[0]!.message.content).toContain('beta');
    expect(b.requests.at(-1)!.body.model).toBe('claude-only');
    expect(response.headers.get('x-switchboard-route')).toBe('rule:claude-*');
  });

  it('logs the app and how it was named', async () => {
    await ask(client({ defaultHeaders: { 'X-Title': 'Titled App' } }));
    const logs = (await (await sb.admin('/logs?limit=5')).json()) as {
      data: { app: string; app_source: string; provider: string }[];
    };
    expect(logs.data.at(-1)).toMatchObject({ app: 'Titled App', app_source: 'x-title', provider: 'beta' });
  });
});

describe('route explain', () => {
  it('explains a route without sending anything', async () => {
    const before = a.chatCount() + b.chatCount();
    const res = await sb.admin('/route?model=gpt-4o&app=override-app');
    const body = (await res.json()) as {
      model: string;
      candidates: { provider: string; reason: string }[];
      steps: string[];
    };
    expect(body.model).toBe('claude-override');
    expect(body.candidates.map((c) => c.provider)).toEqual(['beta', 'alpha']);
    expect(body.steps.join('\n')).toContain('model_override');
    expect(a.chatCount() + b.chatCount()).toBe(before);
  });

  it('explains the route of a config sent in the body (edits not saved), and saves nothing', async () => {
    const onDisk = await fs.readFile(sb.configPath, 'utf8');
    const edited = JSON.parse(onDisk) as { routing: { rules: { pattern: string; provider: string }[] } };
    edited.routing.rules = [
      { pattern: 'gpt-*', provider: 'beta' },
      { pattern: 'gpt-*', provider: 'alpha' },
    ];
    const post = (body: unknown) =>
      sb.admin('/route', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const res = await post({ model: 'gpt-4o', app: null, config: edited });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { candidates: { provider: string; reason: string }[]; steps: string[] };
    expect(body.candidates.map((c) => c.provider)).toEqual(['beta', 'alpha']);
    expect(body.steps[0]).toBe('rule 1 "gpt-*" matches → beta');
    // The saved config still routes as before, and config.json is untouched.
    const saved = (await (await sb.admin('/route?model=gpt-4o')).json()) as { candidates: { provider: string }[] };
    expect(saved.candidates.map((c) => c.provider)).toEqual(['alpha']);
    expect(await fs.readFile(sb.configPath, 'utf8')).toBe(onDisk);
  });

  it('refuses an invalid config with its problems by path, and a body without model or config', async () => {
    const post = (body: unknown) =>
      sb.admin('/route', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await post({
      model: 'gpt-4o',
      config: { providers: [], routing: { rules: [{ pattern: '', provider: 'nobody' }] } },
    });
    expect(bad.status).toBe(400);
    const err = ((await bad.json()) as { error: { code: string; details: { path: string }[] } }).error;
    expect(err.code).toBe('config_invalid');
    expect(err.details.map((d) => d.path)).toEqual(['routing.rules[0].pattern', 'routing.rules[0].provider']);
    expect((await post({ config: {} })).status).toBe(400);
    expect((await post({ model: 'gpt-4o' })).status).toBe(400);
    expect((await post([1])).status).toBe(400);
  });
});

describe('GET /v1/models', () => {
  it("lists the providers' models that routing would serve the caller, deduplicated, owned by the provider", async () => {
    a.setBehavior({ models: ['shared', 'only-alpha'] });
    b.setBehavior({ models: ['shared', 'only-beta', 'claude-beta'] });
    const listed = async (apiKey?: string) => {
      const out: string[] = [];
      for await (const m of client(apiKey ? { apiKey } : {}).models.list()) out.push(`${m.id}@${m.owned_by}`);
      return out.sort();
    };
    // "only-beta" routes to alpha (the default), which does not list it: not listed.
    expect(await listed()).toEqual(['claude-beta@beta', 'only-alpha@alpha', 'shared@alpha']);
    // An app whose rule's default_provider is beta: beta first (then alpha, routing's default, as its backup).
    expect(await listed('app:keyed')).toEqual([
      'claude-beta@beta',
      'only-alpha@alpha',
      'only-beta@beta',
      'shared@beta',
    ]);
  });
});

describe('app rules by the OS process that owns the client socket', () => {
  it('names the app from the process (this test runs in node) when no header or key names it', async () => {
    const sb2 = await startServe({
      config: configFor(
        { alpha: a.baseUrl, beta: b.baseUrl },
        { default_provider: 'alpha', app_rules: [{ app: 'node', default_provider: 'beta' }] },
      ),
    });
    try {
      const { default: http } = await import('node:http');
      const body = JSON.stringify({ model: 'no-rule-model', messages: [{ role: 'user', content: 'hi' }] });
      const served = await new Promise<string | undefined>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: sb2.port,
            path: '/v1/chat/completions',
            method: 'POST',
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.headers['x-switchboard-provider'] as string | undefined));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(served).toBe('beta');
      const logs = (await (await sb2.admin('/logs?limit=1')).json()) as { data: { app: string; app_source: string }[] };
      expect(logs.data[0]).toMatchObject({ app: 'node', app_source: 'process' });
    } finally {
      await sb2.stop();
    }
  });
});
