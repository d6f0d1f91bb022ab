// Issue 32, item 7: the compatibility suite. Requests captured from real tools, two minor versions each
// (test/fixtures/compat/<tool>/<version>/, each naming its source: Claude Code, Codex CLI, Gemini CLI), replayed byte
// for byte with their own headers through the real `switchboard serve` to a mock provider of every kind, with the
// official SDKs' stream parsers reading what comes back. A tool that updates (new fields, new anthropic-beta values,
// new tools) must keep working: to a provider of its own format its request passes through untouched; translated,
// every field with no equivalent is named in x-switchboard-dropped and the answer still comes (never a 400); a
// provider's own error reaches the tool unchanged in its own format.
import { readdirSync, readFileSync } from 'node:fs';
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/streaming';
import { GenerateContentResponse } from '@google/genai';
import { Stream as OpenAIStream } from 'openai/streaming';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockGemini, startMockGemini } from '../../test/support/mock-gemini.ts';
import { type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Json = Record<string, any>;
type Capture = { _source: string; method: string; path: string; headers: Record<string, string>; body: Json };
type Tool = 'claude-code' | 'codex' | 'gemini-cli';
type Kind = 'openai' | 'anthropic' | 'gemini' | 'ollama';

const ROOT = new URL('../../test/fixtures/compat/', import.meta.url);
const TOOLS: Tool[] = ['claude-code', 'codex', 'gemini-cli'];
const KINDS: Kind[] = ['openai', 'anthropic', 'gemini', 'ollama'];
/** The provider kind that speaks each tool's format (its requests pass through untouched). */
const OWN_KIND: Record<Tool, Kind | null> = { 'claude-code': 'anthropic', codex: null, 'gemini-cli': 'gemini' };

const versions = (tool: Tool): string[] =>
  readdirSync(new URL(`${tool}/`, ROOT)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
const capture = (tool: Tool, version: string, turn: string): Capture =>
  JSON.parse(readFileSync(new URL(`${tool}/${version}/${turn}.json`, ROOT), 'utf8')) as Capture;
/** The captured turns of a version (first-turn, tool-result-turn: the requests before and after a tool ran). */
const turns = (tool: Tool, version: string): string[] =>
  readdirSync(new URL(`${tool}/${version}/`, ROOT))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();

let sb: ServeProcess;
const mocks = {} as { openai: MockProvider; anthropic: MockAnthropic; gemini: MockGemini; ollama: MockOllama };

beforeAll(async () => {
  mocks.openai = await startMockProvider({ name: 'compat-openai' });
  mocks.anthropic = await startMockAnthropic({ name: 'compat-anthropic' });
  mocks.gemini = await startMockGemini({ name: 'compat-gemini' });
  mocks.ollama = await startMockOllama({ name: 'compat-ollama' });
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: false,
      providers: KINDS.map((kind) => ({
        name: `p-${kind}`,
        type: kind,
        base_url: mocks[kind].baseUrl,
        api_key: `key-${kind}`,
        enabled: true,
      })),
      // Each replay names its provider by app (x-switchboard-app), so the captured body goes as it was.
      routing: { default_provider: '', rules: [] },
      app_rules: KINDS.map((kind) => ({ app: `to-${kind}`, default_provider: `p-${kind}` })),
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, mocks.openai, mocks.anthropic, mocks.gemini, mocks.ollama]);
defaultBehaviorBeforeEach(() => [mocks.openai, mocks.anthropic, mocks.gemini, mocks.ollama]);

/** The captured request, sent as the tool sent it (its path, headers and body), to the provider of `kind`. */
function replay(c: Capture, kind: Kind, body: Json = c.body, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${sb.url}${c.path}`, {
    method: c.method,
    headers: { ...c.headers, authorization: 'Bearer any-key', 'x-switchboard-app': `to-${kind}`, ...headers },
    body: JSON.stringify(body),
  });
}

/** The reply read as its tool's official SDK reads it: the answer's text and how it ended. */
async function readReply(tool: Tool, res: Response): Promise<{ text: string; end: string | null }> {
  let text = '';
  let end: string | null = null;
  if (tool === 'claude-code') {
    for await (const e of AnthropicStream.fromSSEResponse<Json>(res, new AbortController())) {
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
      if (e.type === 'message_delta') end = e.delta.stop_reason;
    }
  } else if (tool === 'codex') {
    for await (const e of OpenAIStream.fromSSEResponse<Json>(res, new AbortController())) {
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') end = e.response.status;
    }
  } else {
    // @google/genai reads each SSE event as a GenerateContentResponse (its own stream parsing does exactly this).
    for (const block of (await res.text()).split(/\r?\n\r?\n/)) {
      const data = block.replace(/^data: /, '').trim();
      if (!data) continue;
      const chunk = Object.assign(new GenerateContentResponse(), JSON.parse(data) as Json);
      text += chunk.text ?? '';
      end = chunk.candidates?.[0]?.finishReason ?? end;
    }
  }
  return { text, end };
}

/** What a tool's normal end of a text answer is. */
const NORMAL_END: Record<Tool, string> = { 'claude-code': 'end_turn', codex: 'completed', 'gemini-cli': 'STOP' };

/** The mock's last chat request (the body Switchboard sent it). */
function lastSent(kind: Kind): { body: Json; headers: Record<string, unknown> } {
  const r = mocks[kind].requests.filter((q) => q.method === 'POST').at(-1)!;
  return { body: r.body as Json, headers: r.headers as Record<string, unknown> };
}

const dropped = (res: Response): string[] => res.headers.get('x-switchboard-dropped')?.split(',') ?? [];

describe.each(TOOLS)('%s: captured requests of each version, replayed to every provider kind', (tool) => {
  it('covers at least the two latest minor versions', () => {
    const minors = new Set(versions(tool).map((v) => v.split('.').slice(0, 2).join('.')));
    expect(minors.size).toBeGreaterThanOrEqual(2);
    for (const v of versions(tool)) {
      expect(turns(tool, v).length).toBeGreaterThan(0);
      for (const turn of turns(tool, v)) expect(capture(tool, v, turn)._source).toMatch(/^CAPTURED from /);
    }
  });

  const cells = versions(tool).flatMap((version) =>
    turns(tool, version).flatMap((turn) => KINDS.map((kind) => ({ version, turn, kind }))),
  );
  it.each(cells)('$version, $turn → a $kind provider', async ({ version, turn, kind }) => {
    const c = capture(tool, version, turn);
    const res = await replay(c, kind);
    expect(res.status, await res.clone().text()).toBe(200);
    const reply = await readReply(tool, res);
    expect(reply.text).toBe(`Hello from compat-${kind}`);
    expect(reply.end).toBe(NORMAL_END[tool]);
    const sent = lastSent(kind);
    if (OWN_KIND[tool] === kind) {
      // Its own format: the request goes on untouched, new fields and every anthropic-beta value included.
      expect(sent.body).toEqual(c.body);
      for (const h of ['anthropic-beta', 'anthropic-version', 'user-agent']) {
        if (c.headers[h] !== undefined) expect(sent.headers[h], h).toBe(c.headers[h]);
      }
      expect(res.headers.get('x-switchboard-dropped')).toBeNull();
    } else {
      // Translated: whatever has no equivalent is named, never refused.
      expect(res.headers.get('x-switchboard-provider')).toBe(`p-${kind}`);
    }
  });
});

describe('staying compatible as the tools update (new fields, new betas)', () => {
  const latest = (tool: Tool) => versions(tool).at(-1)!;

  it('Claude Code: an unknown anthropic-beta value and a new request field pass through untouched', async () => {
    const c = capture('claude-code', latest('claude-code'), 'first-turn');
    const beta = `${c.headers['anthropic-beta']},some-future-feature-2099-01-01`;
    const body = { ...c.body, some_future_field: { mode: 'on' } };
    const res = await replay(c, 'anthropic', body, { 'anthropic-beta': beta });
    expect(res.status).toBe(200);
    await res.text();
    const sent = lastSent('anthropic');
    expect(sent.headers['anthropic-beta']).toBe(beta);
    expect(sent.body).toEqual(body);
  });

  it.each([
    ['claude-code', 'openai'],
    ['codex', 'anthropic'],
    ['gemini-cli', 'ollama'],
  ] as const)(
    '%s: a new request field, translated to a %s provider, is named as dropped (not a 400)',
    async (tool, kind) => {
      const c = capture(tool, latest(tool), 'first-turn');
      // Gemini's JSON is camelCase (its door reads snake_case keys as camelCase).
      const field = tool === 'gemini-cli' ? 'someFutureField' : 'some_future_field';
      const res = await replay(c, kind, { ...c.body, [field]: { mode: 'on' } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(dropped(res)).toContain(field);
      expect((await readReply(tool, res)).end).toBe(NORMAL_END[tool]);
      expect(JSON.stringify(lastSent(kind).body)).not.toMatch(/future/i);
    },
  );
});

describe("a provider's own error reaches the tool unchanged, in its own format", () => {
  const latest = (tool: Tool) => capture(tool, versions(tool).at(-1)!, 'first-turn');
  const message = () => 'prompt is too long: 250000 tokens > 200000 maximum';

  it('Claude Code to an Anthropic provider: the body as the provider sent it', async () => {
    mocks.anthropic.setBehavior({ status: 400, errorMessage: message });
    const res = await replay(latest('claude-code'), 'anthropic');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: message() },
    });
  });

  it("Claude Code to an OpenAI provider, Codex to an Anthropic one: the provider's status and message", async () => {
    mocks.openai.setBehavior({ status: 400, errorMessage: message });
    const res = await replay(latest('claude-code'), 'openai');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { message: expect.stringContaining(message()) } });
    mocks.anthropic.setBehavior({ status: 400, errorMessage: message });
    const codex = await replay(latest('codex'), 'anthropic');
    expect(codex.status).toBe(400);
    expect(await codex.json()).toMatchObject({ error: { message: expect.stringContaining(message()) } });
  });

  it('Gemini CLI to a Gemini provider (passed through) and to an OpenAI one (translated)', async () => {
    mocks.gemini.setBehavior({ status: 400 });
    const own = await replay(latest('gemini-cli'), 'gemini');
    expect(own.status).toBe(400);
    const body = (await own.json()) as Json;
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    mocks.openai.setBehavior({ status: 400, errorMessage: message });
    const translated = await replay(latest('gemini-cli'), 'openai');
    expect(translated.status).toBe(400);
    expect(await translated.json()).toMatchObject({
      error: { code: 400, message: expect.stringContaining(message()) },
    });
  });
});

// Issue 32, item 4: Codex's `exec --output-schema` sends text.format json_schema beside its function tools; Gemini
// 2.5 refuses responseMimeType application/json with function calling, so the answer tool carries the format.
describe('Codex exec --output-schema to a Gemini provider', () => {
  const c = capture('codex', '0.169.0', 'output-schema-first-turn');
  const answer = { files: ['sample.txt'], summary: 'OK' };

  it('goes as the answer tool beside the functions (mode ANY), never as a JSON mime type, and comes back as the text', async () => {
    mocks.gemini.setBehavior({ toolCall: { name: 'switchboard_json_answer', arguments: answer } });
    const res = await replay(c, 'gemini');
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = lastSent('gemini').body;
    expect(sent.generationConfig ?? {}).not.toHaveProperty('responseMimeType');
    expect(sent.generationConfig ?? {}).not.toHaveProperty('responseJsonSchema');
    const declarations = sent.tools[0].functionDeclarations as Json[];
    expect(declarations.map((d) => d.name)).toContain('exec_command');
    expect(declarations.at(-1)).toMatchObject({
      name: 'switchboard_json_answer',
      parametersJsonSchema: c.body.text.format.schema,
    });
    expect(sent.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    const events: Json[] = [];
    for await (const e of OpenAIStream.fromSSEResponse<Json>(res, new AbortController())) events.push(e);
    const done = events.find((e) => e.type === 'response.completed')!;
    expect(done.response.output).toEqual([expect.objectContaining({ type: 'message' })]);
    expect(JSON.parse(done.response.output[0].content[0].text)).toEqual(answer);
  });
});

// Issue 32, item 5: "no thinking" to gemini-2.5-pro went as thinkingBudget 0, which that model refuses.
describe('Claude Code with thinking disabled, routed to gemini-2.5-pro', () => {
  it('gets its answer: the least budget the model takes (128), without asking for thoughts', async () => {
    const c = capture('claude-code', '2.0.77', 'first-turn');
    const body = { ...c.body, model: 'gemini-2.5-pro', thinking: { type: 'disabled' } };
    const res = await replay(c, 'gemini', body);
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await readReply('claude-code', res)).end).toBe('end_turn');
    expect(lastSent('gemini').body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 128 });
  });
});

// Issue 32, item 6: with two function calls, the second call's output_item.added came before the first one's
// output_item.done (Codex reads the stream item by item).
describe('Codex: two function calls from a chat provider', () => {
  it("closes each call's item before the next one's is added, each with its whole arguments", async () => {
    const calls = [
      { name: 'exec_command', arguments: { cmd: 'cat sample.txt' } },
      { name: 'exec_command', arguments: { cmd: 'ls -la' } },
    ];
    mocks.openai.setBehavior({ toolCalls: calls });
    const res = await replay(capture('codex', versions('codex').at(-1)!, 'first-turn'), 'openai');
    expect(res.status).toBe(200);
    const items: string[] = [];
    for await (const e of OpenAIStream.fromSSEResponse<Json>(res, new AbortController())) {
      if (e.type === 'response.output_item.added' || e.type === 'response.output_item.done') {
        items.push(`${e.type.slice('response.output_item.'.length)} ${e.item.type} ${e.item.arguments ?? ''}`);
      }
    }
    expect(items).toEqual([
      'added function_call ',
      'done function_call {"cmd":"cat sample.txt"}',
      'added function_call ',
      'done function_call {"cmd":"ls -la"}',
    ]);
  });
});
