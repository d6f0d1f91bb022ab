// Offline fallback through `switchboard serve` (issue 37): network loss (every cloud provider of the route refuses
// connections) → the next Claude Code-shaped /v1/messages call is served by the local mock through routing.offline's
// model map, in Anthropic's format (the official SDK parses it, streamed and not), with x-switchboard-route: offline
// and x-switchboard-offline; while offline the unreachable cloud is skipped and probed in the background; when it
// comes back, requests go to it again without a restart. An agent's model calls (in-process, through the same routes)
// are served locally too.
import Anthropic from '@anthropic-ai/sdk';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { call as apiCall, createKey } from '../../test/support/agent-api.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let anthropic: MockAnthropic;
let openrouter: MockProvider;
let local: MockOllama;
let sb: ServeProcess;
let dir = '';
let agentKey = '';
const SESSION = '0b3c1f7e-1111-4222-8333-944455556666';

beforeAll(async () => {
  anthropic = await startMockAnthropic({ name: 'cloud-anthropic', behavior: { tokens: ['From', ' the', ' cloud'] } });
  openrouter = await startMockProvider({ name: 'cloud-openrouter' });
  local = await startMockOllama({ name: 'local-ollama', behavior: { tokens: ['Served', ' locally'] } });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-offline-'));
  agentKey = await createKey(path.join(dir, 'config.json'));
  sb = await startServe({
    dir,
    config: {
      listen_port: 11434,
      log_requests: true,
      providers: [
        { name: 'anthropic', type: 'anthropic', base_url: anthropic.baseUrl, api_key: 'sk-ant-cloud-key-0000' },
        { name: 'openrouter', base_url: openrouter.baseUrl, api_key: 'sk-or-cloud-key-0000' },
        { name: 'ollama', type: 'ollama', base_url: local.baseUrl, api_key: '' },
      ],
      routing: {
        default_provider: '',
        rules: [
          { pattern: 'claude-*', providers: ['anthropic', 'openrouter'] },
          { pattern: 'gpt-*', providers: ['openrouter'] },
        ],
        offline: {
          enabled: true,
          providers: ['ollama'],
          model_map: { 'claude-sonnet-*': 'qwen3-coder:30b', 'claude-*': 'qwen3:8b' },
          context_windows: { 'qwen3-coder:30b': 32768 },
        },
      },
      // A short cool-down: the circuits open during the outage and are probed again soon after.
      circuit_breaker: { failure_threshold: 2, cooldown_ms: 300 },
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
afterAll(async () => {
  await sb?.stop();
  await Promise.all([anthropic, openrouter, local].map((m) => m?.close()));
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const claude = () => new Anthropic({ baseURL: sb.url, apiKey: 'any', maxRetries: 0 });
/** A Claude Code-shaped call: its session header, a system prompt, a tool, a user turn. */
const params = {
  model: 'claude-sonnet-4-6-20260101',
  max_tokens: 256,
  system: 'You are Claude Code, a coding agent.',
  tools: [{ name: 'Read', description: 'Read a file', input_schema: { type: 'object' as const, properties: {} } }],
  messages: [{ role: 'user' as const, content: 'Summarise README.md' }],
};
const opts = { headers: { 'X-Claude-Code-Session-Id': SESSION } };

async function call() {
  const { data, response } = await claude().messages.create(params, opts).withResponse();
  const text = data.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return {
    text,
    provider: response.headers.get('x-switchboard-provider'),
    route: response.headers.get('x-switchboard-route'),
    offline: response.headers.get('x-switchboard-offline'),
  };
}

describe('offline fallback', () => {
  it('serves from the cloud while it is reachable', async () => {
    expect(await call()).toEqual({
      text: 'From the cloud',
      provider: 'anthropic',
      route: 'rule:claude-*',
      offline: null,
    });
    expect(local.chatCount()).toBe(0);
    const r = (await (await sb.admin('/route?model=claude-sonnet-4-6')).json()) as { steps: string[] };
    expect(r.steps.at(-1)).toBe(
      'if every provider above is out of reach (cannot connect, timeout, circuit open, 5xx/529): routing.offline → ollama as "qwen3-coder:30b"',
    );
  });

  it('network loss: the next request is served by the local model through the map, in Anthropic format', async () => {
    const ports = { anthropic: anthropic.port, openrouter: openrouter.port };
    await anthropic.close();
    await openrouter.close();

    const r = await call();
    expect(r).toEqual({
      text: 'Served locally',
      provider: 'ollama',
      route: 'offline',
      offline: 'serving locally: claude-sonnet-4-6-20260101 -> qwen3-coder:30b',
    });
    const sent = local.requests.at(-1)!;
    expect(sent.url).toBe('/api/chat');
    expect(sent.body.model).toBe('qwen3-coder:30b');
    // Ollama is told a context for the request's size (never its small default), up to the model's window.
    expect(sent.body.options.num_ctx).toBe(8192);

    // A conversation that does not fit the local model's window is refused, saying which model and how many tokens.
    const before = local.chatCount();
    const big = await claude()
      .messages.create({ ...params, messages: [{ role: 'user', content: 'x'.repeat(160_000) }] }, opts)
      .catch((e: unknown) => e);
    expect(big).toBeInstanceOf(Anthropic.BadRequestError);
    const said = (big as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } };
    expect(said.error.message).toMatch(
      /does not fit the local model "qwen3-coder:30b".*about 40,\d{3} tokens of prompt.*over its context window of 32,768 tokens/,
    );
    expect(local.chatCount()).toBe(before);

    // Streamed too: the SDK's stream sees a whole Anthropic message.
    const stream = claude().messages.stream(params, opts);
    const final = await stream.finalMessage();
    expect(final.content).toMatchObject([{ type: 'text', text: 'Served locally' }]);
    expect(final.stop_reason).toBe('end_turn');

    // The request log says so: the cloud's failures, then the local provider, route "offline".
    const logs = ((await (await sb.admin('/logs?limit=20')).json()) as { data: RequestLogEntry[] }).data;
    const entry = logs.find((e) => e.route === 'offline')!;
    expect(entry.status).toBe(200);
    expect(entry.provider).toBe('ollama');
    expect(entry.attempts.map((a) => a.provider)).toEqual(['anthropic', 'openrouter', 'ollama']);
    const served = logs.filter((e) => e.route === 'offline' && e.status === 200);
    const firstErrors = served.map((e) => e.attempts[0]!.error);
    // The first found the cloud refusing connections; later ones skip it without waiting, while it is probed.
    expect(firstErrors.some((e) => /^cannot connect \(ECONNREFUSED\)/.test(e!))).toBe(true);
    expect(firstErrors.some((e) => /^skipped: cannot connect \(offline; probed in the background/.test(e!))).toBe(true);
    await expect.poll(() => sb.stderr() + sb.stdout()).toMatch(/offline: every provider of a route is out of reach/);
    // The status says so (the UI's "offline: serving locally" banner reads it).
    const status = (await (await sb.admin('/status')).json()) as { offline: { since: string; detail: string } | null };
    expect(status.offline).toMatchObject({ detail: 'serving locally: claude-sonnet-4-6-20260101 -> qwen3-coder:30b' });

    // An agent's model call (in-process, through the same route) is served locally too, its log entry saying so.
    const api = `${sb.url}/api/v1`;
    const made = await apiCall(`${api}/agents`, agentKey, 'POST', { name: 'offline-agent', model: params.model });
    expect(made.status).toBe(201);
    const run = await apiCall(`${api}/agents/${made.body.id}/run?wait=true&timeout_s=20`, agentKey, 'POST', {
      message: 'Summarise README.md',
    });
    expect(run.body).toMatchObject({ done: true, status: 'completed', result: 'Served locally' });
    const agentLogs = ((await (await sb.admin('/logs?limit=5')).json()) as { data: RequestLogEntry[] }).data;
    expect(agentLogs.find((e) => e.path.startsWith('(in-process)'))).toMatchObject({
      provider: 'ollama',
      route: 'offline',
      status: 200,
    });
    expect(local.requests.at(-1)!.body.model).toBe('qwen3-coder:30b');

    // Recovery: the cloud comes back on the same ports; requests go to it again, no restart.
    anthropic = await startMockAnthropic({
      name: 'cloud-anthropic',
      port: ports.anthropic,
      behavior: { tokens: ['From', ' the', ' cloud'] },
    });
    openrouter = await startMockProvider({ name: 'cloud-openrouter', port: ports.openrouter });
    await expect.poll(async () => (await call()).provider, { timeout: 5000, interval: 200 }).toBe('anthropic');
    expect(await call()).toMatchObject({ text: 'From the cloud', route: 'rule:claude-*', offline: null });
    expect(((await (await sb.admin('/status')).json()) as { offline: unknown }).offline).toBeNull();
  });

  it('a model the map does not cover is not served locally: the cloud error stands', async () => {
    await anthropic.close();
    await openrouter.close();
    const before = local.chatCount();
    const err = await claude()
      .messages.create({ ...params, model: 'gpt-5' }, opts)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBeGreaterThanOrEqual(500);
    expect(local.chatCount()).toBe(before);
  });
});
