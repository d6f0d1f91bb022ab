// The provider/model quirks table through `switchboard serve`: an Anthropic client (a captured Claude Code request),
// an OpenAI client passing through, and an agent run, all to an OpenAI-format mock that stands for api.openai.com
// (config.json's quirks.provider_hosts makes the mock match as that host: a provider whose base_url really is
// api.openai.com cannot be a local mock); and /api/show's capabilities and context length, read by the ollama client.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { call } from '../../test/support/agent-api.ts';
import { type AgentServeProcess, useAgentServe } from '../../test/support/agent-serve.ts';
import type { MockProvider } from '../../test/support/mock-provider.ts';
import { eventually } from '../../test/support/serve-process.ts';

/** A real Claude Code request (its source is in the file's `_source`). */
const claudeCode = JSON.parse(
  fs.readFileSync(new URL('../../test/fixtures/real/claude-code/request-1-with-user-id.json', import.meta.url), 'utf8'),
);

const world = useAgentServe('sb-quirks-', ['acme'], {
  quirks: {
    provider_hosts: { mock: 'api.openai.com' },
    entries: [
      {
        match: { model: 'house-vlm' },
        capabilities: ['completion', 'vision'],
        context_length: 32_768,
        note: 'a local vision model the built-in table does not know',
      },
    ],
  },
});
let mock: MockProvider;
let sb: AgentServeProcess;
let key = '';

beforeAll(async () => {
  ({ mock } = world());
  [key] = world().keys;
  sb = await world().serve();
}, 30_000);
beforeEach(() => mock.setBehavior({}));

const lastChat = () => mock.requests.filter((r) => r.url === '/v1/chat/completions').at(-1)!;

/** The request log's entry for this path and model (written when the request ends: polled). */
async function logOf(path: string, model: string): Promise<RequestLogEntry> {
  return eventually(async () => {
    const { data } = (await (await sb.admin('/logs?limit=50')).json()) as { data: RequestLogEntry[] };
    const entry = data.findLast((e) => e.path === path && e.requested_model === model);
    if (!entry) throw new Error(`no request log entry for ${path} (${model})`);
    return entry;
  });
}

describe("an Anthropic client (Claude Code) routed to OpenAI's API", () => {
  for (const model of ['o3', 'gpt-5']) {
    it(`${model}: max_tokens becomes max_completion_tokens, temperature 0 is dropped (and logged), user is hashed`, async () => {
      const anthropic = new Anthropic({ baseURL: sb.url, apiKey: 'sk-ant-local', maxRetries: 0 });
      const stream = await anthropic.messages.create({ ...claudeCode.body, model, stream: true } as never, {
        headers: claudeCode.headers,
      });
      let text = '';
      for await (const event of stream as unknown as AsyncIterable<Anthropic.MessageStreamEvent>) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      }
      expect(text).toBe('Hello from mock');

      const sent = lastChat().body;
      expect(sent.model).toBe(model);
      expect(sent.max_completion_tokens).toBe(512);
      expect(sent).not.toHaveProperty('max_tokens');
      expect(sent).not.toHaveProperty('temperature');
      const userId: string = claudeCode.body.metadata.user_id;
      expect(userId.length).toBeGreaterThan(64);
      expect(sent.user).toBe(createHash('sha256').update(userId).digest('hex'));

      const entry = await logOf('/v1/messages', model);
      expect(entry.attempts[0]!.dropped).toEqual([
        expect.stringMatching(/^cache_control: /), // Claude Code's cache markers: the client side's own drop
        'temperature=0: this model takes only 1',
      ]);
    });
  }
});

