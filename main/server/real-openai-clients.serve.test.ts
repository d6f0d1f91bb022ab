// Request bodies real OpenAI-chat tools send (test/fixtures/real/: Cline, Continue, aider, captured where a capture
// was found, hand-written and labelled as such where not), replayed through `switchboard serve` to a provider of
// every kind, with the openai SDK (v6) as the parser of what comes back: text, reasoning, several parallel tool
// calls with their exact arguments, finish_reason, and usage with cached and reasoning tokens where the provider
// reports them. Also: the fields a translating provider drops (x-switchboard-dropped, and the request log's attempt)
// and the ones it refuses (400 invalid_request naming the field), and reasoning an OpenAI-compatible provider sends
// as OpenRouter does (`reasoning`) reaching an Ollama client as its `thinking`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockGemini, startMockGemini } from '../../test/support/mock-gemini.ts';
import { type MockOllama, startMockOllama } from '../../test/support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/real');
type Body = Record<string, unknown> & { model: string; messages: unknown[]; tools?: { function: { name: string } }[] };
const fixture = (file: string): Body => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')).request;

const KINDS = ['openai', 'anthropic', 'gemini', 'ollama'] as const;
type Kind = (typeof KINDS)[number];

let sb: ServeProcess;
let openaiMock: MockProvider;
let anthropicMock: MockAnthropic;
let geminiMock: MockGemini;
let ollamaMock: MockOllama;
const mockOf = (k: Kind) =>
  ({ openai: openaiMock, anthropic: anthropicMock, gemini: geminiMock, ollama: ollamaMock })[k];

beforeAll(async () => {
  openaiMock = await startMockProvider({ name: 'real-openai' });
  anthropicMock = await startMockAnthropic({ name: 'real-anthropic' });
  geminiMock = await startMockGemini({ name: 'real-gemini' });
  ollamaMock = await startMockOllama({ name: 'real-ollama' });
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: false,
      providers: KINDS.map((k) => ({
        name: `p-${k}`,
        type: k,
        base_url: k === 'ollama' ? ollamaMock.baseUrl : mockOf(k).baseUrl,
        api_key: `key-${k}`,
        enabled: true,
      })),
      routing: {
        default_provider: '',
        rules: [
          ...KINDS.map((k) => ({ pattern: `via-${k}-*`, provider: `p-${k}` })),
          // A route whose primary refuses what its backup takes.
          { pattern: 'chain-*', provider: 'p-anthropic' },
          { pattern: 'chain-*', provider: 'p-openai' },
        ],
      },
      app_rules: [],
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, openaiMock, anthropicMock, geminiMock, ollamaMock]);
defaultBehaviorBeforeEach(() => [openaiMock, anthropicMock, geminiMock, ollamaMock]);

const client = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'any', maxRetries: 0 });

const REASONING = ['Look at', ' the tools.'];
/** The same reply's usage as each provider reports it: 120 prompt tokens (100 of them cached), 40 completion. */
function scriptReply(kind: Kind, reply: { tokens?: string[]; toolCalls?: { name: string; arguments: object }[] }) {
  const common = { ...reply, reasoning: REASONING };
  if (kind === 'openai') {
    openaiMock.setBehavior({
      ...common,
      reasoningField: 'reasoning', // as OpenRouter sends it
      usage: {
        prompt_tokens: 120,
        completion_tokens: 40,
        prompt_tokens_details: { cached_tokens: 100 },
        completion_tokens_details: { reasoning_tokens: 25 },
      },
    });
  } else if (kind === 'anthropic') {
    anthropicMock.setBehavior({
      ...common,
      usage: { input_tokens: 20, output_tokens: 40, cache_read_input_tokens: 100 },
    });
  } else if (kind === 'gemini') {
    geminiMock.setBehavior({
      ...common,
      usage: { prompt_tokens: 120, completion_tokens: 15, cached_tokens: 100, reasoning_tokens: 25 },
    });
  } else ollamaMock.setBehavior({ ...common, usage: { prompt_tokens: 120, completion_tokens: 40 } });
}

