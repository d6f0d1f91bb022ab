// Claude Code's own requests, captured from real sessions (test/fixtures/real/claude-code/, each naming its source),
// through `switchboard serve` to an OpenAI-chat, a Gemini and an Ollama provider, read back by @anthropic-ai/sdk:
// the reasoning as thinking blocks, the tool name and exact input, the stop reason, and usage with cache reads and
// thinking tokens (the request's estimate first, in message_start). Then the other way: structured output and
// reasoning toward an Anthropic provider, from the OpenAI, Ollama and Gemini clients.
import fs from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, Type } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockGemini, startMockGemini } from '../../test/support/mock-gemini.ts';
import { type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Json = Record<string, any>;
const fixture = (name: string): Json =>
  JSON.parse(fs.readFileSync(new URL(`../../test/fixtures/real/claude-code/${name}`, import.meta.url), 'utf8'));
const TOOL_LOOP = fixture('tool-loop-sonnet.json').request as Json;
const TITLE = fixture('title-haiku.json').request as Json;
const THINKING_TURN = fixture('thinking-turn-excerpt.json');

/** A text as it stands inside a JSON body (escaped), to look for it in what a provider received. */
const inJson = (text: string): string => JSON.stringify(text).slice(1, -1);

/** The text of the captured tool result Claude Code marked is_error. */
function errorResultText(request: Json): string {
  const blocks = (request.messages as { content: unknown }[]).flatMap((m) =>
    Array.isArray(m.content) ? m.content : [],
  );
  const result = (blocks as Json[]).find((b) => b.type === 'tool_result' && b.is_error === true)!;
  return typeof result.content === 'string' ? result.content : String((result.content as Json[])[0]!.text);
}

/** The text of a request's first user message (a string, or its first text block). */
function firstUserText(request: Json): string {
  const content = (request.messages as { content: unknown }[])[0]!.content;
  return typeof content === 'string' ? content : String((content as Json[]).find((b) => b.type === 'text')!.text);
}

let sb: ServeProcess;
let openaiMock: MockProvider;
let geminiMock: MockGemini;
let ollamaMock: MockOllama;
let anthropicMock: MockAnthropic;

beforeAll(async () => {
  openaiMock = await startMockProvider({ name: 'cc-openai' });
  geminiMock = await startMockGemini({ name: 'cc-gemini' });
  ollamaMock = await startMockOllama({ name: 'cc-ollama' });
  anthropicMock = await startMockAnthropic({ name: 'cc-anthropic' });
  const provider = (type: string, base_url: string) => ({
    name: `p-${type}`,
    type,
    base_url,
    api_key: 'k',
    enabled: true,
  });
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: false,
      providers: [
        provider('openai', openaiMock.baseUrl),
        provider('gemini', geminiMock.baseUrl),
        provider('ollama', ollamaMock.baseUrl.replace(/\/$/, '')),
        provider('anthropic', anthropicMock.baseUrl),
      ],
      routing: {
        default_provider: '',
        rules: ['openai', 'gemini', 'ollama', 'anthropic'].map((k) => ({ pattern: `via-${k}-*`, provider: `p-${k}` })),
      },
      app_rules: [],
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, openaiMock, geminiMock, ollamaMock, anthropicMock]);
defaultBehaviorBeforeEach(() => [openaiMock, geminiMock, ollamaMock, anthropicMock]);

const claude = () => new Anthropic({ baseURL: sb.url, apiKey: 'any', maxRetries: 0 });
const lastBody = (mock: { requests: { body: any }[] }): Json => mock.requests.at(-1)!.body as Json;

// What each provider answers Claude Code's tool loop with: reasoning, then a call of Claude Code's Read tool.
const READ_INPUT = { file_path: '/root/claude-code/cli_proxy.js', offset: 101, limit: 100 };
const REASONING = ['The file is long; ', 'read the next hundred lines.'];
const SIGNATURE = 'switchboard-translated-reasoning';

type Kind = {
  name: string;
  model: string;
  mock: () => { setBehavior(b: object): void; requests: { body: any }[] };
  behavior: object;
  usage: object;
  /** The provider's request: its tool names, and its whole text (to check what must not reach it). */
  seen: (body: Json) => { tools: string[]; system: string };
};

const KINDS: Kind[] = [
  {
    name: 'an OpenAI-chat provider (DeepSeek-style reasoning_content)',
    model: 'via-openai-sonnet',
    mock: () => openaiMock,
    behavior: {
      reasoning: REASONING,
      toolCall: { name: 'Read', arguments: READ_INPUT },
      usage: {
        prompt_tokens: 5000,
        completion_tokens: 120,
        prompt_tokens_details: { cached_tokens: 4096 },
        completion_tokens_details: { reasoning_tokens: 40 },
      },
    },
    usage: {
      input_tokens: 904,
      output_tokens: 120,
      cache_read_input_tokens: 4096,
      output_tokens_details: { thinking_tokens: 40 },
    },
    seen: (b) => ({
      tools: b.tools.map((t: Json) => t.function.name),
      system: b.messages
        .filter((m: Json) => m.role === 'system')
        .map((m: Json) => m.content)
        .join('\n'),
    }),
  },
  {
    name: 'a Gemini provider (thought parts)',
    model: 'via-gemini-sonnet',
    mock: () => geminiMock,
    behavior: {
      reasoning: REASONING,
      toolCall: { name: 'Read', arguments: READ_INPUT },
      usage: { prompt_tokens: 5000, completion_tokens: 80, cached_tokens: 4096, reasoning_tokens: 40 },
    },
    usage: {
      input_tokens: 904,
      output_tokens: 120,
      cache_read_input_tokens: 4096,
      output_tokens_details: { thinking_tokens: 40 },
    },
    seen: (b) => ({
      tools: b.tools.flatMap((t: Json) => t.functionDeclarations.map((f: Json) => f.name)),
      system: b.systemInstruction.parts.map((p: Json) => p.text).join('\n'),
    }),
  },
  {
    name: 'an Ollama provider (thinking)',
    model: 'via-ollama-sonnet',
    mock: () => ollamaMock,
    behavior: {
      reasoning: REASONING,
      toolCall: { name: 'Read', arguments: READ_INPUT },
      usage: { prompt_tokens: 5000, completion_tokens: 120 },
    },
    usage: { input_tokens: 5000, output_tokens: 120 },
    seen: (b) => ({
      tools: b.tools.map((t: Json) => t.function.name),
      system: b.messages
        .filter((m: Json) => m.role === 'system')
        .map((m: Json) => m.content)
        .join('\n'),
    }),
  },
];

describe.each(KINDS)('Claude Code (captured requests) → $name', (kind) => {
  it('the tool loop: thinking block, the Read call with its exact input, tool_use, usage with cache and thinking', async () => {
    kind.mock().setBehavior(kind.behavior);
    const body = { ...TOOL_LOOP, model: kind.model } as Anthropic.MessageCreateParamsStreaming;
    const events: Anthropic.MessageStreamEvent[] = [];
    const stream = claude().messages.stream(body);
    stream.on('streamEvent', (e) => events.push(structuredClone(e))); // the SDK's snapshot shares its objects
    const msg = await stream.finalMessage();

    expect(msg.content).toEqual([
      { type: 'thinking', thinking: REASONING.join(''), signature: SIGNATURE },
      { type: 'tool_use', id: expect.any(String), name: 'Read', input: READ_INPUT },
    ]);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.model).toBe(kind.model);
    expect(msg.usage).toMatchObject(kind.usage);
    // message_start carried the request's estimate (count_tokens answers the same figure), not 0.
    const { input_tokens: estimate } = await claude().messages.countTokens(body as never);
    expect(estimate).toBeGreaterThan(20_000);
    expect(events[0]).toMatchObject({ type: 'message_start', message: { usage: { input_tokens: estimate } } });

    // What the provider got: Claude Code's 16 tools and its system prompt, none of Anthropic's cache markers.
    const sent = lastBody(kind.mock());
    const seen = kind.seen(sent);
    expect(seen.tools).toEqual((TOOL_LOOP.tools as Json[]).map((t) => t.name));
    expect(seen.tools).toHaveLength(16);
    expect(seen.system).toContain("You are Claude Code, Anthropic's official CLI for Claude.");
    const text = JSON.stringify(sent);
    expect(text).not.toContain('cache_control');
    // The tool result Claude Code marked is_error reaches the model as an error.
    expect(text).toContain(inJson(`Error: ${errorResultText(TOOL_LOOP)}`).slice(0, 60));
  });

  it('the title request to the small model: text and end_turn', async () => {
    kind.mock().setBehavior({ tokens: ['Claude Code ', 'logging setup'] });
    const msg = await claude()
      .messages.stream({ ...TITLE, model: kind.model } as Anthropic.MessageCreateParamsStreaming)
      .finalMessage();
    expect(msg.content).toEqual([{ type: 'text', text: 'Claude Code logging setup' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(JSON.stringify(lastBody(kind.mock()))).toContain(inJson(firstUserText(TITLE)).slice(0, 60));
  });

  it('a turn that sends back thinking blocks (Claude Code 2.1): they stay out of the provider request', async () => {
    kind.mock().setBehavior({ tokens: ['Updating the palette.'] });
    // Hand-written envelope (model, max_tokens, thinking, tools) around the captured messages.
    const tools = [
      { name: 'mcp__claude-in-chrome__tabs_context_mcp', input_schema: { type: 'object', properties: {} } },
      { name: 'Read', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
    ];
    const msg = await claude()
      .messages.stream({
        model: kind.model,
        max_tokens: 32000,
        thinking: { type: 'enabled', budget_tokens: 31999 },
        tools,
        messages: [
          { role: 'user', content: 'Use warm colors for our doc site running at http://127.0.0.1:4000' },
          ...THINKING_TURN.messages,
        ],
      } as Anthropic.MessageCreateParamsStreaming)
      .finalMessage();
    expect(msg.content).toEqual([{ type: 'text', text: 'Updating the palette.' }]);
    const sent = lastBody(kind.mock());
    const text = JSON.stringify(sent);
    const [thinking, said] = (THINKING_TURN.messages as { content: Json[] }[])[0]!.content as Json[];
    expect(text).not.toContain(inJson(String(thinking!.thinking)).slice(0, 60));
    expect(text).not.toContain(String(thinking!.signature).slice(0, 40));
    expect(text).toContain(inJson(String(said!.text)).slice(0, 60));
    expect(text).toContain('style.scss');
  });
});

describe('structured output toward an Anthropic provider', () => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, temp_c: { type: 'number' } },
    required: ['city', 'temp_c'],
    additionalProperties: false,
  };
  const answer = { city: 'Paris', temp_c: 21 };
  const ask = 'Weather in Paris as JSON.';
  const openai = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'any', maxRetries: 0 });
  const sentTool = () => {
    const b = lastBody(anthropicMock);
    return { tools: b.tools as Json[], tool_choice: b.tool_choice as Json, thinking: b.thinking };
  };

  it('from the OpenAI client: json_schema becomes a forced tool; its input is the content, finish_reason stop', async () => {
    anthropicMock.setBehavior({ forcedToolInput: answer });
    const format = { type: 'json_schema' as const, json_schema: { name: 'weather', schema, strict: true } };
    const r = await openai().chat.completions.create({
      model: 'via-anthropic-claude',
      messages: [{ role: 'user', content: ask }],
      response_format: format,
    });
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual(answer);
    expect(r.choices[0]!.message.tool_calls).toBeUndefined();
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(sentTool()).toEqual({
      tools: [{ name: 'switchboard_json_answer', description: expect.any(String), input_schema: schema }],
      tool_choice: { type: 'tool', name: 'switchboard_json_answer' },
      thinking: undefined,
    });

    let content = '';
    let finish: string | null = null;
    const stream = await openai().chat.completions.create({
      model: 'via-anthropic-claude',
      messages: [{ role: 'user', content: ask }],
      response_format: format,
      stream: true,
    });
    for await (const c of stream) {
      expect(c.choices[0]?.delta?.tool_calls).toBeUndefined();
      content += c.choices[0]?.delta?.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(JSON.parse(content)).toEqual(answer);
    expect(finish).toBe('stop');
  });

  it('from the OpenAI client: json_object becomes an open object schema', async () => {
    anthropicMock.setBehavior({ forcedToolInput: { anything: ['goes'] } });
    const r = await openai().chat.completions.create({
      model: 'via-anthropic-claude',
      messages: [{ role: 'user', content: 'Any JSON.' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({ anything: ['goes'] });
    expect(sentTool().tools[0]!.input_schema).toEqual({ type: 'object', properties: {}, additionalProperties: true });
  });

  it('from the Ollama client: format (a schema, then "json") as the message content, streamed and whole', async () => {
    anthropicMock.setBehavior({ forcedToolInput: answer });
    const ollama = new Ollama({ host: sb.url });
    const whole = await ollama.chat({
      model: 'via-anthropic-claude',
      messages: [{ role: 'user', content: ask }],
      format: schema,
      stream: false,
    });
    expect(JSON.parse(whole.message.content)).toEqual(answer);
    expect(whole.done_reason).toBe('stop');
    expect(sentTool().tools[0]).toMatchObject({ name: 'switchboard_json_answer', input_schema: schema });

    let content = '';
    let done: string | undefined;
    for await (const part of await ollama.chat({
      model: 'via-anthropic-claude',
      messages: [{ role: 'user', content: ask }],
      format: 'json',
      stream: true,
    })) {
      content += part.message.content;
      if (part.done) done = part.done_reason;
    }
    expect(JSON.parse(content)).toEqual(answer);
    expect(done).toBe('stop');
  });

  it('from the Gemini client: responseJsonSchema, and an ARRAY responseSchema (wrapped as {"value": …})', async () => {
    anthropicMock.setBehavior({ forcedToolInput: answer });
    const ai = new GoogleGenAI({ apiKey: 'any', httpOptions: { baseUrl: sb.url } });
    const r = await ai.models.generateContent({
      model: 'via-anthropic-claude',
      contents: ask,
      config: { responseMimeType: 'application/json', responseJsonSchema: schema },
    });
    expect(JSON.parse(r.text!)).toEqual(answer);
    expect(r.candidates?.[0]?.finishReason).toBe('STOP');
    expect(r.functionCalls).toBeUndefined();

    anthropicMock.setBehavior({ forcedToolInput: { value: ['Paris', 'Rome'] } });
    let text = '';
    for await (const c of await ai.models.generateContentStream({
      model: 'via-anthropic-claude',
      contents: 'Two cities.',
      config: {
        responseMimeType: 'application/json',
        responseSchema: { type: Type.ARRAY, items: { type: Type.STRING } },
      },
    }))
      text += c.text ?? '';
    expect(JSON.parse(text)).toEqual(['Paris', 'Rome']);
    expect(sentTool()).toMatchObject({
      tools: [{ name: 'switchboard_json_value', input_schema: { type: 'object', required: ['value'] } }],
      tool_choice: { type: 'tool', name: 'switchboard_json_value' },
    });
  });

  it('from the OpenAI client: reasoning_effort becomes thinking with a budget below max_tokens', async () => {
    const r = await openai().chat.completions.create({
      model: 'via-anthropic-claude',
      messages: [{ role: 'user', content: 'Think, then answer.' }],
      reasoning_effort: 'low',
      temperature: 0.3,
    });
    expect(r.choices[0]!.message.content).toBe('Hello from cc-anthropic');
    const sent = lastBody(anthropicMock);
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(sent.max_tokens).toBe(2048 + 4096);
    expect(sent).not.toHaveProperty('temperature'); // Anthropic refuses thinking with a temperature other than 1
  });
});