describe('an OpenAI client passing through', () => {
  it('gets its JSON rewritten when an entry changes it (o3: max_completion_tokens, no temperature)', async () => {
    const openai = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'sk-local', maxRetries: 0 });
    const reply = await openai.chat.completions.create({
      model: 'o3',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      user: claudeCode.body.metadata.user_id, // the client's own choice: passed on as it is
    });
    expect(reply.choices[0]!.message.content).toBe('Hello from mock');
    const got = lastChat();
    expect(got.body).toEqual({
      model: 'o3',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 64,
      user: claudeCode.body.metadata.user_id,
    });
    expect(Number(got.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(got.body)));
    const entry = await logOf('/v1/chat/completions', 'o3');
    expect(entry.attempts[0]!.dropped).toEqual([
      'temperature=0.5: this model takes only 1',
      'top_p=0.9: this model does not take it',
    ]);
  });

  it('leaves the bytes untouched when no entry changes anything (gpt-4o with temperature; an unknown model)', async () => {
    for (const model of ['gpt-4o', 'mock-model']) {
      // Spaces a re-serialization would drop: the length upstream shows whether the bytes were kept.
      const text = `{ "model" : "${model}",  "messages" : [ { "role": "user", "content": "hi" } ], "temperature" : 0.5 }`;
      const r = await fetch(`${sb.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      expect(r.status).toBe(200);
      const got = lastChat();
      expect(got.body).toEqual(JSON.parse(text));
      expect(Number(got.headers['content-length'])).toBe(Buffer.byteLength(text));
      expect((await logOf('/v1/chat/completions', model)).attempts[0]).not.toHaveProperty('dropped');
    }
  });
});

describe('an agent run', () => {
  it("goes through the same table: the agent's max_tokens and temperature 0.2 reach o3 as the API takes them", async () => {
    const agent = await call(`${sb.api}/agents`, key, 'POST', {
      name: 'reasoner',
      system_prompt: 'You are terse.',
      model: 'o3',
      tools: [],
      config: { max_tokens: 256, temperature: 0.2, max_iterations: 2 },
    });
    expect(agent.status).toBe(201);
    const run = await call(`${sb.api}/agents/${agent.body.id}/run`, key, 'POST', { message: 'hi' });
    expect(run.status).toBe(200);
    await eventually(async () => {
      const task = await call(`${sb.api}/tasks/${run.body.task_id}`, key);
      expect(task.body.status).toBe('completed');
    }, 10_000);
    const sent = lastChat().body;
    expect(sent.model).toBe('o3');
    expect(sent.max_completion_tokens).toBe(256);
    expect(sent).not.toHaveProperty('max_tokens');
    expect(sent).not.toHaveProperty('temperature');
    const entry = await logOf('(in-process) /v1/chat/completions', 'o3');
    expect(entry.attempts[0]!.dropped).toEqual(['temperature=0.2: this model takes only 1']);
  });
});

describe("Ollama's /api/show", () => {
  const ollama = () => new Ollama({ host: sb.url });
  /** What VS Code Copilot reads: model_info["<general.architecture>.context_length"]. */
  const contextOf = (info: Record<string, unknown>) => info[`${String(info['general.architecture'])}.context_length`];

  it('states capabilities and context length inferred from well-known model names', async () => {
    const gpt4o = await ollama().show({ model: 'gpt-4o' });
    expect(gpt4o.capabilities).toEqual(['completion', 'tools', 'vision']);
    expect(contextOf(gpt4o.model_info as never)).toBe(128_000);
    expect((gpt4o.model_info as never as Record<string, unknown>)['general.basename']).toBe('gpt-4o');
    const o3 = await ollama().show({ model: 'o3' });
    expect(o3.capabilities).toEqual(['completion', 'tools', 'vision', 'thinking']);
    expect(contextOf(o3.model_info as never)).toBe(200_000);
    const embed = await ollama().show({ model: 'nomic-embed-text' });
    expect(embed.capabilities).toEqual(['embedding']);
  });

  it("states what config.json's entries say, and the defaults for a model nothing describes", async () => {
    const house = await ollama().show({ model: 'house-vlm' });
    expect(house.capabilities).toEqual(['completion', 'vision']);
    expect(contextOf(house.model_info as never)).toBe(32_768);
    const unknown = await ollama().show({ model: 'mock-model' });
    expect(unknown.capabilities).toEqual(['completion', 'tools']);
    expect(contextOf(unknown.model_info as never)).toBe(131_072);
  });
});