/** What each kind reports of that usage, as the OpenAI client reads it. */
const USAGE: Record<Kind, object> = {
  openai: {
    prompt_tokens: 120,
    completion_tokens: 40,
    total_tokens: 160,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 25 },
  },
  anthropic: {
    prompt_tokens: 120,
    completion_tokens: 40,
    total_tokens: 160,
    prompt_tokens_details: { cached_tokens: 100 },
  },
  gemini: {
    prompt_tokens: 120,
    completion_tokens: 40,
    total_tokens: 160,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 25 },
  },
  ollama: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
};

type Reply = {
  content: string;
  reasoning: string;
  calls: { id: string; name: string; args: unknown }[];
  finish: string | null;
  usage: unknown;
  dropped: string | null;
  status: number;
};

/** The body sent as the tool sent it (model routed by its prefix), read back by the openai SDK, streamed or not. */
async function replay(body: Body, kind: Kind): Promise<Reply> {
  const sent = { ...body, model: `via-${kind}-${body.model}` } as never;
  if (!body.stream) {
    const { data, response } = await client().chat.completions.create(sent).withResponse();
    const r = data as OpenAI.ChatCompletion;
    const m = r.choices[0]!.message as OpenAI.ChatCompletionMessage & {
      reasoning_content?: string;
      reasoning?: string;
    };
    return {
      content: m.content ?? '',
      reasoning: m.reasoning_content ?? m.reasoning ?? '',
      calls: (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.type === 'function' ? c.function.name : '',
        args: c.type === 'function' ? JSON.parse(c.function.arguments) : null,
      })),
      finish: r.choices[0]!.finish_reason,
      usage: r.usage,
      dropped: response.headers.get('x-switchboard-dropped'),
      status: response.status,
    };
  }
  const { data, response } = await client().chat.completions.create(sent).withResponse();
  const out: Reply = {
    content: '',
    reasoning: '',
    calls: [],
    finish: null,
    usage: undefined,
    status: 0,
    dropped: null,
  };
  const args: string[] = [];
  for await (const chunk of data as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
    if (chunk.usage) out.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const d = choice.delta as OpenAI.ChatCompletionChunk.Choice.Delta & {
      reasoning_content?: string;
      reasoning?: string;
    };
    out.content += d.content ?? '';
    out.reasoning += d.reasoning_content ?? d.reasoning ?? '';
    for (const tc of d.tool_calls ?? []) {
      out.calls[tc.index] ??= { id: '', name: '', args: null };
      const call = out.calls[tc.index]!;
      if (tc.id) call.id = tc.id;
      call.name += tc.function?.name ?? '';
      args[tc.index] = (args[tc.index] ?? '') + (tc.function?.arguments ?? '');
    }
    if (choice.finish_reason) out.finish = choice.finish_reason;
  }
  out.calls.forEach((c, i) => (c.args = JSON.parse(args[i]!)));
  out.dropped = response.headers.get('x-switchboard-dropped');
  out.status = response.status;
  return out;
}

/** The request the provider got: what Switchboard sent it for this replay. */
const lastRequest = (kind: Kind) => mockOf(kind).requests.at(-1)!.body as Record<string, unknown>;

const CLINE = fixture('cline/native-tools-gpt-5.json');
const CONTINUE_AGENT = fixture('continue/agent-chat.json');
const CONTINUE_TOOLS = fixture('continue/agent-tools-abridged.json');
const CONTINUE_EDIT = fixture('continue/edit-prediction.hand-written.json');
const AIDER = fixture('aider/whole-edit-format.json');
const FORCED = fixture('openai-sdk/forced-tool-vision.hand-written.json');
const SCHEMA = fixture('openai-sdk/json-schema.hand-written.json');

