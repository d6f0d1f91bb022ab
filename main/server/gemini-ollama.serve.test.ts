// Gemini CLI, Continue, Zed and Open WebUI requests (test/fixtures/real/, each naming its source) through the real
// `switchboard serve` on the Gemini and Ollama routes, to an OpenAI-chat provider, an Anthropic provider, an OpenAI
// /v1/completions (fill-in-the-middle) and the clients' own kinds, with @google/genai and the ollama client as the
// parsers of what Switchboard sends back: text, function name and exact arguments, finish reason, usage.
import { readFileSync } from 'node:fs';
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { type ChatResponse, Ollama } from 'ollama';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockGemini, startMockGemini } from '../../test/support/mock-gemini.ts';
import { type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Fixture = { source: string; request: Record<string, any> };
const fixture = (path: string): Fixture =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/real/${path}`, import.meta.url), 'utf8')) as Fixture;
const geminiCli = fixture('gemini-cli/tool-turn-with-thinking.json').request;
const continueFim = fixture('continue/ollama-fim.json').request;
const zedChat = fixture('zed/ollama-chat-tools.json').request;
const openWebui = fixture('open-webui/ollama-chat-stream.json').request;

let sb: ServeProcess;
let openai: MockProvider;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let ollama: MockOllama;

beforeAll(async () => {
  openai = await startMockProvider({ name: 'oai' });
  anthropic = await startMockAnthropic({ name: 'ant' });
  gemini = await startMockGemini({ name: 'gem' });
  ollama = await startMockOllama({ name: 'oll' });
  const provider = (name: string, type: string, base_url: string) => ({
    name,
    type,
    base_url,
    api_key: `key-${name}`,
    enabled: true,
  });
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: false,
      providers: [
        provider('p-openai', 'openai', openai.baseUrl),
        provider('p-anthropic', 'anthropic', anthropic.baseUrl),
        provider('p-gemini', 'gemini', gemini.baseUrl),
        provider('p-ollama', 'ollama', ollama.baseUrl),
      ],
      routing: {
        default_provider: '',
        rules: [
          ...['openai', 'anthropic', 'gemini', 'ollama'].map((k) => ({ pattern: `via-${k}-*`, provider: `p-${k}` })),
          // A model the quirks table knows takes reasoning_effort, on the OpenAI-type provider.
          { pattern: 'gpt-oss*', provider: 'p-openai' },
        ],
      },
      app_rules: [],
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, openai, anthropic, gemini, ollama]);
defaultBehaviorBeforeEach(() => [openai, anthropic, gemini, ollama]);

const lastBody = (mock: { requests: { url: string; body: any }[] }, path: string): any =>
  mock.requests.filter((r) => r.url.split('?')[0]!.endsWith(path)).at(-1)?.body;

describe('Gemini CLI (@google/genai as the parser)', () => {
  const ai = () => new GoogleGenAI({ apiKey: 'any', httpOptions: { baseUrl: sb.url } });
  /** The fixture's request, sent by the SDK as Gemini CLI sends it (its config fields are the body's). */
  const stream = (model: string) =>
    ai().models.generateContentStream({
      model,
      contents: geminiCli.contents,
      config: {
        systemInstruction: geminiCli.systemInstruction,
        tools: geminiCli.tools,
        ...geminiCli.generationConfig,
      },
    });
  const collect = async (chunks: AsyncGenerator<GenerateContentResponse>) => {
    const parts: { text?: string; thought?: boolean; functionCall?: { name?: string; args?: unknown } }[] = [];
    let last: GenerateContentResponse | undefined;
    for await (const c of chunks) {
      parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
      last = c;
    }
    return { parts, last: last! };
  };

  it('to an OpenAI-chat provider: tools, results and thinking translated; thoughts, text and usage back', async () => {
    openai.setBehavior({
      reasoning: ['Reading', ' the listing.'],
      tokens: ['Two files', ': index.ts and util.ts.'],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 30,
        prompt_tokens_details: { cached_tokens: 1000 },
        completion_tokens_details: { reasoning_tokens: 20 },
      },
    });
    const { parts, last } = await collect(await stream('via-openai-gemini-2.5-pro'));

    const sent = lastBody(openai, '/chat/completions');
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(sent.reasoning_effort).toBe('medium'); // thinkingBudget 8192 on the hub's scale
    expect(sent).not.toHaveProperty('reasoning_budget');
    expect(sent.temperature).toBe(0);
    expect(sent.tools.map((t: any) => t.function.parameters)).toEqual(
      geminiCli.tools[0].functionDeclarations.map((d: any) => d.parametersJsonSchema),
    );
    const call = sent.messages.find((m: any) => m.tool_calls).tool_calls[0];
    expect(call).toMatchObject({ id: 'list_directory-1758000000000-1', function: { name: 'list_directory' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ path: '/work/project/src' });
    expect(sent.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'list_directory-1758000000000-1',
      content: 'Directory listing for /work/project/src:\nindex.ts\nutil.ts',
      name: 'list_directory',
    });

    expect(parts.filter((p) => p.thought).map((p) => p.text)).toEqual(['Reading', ' the listing.']);
    expect(
      parts
        .filter((p) => !p.thought && p.text)
        .map((p) => p.text)
        .join(''),
    ).toBe('Two files: index.ts and util.ts.');
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata).toEqual({
      promptTokenCount: 1200,
      cachedContentTokenCount: 1000,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 20,
      totalTokenCount: 1230,
    });
  });

  it('to an OpenAI-chat provider: a function call comes back with its name and exact arguments', async () => {
    const args = { absolute_path: '/work/project/src/index.ts', offset: 0, limit: 200 };
    openai.setBehavior({ toolCall: { name: 'read_file', arguments: args } });
    const { parts, last } = await collect(await stream('via-openai-gemini-2.5-pro'));
    const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall);
    expect(calls).toEqual([expect.objectContaining({ name: 'read_file', args })]);
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata?.promptTokenCount).toBe(10);
  });

  it('to an Anthropic provider: the tool turn and thinking translated; text and cache reads back', async () => {
    anthropic.setBehavior({
      tokens: ['Two files.'],
      usage: { input_tokens: 50, output_tokens: 7, cache_read_input_tokens: 40 },
    });
    const { parts, last } = await collect(await stream('via-anthropic-claude-sonnet-4'));
    const sent = lastBody(anthropic, '/messages');
    expect(sent.tools.map((t: any) => t.input_schema)).toEqual(
      geminiCli.tools[0].functionDeclarations.map((d: any) => d.parametersJsonSchema),
    );
    const result = sent.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
    expect(result.tool_use_id).toBe('list_directory-1758000000000-1');
    expect(sent.thinking?.type).not.toBe('disabled');
    expect(sent.thinking).toBeDefined();

    expect(parts.map((p) => p.text).join('')).toBe('Two files.');
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: 90,
      cachedContentTokenCount: 40,
      candidatesTokenCount: 7,
    });
  });

  it("refuses Gemini's own tools toward a non-Gemini provider (400 in Gemini's shape), passes them to Gemini", async () => {
    const before = openai.chatCount();
    const request = (model: string) =>
      ai().models.generateContent({ model, contents: 'Search the news', config: { tools: [{ googleSearch: {} }] } });
    const err = await request('via-openai-gpt').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toContain('tools[0].googleSearch');
    expect(openai.chatCount()).toBe(before);

    const r = await request('via-gemini-gemini-2.5-flash');
    expect(r.text).toBe('Hello from gem');
    expect(gemini.requests.at(-1)?.body.tools).toEqual([{ googleSearch: {} }]);
  });
});

describe('Continue autocomplete: fill-in-the-middle on /api/generate (ollama as the parser)', () => {
  const client = () => new Ollama({ host: sb.url });

  it('to an OpenAI-type provider: /v1/completions with prompt and suffix, streamed back as Ollama NDJSON', async () => {
    openai.setBehavior({ tokens: ['a ', '+ b;'], usage: { prompt_tokens: 30, completion_tokens: 2 } });
    let response = '';
    let final: any;
    for await (const part of await client().generate({
      ...continueFim,
      model: 'via-openai-qwen2.5-coder',
      stream: true,
    } as never)) {
      response += (part as any).response;
      if ((part as any).done) final = part;
    }
    expect(lastBody(openai, '/completions')).toEqual({
      model: 'via-openai-qwen2.5-coder',
      prompt: continueFim.prompt,
      suffix: continueFim.suffix,
      max_tokens: 256,
      temperature: 0.01,
      stop: continueFim.options.stop,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response).toBe('a + b;');
    expect(final).toMatchObject({ done: true, done_reason: 'length', prompt_eval_count: 30, eval_count: 2 });
  });

  it('to an OpenAI-type provider, not streamed: one Ollama generate reply', async () => {
    openai.setBehavior({ tokens: ['a + b;'], usage: { prompt_tokens: 30, completion_tokens: 3 } });
    const r = await client().generate({ ...continueFim, model: 'via-openai-qwen2.5-coder', stream: false } as never);
    expect(r).toMatchObject({ response: 'a + b;', done: true, prompt_eval_count: 30, eval_count: 3 });
    expect(lastBody(openai, '/completions').stream).toBeUndefined();
  });

  it("to an Ollama provider: the client's bytes untranslated", async () => {
    await client().generate({ ...continueFim, model: 'via-ollama-qwen2.5-coder', stream: false } as never);
    expect(lastBody(ollama, '/api/generate')).toMatchObject({ suffix: continueFim.suffix, raw: true });
  });

  it("to an Anthropic provider: refused with Ollama's error naming suffix and the fix", async () => {
    const before = anthropic.chatCount();
    const err = await client()
      .generate({ ...continueFim, model: 'via-anthropic-claude', stream: false } as never)
      .then(
        () => ({ status_code: 200, error: '' }),
        (e: unknown) => e as { status_code: number; error: string },
      );
    expect(err.status_code).toBe(400);
    expect(err.error).toContain('"suffix"');
    expect(err.error).toMatch(/OpenAI-type or Ollama provider/);
    expect(anthropic.chatCount()).toBe(before);
  });
});

describe('Zed and Open WebUI on /api/chat (ollama as the parser)', () => {
  const client = () => new Ollama({ host: sb.url });

  it('Zed to an OpenAI-chat provider: think, tools and the tool turn translated; the call back whole', async () => {
    const args = { path: '/work/project/src' };
    openai.setBehavior({ toolCall: { name: 'list_directory', arguments: args } });
    const r = (await client().chat({ ...zedChat, model: 'gpt-oss:20b' } as never)) as unknown as ChatResponse;
    const sent = lastBody(openai, '/chat/completions');
    expect(sent.reasoning_effort).toBe('medium');
    expect(sent).not.toHaveProperty('keep_alive');
    expect(sent).not.toHaveProperty('num_ctx');
    expect(sent.tools).toEqual(zedChat.tools);
    const callId = sent.messages[4].tool_calls[0].id;
    expect(sent.messages[5]).toEqual({ role: 'tool', tool_call_id: callId, content: zedChat.messages[5].content });
    expect(sent.messages[2]).toEqual({ role: 'assistant', content: zedChat.messages[2].content });

    expect(r.message.tool_calls?.map((c) => c.function)).toEqual([{ name: 'list_directory', arguments: args }]);
    expect(r).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 10 });
  });

  it('Open WebUI to an Anthropic provider: streamed text, counts with cache reads, dropped options gone', async () => {
    anthropic.setBehavior({
      tokens: ['Rayleigh', ' scattering.'],
      usage: { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 4 },
    });
    let text = '';
    let final: any;
    for await (const part of await client().chat({ ...openWebui, model: 'via-anthropic-claude-sonnet-4' } as never)) {
      text += (part as any).message.content;
      if ((part as any).done) final = part;
    }
    const sent = lastBody(anthropic, '/messages');
    expect(JSON.stringify(sent)).not.toMatch(/repeat_penalty|mirostat|num_ctx|keep_alive/);
    expect(sent.thinking).toBeDefined();
    expect(text).toBe('Rayleigh scattering.');
    expect(final).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 16, eval_count: 3 });
  });

  it('reasoning reaches an Ollama client as thinking', async () => {
    openai.setBehavior({ reasoning: ['Blue light', ' scatters more.'], tokens: ['Rayleigh.'] });
    let thinking = '';
    let text = '';
    for await (const part of await client().chat({ ...openWebui, model: 'gpt-oss:120b' } as never)) {
      thinking += (part as any).message.thinking ?? '';
      text += (part as any).message.content;
    }
    expect(lastBody(openai, '/chat/completions').reasoning_effort).toBe('high');
    expect(thinking).toBe('Blue light scatters more.');
    expect(text).toBe('Rayleigh.');
  });
});
