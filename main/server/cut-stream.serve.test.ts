// Issue 32, item 1: a reply cut by a clean close (no terminal event, or JSON that stops midway, and a proper end of
// the HTTP body) is never a finished answer. The matrix: every client format (OpenAI chat, Anthropic messages,
// Gemini, Ollama, Responses) × every provider kind (openai, anthropic, gemini, ollama: translated, or passed through
// when the kinds match) × streamed or not × cut outside or inside a tool call, through the real `switchboard serve`
// to a provider that cuts every reply (test/support/cut-provider.ts), with the official SDKs as the parsers. Each
// cell must end in the client's own error (its error event mid-stream, or an error status), never in its normal end
// (finish_reason, message_stop/stop_reason, finishReason, done, response.completed), and an agent never gets a tool
// call whose cut arguments are marked whole (a finished tool_calls turn, a function_call output_item.done...).
import Anthropic from '@anthropic-ai/sdk';
import { ApiError as GeminiApiError, GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CutKind, type CutProvider, startCutProvider } from '../../test/support/cut-provider.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const KINDS: CutKind[] = ['openai', 'anthropic', 'gemini', 'ollama'];

let cut: CutProvider;
let sb: ServeProcess;

beforeAll(async () => {
  cut = await startCutProvider();
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: false,
      providers: KINDS.map((kind) => ({
        name: `p-${kind}`,
        type: kind,
        base_url: cut.baseUrl[kind],
        api_key: `key-${kind}`,
        enabled: true,
      })),
      routing: { default_provider: '', rules: KINDS.map((kind) => ({ pattern: `${kind}-*`, provider: `p-${kind}` })) },
      app_rules: [],
      // Every reply fails here: the breaker must not step in and answer for the cut.
      circuit_breaker: { failure_threshold: 10_000, cooldown_ms: 1_000 },
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, cut]);

/** What a client saw: the events (or the whole reply) it parsed, and the error it raised, if any. */
type Seen = { events: unknown[]; error: unknown };

/** One client format: how its SDK asks (streamed or not), and what in its events is a normal end or a whole call. */
type Client = {
  name: string;
  ask(model: string, stream: boolean): Promise<Seen>;
  /** The event says the reply ended normally. */
  finished(event: any): boolean;
  /** The event hands over a tool call as whole (its arguments complete, the call to be run). */
  wholeCall(event: any): boolean;
  /** The error is the client's own error status (a non-stream reply). */
  status(error: unknown): number | undefined;
};

const READ_TOOL_SCHEMA = {
  type: 'object',
  properties: { file_path: { type: 'string', description: 'The absolute path of the file to read' } },
  required: ['file_path'],
};

async function collect(run: () => Promise<AsyncIterable<unknown>>): Promise<Seen> {
  const events: unknown[] = [];
  try {
    for await (const e of await run()) events.push(e);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

async function whole(run: () => Promise<unknown>): Promise<Seen> {
  try {
    return { events: [await run()], error: undefined };
  } catch (error) {
    return { events: [], error };
  }
}

const openai = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });

const CLIENTS: Client[] = [
  {
    name: 'OpenAI chat',
    ask: (model, stream) => {
      const body = {
        model,
        messages: [{ role: 'user' as const, content: 'Read the file.' }],
        tools: [{ type: 'function' as const, function: { name: 'Read', parameters: READ_TOOL_SCHEMA } }],
      };
      return stream
        ? collect(() => openai().chat.completions.create({ ...body, stream: true }))
        : whole(() => openai().chat.completions.create(body));
    },
    finished: (c) => (c.choices ?? []).some((ch: any) => ch.finish_reason),
    wholeCall: (c) => (c.choices ?? []).some((ch: any) => ch.finish_reason === 'tool_calls'),
    status: (e) => (e instanceof OpenAI.APIError ? e.status : undefined),
  },
  {
    name: 'Anthropic messages',
    ask: (model, stream) => {
      const client = new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
      const body = {
        model,
        max_tokens: 1024,
        messages: [{ role: 'user' as const, content: 'Read the file.' }],
        tools: [{ name: 'Read', input_schema: READ_TOOL_SCHEMA as Anthropic.Tool.InputSchema }],
      };
      return stream
        ? collect(() => client.messages.create({ ...body, stream: true }))
        : whole(() => client.messages.create(body));
    },
    finished: (e) => e.type === 'message_stop' || (e.type === 'message_delta' && e.delta?.stop_reason != null),
    wholeCall: (e) =>
      (e.type === 'message_delta' && e.delta?.stop_reason === 'tool_use') ||
      (e.type === 'message' && e.content?.some((b: any) => b.type === 'tool_use')),
    status: (e) => (e instanceof Anthropic.APIError ? e.status : undefined),
  },
  {
    name: 'Gemini',
    ask: (model, stream) => {
      const ai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: sb.url } });
      const params = {
        model,
        contents: 'Read the file.',
        config: { tools: [{ functionDeclarations: [{ name: 'Read', parametersJsonSchema: READ_TOOL_SCHEMA }] }] },
      };
      return stream
        ? collect(() => ai.models.generateContentStream(params))
        : whole(() => ai.models.generateContent(params));
    },
    finished: (c) => (c.candidates ?? []).some((cd: any) => cd.finishReason),
    wholeCall: (c) => (c.candidates ?? []).some((cd: any) => cd.content?.parts?.some((p: any) => p.functionCall)),
    status: (e) => (e instanceof GeminiApiError ? e.status : undefined),
  },
  {
    name: 'Ollama',
    ask: (model, stream) => {
      const ollama = new Ollama({ host: sb.url });
      const body = {
        model,
        messages: [{ role: 'user', content: 'Read the file.' }],
        tools: [{ type: 'function', function: { name: 'Read', parameters: READ_TOOL_SCHEMA } }],
      };
      return stream
        ? collect(() => ollama.chat({ ...body, stream: true }))
        : whole(() => ollama.chat({ ...body, stream: false }));
    },
    finished: (p) => p.done === true,
    wholeCall: (p) => (p.message?.tool_calls ?? []).length > 0,
    status: (e) => (e as { status_code?: number } | undefined)?.status_code,
  },
  {
    name: 'Responses',
    ask: (model, stream) => {
      const body = {
        model,
        input: 'Read the file.',
        tools: [{ type: 'function' as const, name: 'Read', parameters: READ_TOOL_SCHEMA, strict: false }],
      };
      return stream
        ? collect(() => openai().responses.create({ ...body, stream: true }))
        : whole(() => openai().responses.create(body));
    },
    finished: (e) => e.type === 'response.completed' || e.type === 'response.incomplete' || e.object === 'response',
    wholeCall: (e) =>
      (e.type === 'response.output_item.done' && e.item?.type === 'function_call') ||
      e.type === 'response.function_call_arguments.done' ||
      (e.output ?? []).some((i: any) => i.type === 'function_call'),
    status: (e) => (e instanceof OpenAI.APIError ? e.status : undefined),
  },
];

/** The passthrough cells: the client's format is the provider's. */
const PASSTHROUGH: Record<string, CutKind> = { 'OpenAI chat': 'openai', 'Anthropic messages': 'anthropic' };
PASSTHROUGH.Gemini = 'gemini';
PASSTHROUGH.Ollama = 'ollama';

describe.each(CLIENTS)('$name client: a cut reply ends in its own error', (client) => {
  const cells = KINDS.flatMap((kind) =>
    [true, false].flatMap((stream) =>
      [false, true].map((tool) => ({
        kind,
        stream,
        tool,
        title:
          `from a ${kind} provider (${PASSTHROUGH[client.name] === kind ? 'passed through' : 'translated'}), ` +
          `${stream ? 'streamed' : 'not streamed'}, cut ${tool ? 'inside a tool call' : 'in its text'}`,
      })),
    ),
  );

  it.each(cells)('$title', async ({ kind, stream, tool }) => {
    const before = cut.count[kind];
    const seen = await client.ask(`${kind}-${tool ? 'tool' : 'text'}`, stream);
    expect(cut.count[kind]).toBe(before + 1);
    expect(seen.error, 'the client raised no error').toBeDefined();
    expect(
      seen.events.filter((e) => client.finished(e)),
      'an event said the reply ended normally',
    ).toEqual([]);
    expect(
      seen.events.filter((e) => client.wholeCall(e)),
      'a cut tool call was handed over as whole',
    ).toEqual([]);
    // Mid-stream: the error event names the cut; before the first byte (or not streamed): the error status.
    const status = client.status(seen.error);
    if (!stream || seen.events.length === 0) expect(status).toBe(502);
    expect(String((seen.error as Error).message)).toMatch(/ended before|incomplete|not JSON|was cut|could not be read/);
  });
});