/** What each kind drops of each body (null: nothing, no header), as the formats' tables say (formats/*\/accepted.ts). */
const DROPPED: Record<string, Record<Kind, string | null>> = {
  cline: { openai: null, anthropic: null, gemini: 'parallel_tool_calls', ollama: 'parallel_tool_calls' },
  continueTools: { openai: null, anthropic: null, gemini: 'parallel_tool_calls', ollama: 'parallel_tool_calls' },
  continueEdit: { openai: null, anthropic: 'prediction', gemini: 'prediction', ollama: 'prediction' },
  forced: {
    openai: null,
    anthropic: 'seed,metadata,store,service_tier,prompt_cache_key,safety_identifier,tools[].function.strict',
    gemini: 'user,metadata,store,service_tier,prompt_cache_key,safety_identifier,tools[].function.strict',
    ollama: 'user,metadata,store,service_tier,prompt_cache_key,safety_identifier,tools[].function.strict',
  },
};

describe.each(KINDS)('to a provider of kind %s', (kind) => {
  const translated = kind !== 'openai';

  it('Cline (captured): 15 tools, reasoning_effort, parallel_tool_calls false: two calls, reasoning, usage', async () => {
    const calls = [
      { name: 'read_file', arguments: { path: 'src/main.ts', task_progress: '- [ ] Read the entry point' } },
      { name: 'list_files', arguments: { path: '.', recursive: true } },
    ];
    scriptReply(kind, { toolCalls: calls });
    const r = await replay(CLINE, kind);
    expect(r.status).toBe(200);
    expect(r.calls.map((c) => ({ name: c.name, arguments: c.args }))).toEqual(calls);
    expect(new Set(r.calls.map((c) => c.id)).size).toBe(2);
    expect(r.finish).toBe('tool_calls');
    expect(r.reasoning).toBe(REASONING.join(''));
    expect(r.usage).toEqual(USAGE[kind]);
    expect(r.dropped).toBe(DROPPED.cline![kind]);
    const got = lastRequest(kind);
    if (kind === 'openai') expect(got).toEqual({ ...CLINE, model: `via-openai-${CLINE.model}` });
    if (kind === 'anthropic') {
      expect(got.tools).toHaveLength(15);
      expect(got.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
      expect(got.thinking).toBeDefined();
    }
    if (kind === 'gemini')
      expect((got.tools as { functionDeclarations: unknown[] }[])[0]!.functionDeclarations).toHaveLength(15);
    if (kind === 'ollama') expect(got.tools).toHaveLength(15);
  });

  it('Continue (captured): agent-mode chat, answered in text', async () => {
    scriptReply(kind, { tokens: ['The hub', ' routes', ' requests.'] });
    const r = await replay(CONTINUE_AGENT, kind);
    expect(r).toMatchObject({ status: 200, content: 'The hub routes requests.', finish: 'stop', calls: [] });
    expect(r.reasoning).toBe(REASONING.join(''));
    // Continue asked for no usage; a translated stream reports it anyway, a passed-through one as the provider does.
    expect(r.usage).toEqual(translated ? USAGE[kind] : undefined);
    expect(r.dropped).toBeNull();
  });

  it('Continue (captured, abridged by its author): tools with parallel_tool_calls false and temperature', async () => {
    const calls = [
      { name: 'ls', arguments: { dirPath: '/', recursive: false } },
      { name: 'read_file', arguments: { filepath: 'README.md' } },
    ];
    scriptReply(kind, { toolCalls: calls });
    const r = await replay(CONTINUE_TOOLS, kind);
    expect(r.calls.map((c) => ({ name: c.name, arguments: c.args }))).toEqual(calls);
    expect(r.finish).toBe('tool_calls');
    expect(r.dropped).toBe(DROPPED.continueTools![kind]);
  });

  it('aider (captured): the whole-file edit format, temperature 0, twelve messages', async () => {
    scriptReply(kind, { tokens: ['src/main.py\n```\n', 'def fib(n):\n', '    ...\n```\n'] });
    const r = await replay(AIDER, kind);
    expect(r).toMatchObject({ status: 200, finish: 'stop', dropped: null });
    expect(r.content).toBe('src/main.py\n```\ndef fib(n):\n    ...\n```\n');
    const got = lastRequest(kind);
    if (kind === 'anthropic')
      expect(got).toMatchObject({ temperature: 0, system: (AIDER.messages as { content: string }[])[0]!.content });
    if (kind === 'gemini') expect(got.generationConfig).toMatchObject({ temperature: 0 });
    if (kind === 'ollama') expect(got.options).toMatchObject({ temperature: 0 });
  });

  it('Continue Edit with prediction (hand-written): prediction dropped where it cannot go, and said', async () => {
    scriptReply(kind, { tokens: ['/** Adds. */\n', 'export function add(a, b) {\n  return a + b;\n}\n'] });
    const r = await replay(CONTINUE_EDIT, kind);
    expect(r.status).toBe(200);
    expect(r.content).toContain('/** Adds. */');
    expect(r.dropped).toBe(DROPPED.continueEdit![kind]);
    if (kind === 'openai') expect(lastRequest(kind).prediction).toEqual(CONTINUE_EDIT.prediction);
    if (translated) {
      type Entry = { requested_model: string; attempts: { dropped?: string[] }[] };
      const log = (await (await sb.admin('/logs?limit=20')).json()) as { data: Entry[] };
      const entry = log.data.find((e) => e.requested_model === `via-${kind}-gpt-4o`);
      expect(entry?.attempts[0]?.dropped).toEqual([expect.stringMatching(/^prediction: a latency hint/)]);
    }
  });

  it('a forced tool_choice with an image (hand-written): two calls of the forced tool, the image sent on', async () => {
    const calls = [
      { name: 'report_defect', arguments: { component: 'header', severity: 'high', steps: ['open', 'scroll'] } },
      { name: 'report_defect', arguments: { component: 'footer', severity: 'low', steps: [] } },
    ];
    scriptReply(kind, { toolCalls: calls });
    const r = await replay(FORCED, kind);
    expect(r.calls.map((c) => ({ name: c.name, arguments: c.args }))).toEqual(calls);
    expect(r.finish).toBe('tool_calls');
    expect(r.usage).toEqual(USAGE[kind]);
    expect(r.dropped).toBe(DROPPED.forced![kind]);
    const got = JSON.stringify(lastRequest(kind));
    expect(got).toContain('iVBORw0KGgo'); // the image's bytes
    if (kind === 'anthropic') expect(lastRequest(kind).tool_choice).toEqual({ type: 'tool', name: 'report_defect' });
    if (kind === 'gemini')
      expect(lastRequest(kind).toolConfig).toEqual({
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['report_defect'] },
      });
    if (kind === 'ollama')
      expect((lastRequest(kind).tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
        'report_defect',
      ]);
  });

  it('a json_schema response_format with reasoning_effort (hand-written), not streamed', async () => {
    const event = { name: 'Science fair', date: 'Friday', participants: ['Alice', 'Bob'] };
    if (kind === 'anthropic') anthropicMock.setBehavior({ forcedToolInput: event });
    else scriptReply(kind, { tokens: [JSON.stringify(event)] });
    const r = await replay(SCHEMA, kind);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.content)).toEqual(event);
    expect(r.finish).toBe('stop');
    expect(r.dropped).toBeNull();
    const got = lastRequest(kind);
    if (kind === 'gemini')
      expect(got.generationConfig).toMatchObject({
        responseMimeType: 'application/json',
        responseJsonSchema: (SCHEMA.response_format as { json_schema: { schema: object } }).json_schema.schema,
      });
    if (kind === 'ollama')
      expect(got.format).toEqual((SCHEMA.response_format as { json_schema: { schema: object } }).json_schema.schema);
  });

  const refusals: [string, Record<string, unknown>, Kind[]][] = [
    ['n: 2', { n: 2 }, ['anthropic', 'ollama']],
    ['logprobs: true', { logprobs: true, top_logprobs: 3 }, ['anthropic', 'gemini', 'ollama']],
    [
      'modalities with audio',
      { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } },
      ['anthropic', 'gemini', 'ollama'],
    ],
    ['web_search_options', { web_search_options: { search_context_size: 'low' } }, ['anthropic', 'gemini', 'ollama']],
  ];
  for (const [what, extra, refusedBy] of refusals) {
    const refused = refusedBy.includes(kind);
    it(`${what} on Continue’s captured request is ${refused ? 'refused with a 400 naming it' : 'sent on'}`, async () => {
      scriptReply(kind, { tokens: ['ok'] });
      const before = mockOf(kind).chatCount();
      const body = { ...CONTINUE_AGENT, ...extra, stream: false };
      if (!refused) {
        expect((await replay(body, kind)).content).toBe('ok');
        return;
      }
      const err = await replay(body, kind).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      const e = err as InstanceType<typeof OpenAI.BadRequestError>;
      const field = Object.keys(extra)[0]!;
      expect(e.status).toBe(400);
      expect(e.code).toBe('invalid_request');
      expect(e.message).toContain(`"${field}"`);
      expect(e.message).toContain(`provider "p-${kind}"`);
      expect(mockOf(kind).chatCount()).toBe(before);
    });
  }
});

