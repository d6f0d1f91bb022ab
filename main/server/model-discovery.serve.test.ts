// Model discovery per calling app (issue 32, items 2 and 8): GET /v1/models, /v1beta/models and /api/tags list what
// routing would serve the app that asks (models from the enabled providers' own lists whose route reaches a provider
// that lists them, and every rule pattern's concrete names, owned_by the provider), and /api/show answers for the
// model the app's route serves. Requests: Claude Code's discovery and VS Code Copilot's Ollama calls
// (test/fixtures/real/, each naming its source), the official SDKs as parsers.
import fs from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Request = { method: string; path: string; headers: Record<string, string>; body?: unknown };
const fixture = <T>(name: string): T =>
  JSON.parse(fs.readFileSync(new URL(`../../test/fixtures/real/${name}`, import.meta.url), 'utf8')) as T;
const discovery = fixture<Request>('claude-code/model-discovery.json');
const copilot = fixture<{ show: Request; tags: Request }>('copilot/ollama-show.json');

let anthropic: MockAnthropic;
let openrouter: MockProvider;
let openai: MockProvider;
let local: MockOllama;
let sb: ServeProcess;

const OPENAI_MODELS = ['gpt-4o', 'gpt-5-codex', 'o3'];

beforeAll(async () => {
  anthropic = await startMockAnthropic({ behavior: { models: ['claude-sonnet-4-5', 'claude-haiku-4-5'] } });
  openrouter = await startMockProvider({
    name: 'openrouter',
    behavior: { models: ['anthropic/claude-sonnet-4.5', 'openai/gpt-4o', 'qwen/qwen3-coder'] },
  });
  openai = await startMockProvider({ name: 'openai', behavior: { models: OPENAI_MODELS } });
  local = await startMockOllama({ behavior: { models: ['qwen3-coder:30b'] } });
  const provider = (name: string, base_url: string, type?: string) => ({
    name,
    base_url,
    api_key: `sk-${name}-secret-key-123456`,
    enabled: true,
    ...(type ? { type } : {}),
  });
  sb = await startServe({
    config: {
      log_requests: false,
      providers: [
        provider('anthropic', anthropic.baseUrl, 'anthropic'),
        provider('openrouter', openrouter.baseUrl),
        provider('openai', openai.baseUrl),
        provider('local', local.baseUrl, 'ollama'),
      ],
      routing: {
        // No default: a model no rule matches is served only through an app rule's default_provider.
        default_provider: '',
        rules: [
          { pattern: 'claude-*', provider: 'anthropic' },
          { pattern: '{gpt-4o,gpt-4o-mini}', provider: 'openai' },
          { pattern: '*/*', provider: 'openrouter' },
        ],
      },
      app_rules: [
        { app: 'GitHubCopilotChat', default_provider: 'local' },
        { app: 'codex', default_provider: 'openai' },
        { app: 'pinned', model_override: 'gpt-4o' },
      ],
      quirks: {
        provider_hosts: {},
        entries: [
          {
            match: { provider: 'local', model: 'qwen3-coder*' },
            capabilities: ['completion', 'tools', 'vision'],
            context_length: 262144,
          },
        ],
      },
      // The lists are refreshed by the health check (and fetched on the first listing before it ran).
      health_check: { interval_ms: 300, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, anthropic, openrouter, openai, local]);

const openaiClient = (app?: string) =>
  new OpenAI({
    baseURL: sb.baseUrl,
    apiKey: app ? `app:${app}` : 'x',
    maxRetries: 0,
  });

async function listed(app?: string): Promise<{ id: string; owned_by: string }[]> {
  const out: { id: string; owned_by: string }[] = [];
  for await (const m of openaiClient(app).models.list()) out.push({ id: m.id, owned_by: m.owned_by });
  return out;
}

describe('GET /v1/models: what routing would serve the calling app', () => {
  it('lists the routable models of each provider and the rules’ concrete names, owned by the provider', async () => {
    expect(await listed()).toEqual([
      { id: 'claude-sonnet-4-5', owned_by: 'anthropic' },
      { id: 'claude-haiku-4-5', owned_by: 'anthropic' },
      { id: 'anthropic/claude-sonnet-4.5', owned_by: 'openrouter' },
      { id: 'openai/gpt-4o', owned_by: 'openrouter' },
      { id: 'qwen/qwen3-coder', owned_by: 'openrouter' },
      { id: 'gpt-4o', owned_by: 'openai' },
      // A rule's concrete name that no provider lists: routing serves it all the same.
      { id: 'gpt-4o-mini', owned_by: 'openai' },
    ]);
  });

  it("adds what an app's default_provider serves (Codex, named by its app: key), and the override alone for an app with model_override", async () => {
    const ids = (await listed('codex')).map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-5-codex', 'o3', 'claude-sonnet-4-5']));
    expect(ids).not.toContain('qwen3-coder:30b');
    expect(await listed('pinned')).toEqual([{ id: 'gpt-4o', owned_by: 'openai' }]);
  });

  it("answers Claude Code's discovery request in Anthropic's shape, with the ids it keeps (claude*, anthropic*)", async () => {
    const r = await fetch(`${sb.url}${discovery.path}`, { headers: discovery.headers });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: { type: string; id: string }[]; has_more: boolean };
    expect(body.has_more).toBe(false);
    expect(body.data.every((m) => m.type === 'model')).toBe(true);
    const kept = body.data.map((m) => m.id).filter((id) => id.startsWith('claude') || id.startsWith('anthropic'));
    expect(kept).toEqual(['claude-sonnet-4-5', 'claude-haiku-4-5', 'anthropic/claude-sonnet-4.5']);
    // The Anthropic SDK reads the same list.
    const sdk = new Anthropic({ baseURL: sb.url, authToken: 'app:claude-code', apiKey: null, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of sdk.models.list({ limit: 1000 })) ids.push(m.id);
    expect(ids).toContain('claude-haiku-4-5');
  });

  it("lists the app's models in Gemini's shape at /v1beta/models (the Gemini SDK's pager)", async () => {
    const ai = new GoogleGenAI({
      apiKey: 'x',
      httpOptions: { baseUrl: sb.url, headers: { 'x-switchboard-app': 'codex' } },
    });
    const names: string[] = [];
    for await (const m of await ai.models.list()) names.push(m.name ?? '');
    expect(names).toContain('models/gpt-5-codex');
    const anonymous: string[] = [];
    for await (const m of await new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: sb.url } }).models.list())
      anonymous.push(m.name ?? '');
    expect(anonymous).not.toContain('models/gpt-5-codex');
  });

  it('follows a provider’s list as the health check refreshes it', async () => {
    openai.setBehavior({ models: [...OPENAI_MODELS, 'gpt-5.1'] });
    await eventually(async () => expect((await listed('codex')).map((m) => m.id)).toContain('gpt-5.1'), 5_000);
    openai.setBehavior({ models: OPENAI_MODELS });
    await eventually(async () => expect((await listed('codex')).map((m) => m.id)).not.toContain('gpt-5.1'), 5_000);
  });
});

describe("VS Code Copilot's Ollama mode: /api/tags and /api/show honour app rules as /api/chat does", () => {
  const send = (req: Request, extra: Record<string, string> = {}) =>
    fetch(`${sb.url}${req.path}`, {
      method: req.method,
      headers: { ...req.headers, ...extra },
      ...(req.body ? { body: JSON.stringify(req.body) } : {}),
    });

  it('lists the model its app rule routes, and shows its real context length and capabilities', async () => {
    const tags = (await (await send(copilot.tags)).json()) as { models: { model: string }[] };
    expect(tags.models.map((m) => m.model)).toContain('qwen3-coder:30b');
    const r = await send(copilot.show);
    expect(r.status).toBe(200);
    const shown = (await r.json()) as { capabilities: string[]; model_info: Record<string, unknown> };
    // What Copilot reads: capabilities, and model_info["<general.architecture>.context_length"] (else 4096).
    expect(shown.capabilities).toEqual(['completion', 'tools', 'vision']);
    expect(shown.model_info[`${String(shown.model_info['general.architecture'])}.context_length`]).toBe(262144);
  });

  it('names the app by X-Switchboard-App or an app: key too, and answers 404 for a caller no rule routes it for', async () => {
    const byHeader = new Ollama({ host: sb.url, headers: { 'x-switchboard-app': 'GitHubCopilotChat' } });
    expect((await byHeader.show({ model: 'qwen3-coder:30b' })).capabilities).toContain('vision');
    const byKey = await send(copilot.show, {
      'user-agent': 'node',
      authorization: 'Bearer app:GitHubCopilotChat',
    });
    expect(byKey.status).toBe(200);
    const nobody = await send(copilot.show, { 'user-agent': 'curl/8.5.0' });
    expect(nobody.status).toBe(404);
    expect(await nobody.json()).toEqual({ error: "model 'qwen3-coder:30b' not found" });
  });

  it('routes /api/chat for the same app to the same provider the show described', async () => {
    const ollama = new Ollama({ host: sb.url, headers: { 'x-switchboard-app': 'GitHubCopilotChat' } });
    const reply = await ollama.chat({ model: 'qwen3-coder:30b', messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.message.content.length).toBeGreaterThan(0);
    expect(local.chatCount()).toBeGreaterThan(0);
  });
});