describe('a field the primary provider refuses', () => {
  it('skips that provider for the next candidate that takes it, and the request log says why', async () => {
    openaiMock.setBehavior({ tokens: ['one', ' of two'] });
    const body = { ...CONTINUE_AGENT, model: 'chain-qwen', stream: false, n: 2 };
    const { data, response } = await client()
      .chat.completions.create(body as never)
      .withResponse();
    expect((data as OpenAI.ChatCompletion).choices[0]!.message.content).toBe('one of two');
    expect(response.headers.get('x-switchboard-provider')).toBe('p-openai');
    expect(openaiMock.requests.at(-1)!.body.n).toBe(2);
    type Entry = { requested_model: string; attempts: { provider: string; status: number | null; error: string }[] };
    const log = (await (await sb.admin('/logs?limit=50')).json()) as { data: Entry[] };
    const entry = log.data.find((e) => e.requested_model === 'chain-qwen');
    expect(entry?.attempts.map((a) => [a.provider, a.status])).toEqual([
      ['p-anthropic', null],
      ['p-openai', 200],
    ]);
    expect(entry?.attempts[0]!.error).toMatch(/^"n" \(2\) cannot go to provider "p-anthropic", an Anthropic provider/);
  });
});

describe('reasoning an OpenAI-compatible provider sends as `reasoning` (OpenRouter)', () => {
  it('reaches an Ollama client as thinking, streamed and not', async () => {
    openaiMock.setBehavior({
      tokens: ['Paris.'],
      reasoning: ['The capital', ' of France'],
      reasoningField: 'reasoning',
    });
    const ollama = new Ollama({ host: sb.url });
    const ask = {
      model: 'via-openai-deepseek/deepseek-r1',
      messages: [{ role: 'user', content: 'Capital of France?' }],
    };
    const whole = await ollama.chat({ ...ask, stream: false });
    expect(whole.message).toMatchObject({ content: 'Paris.', thinking: 'The capital of France' });
    let thinking = '';
    let content = '';
    for await (const part of await ollama.chat({ ...ask, stream: true })) {
      thinking += part.message.thinking ?? '';
      content += part.message.content;
    }
    expect({ thinking, content }).toEqual({ thinking: 'The capital of France', content: 'Paris.' });
  });
});
