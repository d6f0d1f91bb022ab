// Codex CLI's Responses requests (test/fixtures/real/codex/, each naming its source) through the real
// `switchboard serve` to an OpenAI-chat, an Anthropic and a Gemini provider, with the openai SDK's responses.create
// and responses.stream parsing what comes back: the tool kind and name, the exact input, reasoning, stop and usage.
// And passthrough: a provider that declares native_formats ["responses"] gets the client's bytes.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { startMockGemini } from '../../test/support/mock-gemini.ts';
import { startMockProvider } from '../../test/support/mock-provider.ts';
import { startMockResponses } from '../../test/support/mock-responses.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { providerKind } from '../proxy/providers/index.ts';
import { responsesDoor, speaksResponses } from './doors.ts';

type Json = Record<string, any>;
const fixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/real/codex/${name}`, import.meta.url), 'utf8')) as Json;

const captured = fixture('first-turn-gpt-5.4.json').request as Json;
const laterItems = fixture('apply-patch-turn-items.json').items as Json[];
const localShell = fixture('local-shell-turn.json').request as Json;

/** The captured body as Codex POSTs it over HTTP: without the WebSocket envelope (`type`, `previous_response_id`). */
const { type: _ws, previous_response_id: _prev, ...firstTurn } = captured;
/** As Codex sends it with web_search = "disabled" in config.toml: the same body without the web_search tool. */
const withoutWebSearch = (body: Json): Json => ({
  ...body,
  tools: body.tools.filter((t: Json) => t.type !== 'web_search'),
});
const secondTurn = withoutWebSearch({ ...firstTurn, input: [...firstTurn.input, ...laterItems] });

const PATCH = '*** Begin Patch\n*** Add File: SECURITY.md\n+Report "issues" to \\security\\ ✓\n*** End Patch\n';
const REASONING = ['The shell bridge ', 'takes raw input.'];
const applyPatchGrammar = captured.tools.find((t: Json) => t.name === 'apply_patch').format.definition as string;

const KINDS = ['openai', 'anthropic', 'gemini'] as const;
type Kind = (typeof KINDS)[number];

let sb: ServeProcess;
const mocks = {} as {
  openai: Awaited<ReturnType<typeof startMockProvider>>;
  anthropic: Awaited<ReturnType<typeof startMockAnthropic>>;
  gemini: Awaited<ReturnType<typeof startMockGemini>>;
  responses: Awaited<ReturnType<typeof startMockResponses>>;
};

beforeAll(async () => {
  mocks.openai = await startMockProvider({ name: 'codex-openai' });
  mocks.anthropic = await startMockAnthropic({ name: 'codex-anthropic' });
  mocks.gemini = await startMockGemini({ name: 'codex-gemini' });
  mocks.responses = await startMockResponses({ name: 'codex-responses' });
  const root = mocks.responses.baseUrl.replace(/\/v1$/, '');
  const provider = (name: string, type: string, base_url: string, extra: Json = {}) => ({
    name,
    type,
    base_url,
    api_key: `key-${name}`,
    enabled: true,
    ...extra,
  });
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: false,
      providers: [
        provider('p-openai', 'openai', mocks.openai.baseUrl),
        provider('p-anthropic', 'anthropic', mocks.anthropic.baseUrl),
        provider('p-gemini', 'gemini', mocks.gemini.baseUrl),
        provider('p-responses', 'openai', mocks.responses.baseUrl, { native_formats: ['responses'] }),
        provider('p-ollama-responses', 'ollama', root, { native_formats: ['responses'] }),
        provider('p-not-responses', 'openai', mocks.openai.baseUrl, { native_formats: [] }),
      ],
      routing: {
        default_provider: '',
        rules: [
          ...KINDS.map((k) => ({ pattern: `via-${k}-*`, provider: `p-${k}` })),
          { pattern: 'openai/*', provider: 'p-openai' }, // a known model name: the quirks table keeps its reasoning_effort
          { pattern: 'native-*', provider: 'p-responses' },
          { pattern: 'ollama-native-*', provider: 'p-ollama-responses' },
          { pattern: 'declared-none-*', provider: 'p-not-responses' },
        ],
      },
      app_rules: [],
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, ...Object.values(mocks)]);
defaultBehaviorBeforeEach(() => Object.values(mocks));

const openai = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'any', maxRetries: 0 });
const lastBody = (kind: Kind | 'responses'): Json => mocks[kind].requests.at(-1)!.body as Json;

/** Each provider answers the apply_patch call with reasoning, and usage with cached and reasoning tokens. */
function answerWithPatch(kind: Kind): void {
  const toolCall = { name: 'apply_patch', arguments: { input: PATCH } };
  if (kind === 'openai') {
    mocks.openai.setBehavior({
      toolCall,
      reasoning: REASONING,
      usage: {
        prompt_tokens: 100,
        completion_tokens: 40,
        prompt_tokens_details: { cached_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 25 },
      },
    });
  } else if (kind === 'anthropic') {
    mocks.anthropic.setBehavior({
      toolCall,
      reasoning: REASONING,
      usage: { input_tokens: 40, output_tokens: 30, cache_read_input_tokens: 60 },
    });
  } else {
    mocks.gemini.setBehavior({
      toolCall,
      reasoning: REASONING,
      usage: { prompt_tokens: 100, completion_tokens: 30, cached_tokens: 60, reasoning_tokens: 25 },
    });
  }
}

/** The usage each provider's numbers come to in Responses' terms (reasoning only where the provider reports it). */
const EXPECTED_USAGE: Record<Kind, Json> = {
  openai: { input: 100, cached: 60, output: 40, reasoning: 25 },
  anthropic: { input: 100, cached: 60, output: 30, reasoning: 0 },
  gemini: { input: 100, cached: 60, output: 55, reasoning: 25 },
};

function expectUsage(usage: Json | null | undefined, kind: Kind): void {
  const u = EXPECTED_USAGE[kind];
  expect(usage).toMatchObject({
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  });
}

/** The custom tool as each provider received it: a function of one string "input", its grammar in the description. */
function receivedApplyPatch(kind: Kind): { description: string; parameters: Json } {
  const body = lastBody(kind);
  if (kind === 'openai') {
    const t = body.tools.find((x: Json) => x.function.name === 'apply_patch').function;
    return { description: t.description, parameters: t.parameters };
  }
  if (kind === 'anthropic') {
    const t = body.tools.find((x: Json) => x.name === 'apply_patch');
    return { description: t.description, parameters: t.input_schema };
  }
  const t = body.tools[0].functionDeclarations.find((x: Json) => x.name === 'apply_patch');
  return { description: t.description, parameters: t.parameters ?? t.parametersJsonSchema };
}

describe("Codex's first turn (captured)", () => {
  it('works on a chat route as captured: its web_search tool is left out and named in x-switchboard-dropped', async () => {
    answerWithPatch('openai');
    const { data, response } = await openai()
      .responses.create({ ...firstTurn, model: 'via-openai-gpt-5.4', stream: false } as never)
      .withResponse();
    expect(response.status).toBe(200);
    expect((data as { output: { type: string }[] }).output.map((o) => o.type)).toContain('custom_tool_call');
    expect(response.headers.get('x-switchboard-dropped')?.split(',')).toContain('web_search');
    const sent = lastBody('openai');
    expect(sent.tools.map((t: Json) => t.function?.name ?? t.type)).not.toContain('web_search');
  });

  for (const kind of KINDS) {
    it(`streams the apply_patch call back from ${kind} as a custom_tool_call, with reasoning and usage`, async () => {
      answerWithPatch(kind);
      const stream = openai().responses.stream({
        ...withoutWebSearch(firstTurn),
        model: `via-${kind}-gpt-5.4`,
      } as never);
      const deltas: string[] = [];
      const types: string[] = [];
      stream.on('event', (e) => {
        types.push(e.type);
        if (e.type === 'response.custom_tool_call_input.delta') deltas.push(e.delta);
      });
      const final = await stream.finalResponse();

      expect(types).not.toContain('response.function_call_arguments.delta');
      expect(types).toContain('response.reasoning_text.delta');
      expect(deltas.join('')).toBe(PATCH);
      expect(final.status).toBe('completed');
      const [reasoning, call] = final.output;
      expect(reasoning).toMatchObject({
        type: 'reasoning',
        content: [{ type: 'reasoning_text', text: REASONING.join('') }],
      });
      expect(call).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: PATCH, status: 'completed' });
      expect(call && 'call_id' in call && call.call_id).toBeTruthy();
      expect(final.output).toHaveLength(2);
      expectUsage(final.usage, kind);

      const tool = receivedApplyPatch(kind);
      expect(tool.description).toContain('This is a FREEFORM tool');
      expect(tool.description).toContain(applyPatchGrammar.trim());
      expect(tool.parameters).toMatchObject({ type: expect.stringMatching(/^object$/i), required: ['input'] });
    });

    it(`answers the apply_patch call from ${kind} without streaming as a custom_tool_call`, async () => {
      answerWithPatch(kind);
      const res = await openai().responses.create({
        ...withoutWebSearch(firstTurn),
        model: `via-${kind}-gpt-5.4`,
        stream: false,
      } as never);
      const r = res as unknown as Json;
      expect(r.output.map((i: Json) => i.type)).toEqual(['reasoning', 'custom_tool_call']);
      expect(r.output[1]).toMatchObject({ name: 'apply_patch', input: PATCH });
      expectUsage(r.usage, kind);
    });
  }

  it('sends reasoning.effort as reasoning_effort and tool_choice naming the custom tool to an OpenAI-chat provider', async () => {
    answerWithPatch('openai');
    await openai().responses.create({
      ...withoutWebSearch(firstTurn),
      model: 'openai/gpt-5.4',
      stream: false,
      reasoning: { effort: 'xhigh' },
      tool_choice: { type: 'custom', name: 'apply_patch' },
    } as never);
    const body = lastBody('openai');
    expect(body.reasoning_effort).toBe('high');
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'apply_patch' } });
    expect(body.parallel_tool_calls).toBe(true);
    for (const field of ['include', 'store', 'prompt_cache_key', 'text', 'client_metadata', 'reasoning']) {
      expect(body).not.toHaveProperty(field);
    }
    expect(body.messages[0]).toMatchObject({ role: 'system', content: captured.instructions });
  });
});

describe("Codex's later turn: reasoning, function and apply_patch calls with their outputs", () => {
  const patchInput = laterItems.find((i) => i.type === 'custom_tool_call')!.input as string;
  const patchOutput = laterItems.find((i) => i.type === 'custom_tool_call_output')!.output as string;
  const execCall = laterItems.find((i) => i.type === 'function_call')!;
  const execOutput = laterItems.find((i) => i.type === 'function_call_output')!.output as string;

  for (const kind of KINDS) {
    it(`reaches ${kind} as tool calls and results, and the reply streams back as text`, async () => {
      mocks[kind].setBehavior({ tokens: ['Checked', ' the rest.'] });
      const stream = openai().responses.stream({ ...secondTurn, model: `via-${kind}-gpt-5.4` } as never);
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('Checked the rest.');
      expect(final.status).toBe('completed');

      const body = lastBody(kind);
      const text = JSON.stringify(body);
      expect(text).not.toContain('gAAAAB'); // encrypted reasoning cannot cross
      if (kind === 'openai') {
        const calls = body.messages.flatMap((m: Json) => m.tool_calls ?? []);
        expect(calls.map((c: Json) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
          [execCall.call_id, 'exec_command', JSON.parse(execCall.arguments)],
          ['call_Xq2patch', 'apply_patch', { input: patchInput }],
        ]);
        const results = body.messages.filter((m: Json) => m.role === 'tool');
        expect(results).toEqual([
          { role: 'tool', tool_call_id: execCall.call_id, content: execOutput },
          { role: 'tool', tool_call_id: 'call_Xq2patch', content: patchOutput },
        ]);
        const withReasoning = body.messages.filter((m: Json) => m.reasoning_content);
        expect(withReasoning.map((m: Json) => m.reasoning_content)).toEqual([
          laterItems[1]!.summary[0].text,
          laterItems[4]!.summary[0].text,
        ]);
      } else if (kind === 'anthropic') {
        const blocks = body.messages.flatMap((m: Json) => (Array.isArray(m.content) ? m.content : []));
        expect(blocks.find((b: Json) => b.type === 'tool_use' && b.name === 'apply_patch').input).toEqual({
          input: patchInput,
        });
        const result = blocks.find((b: Json) => b.type === 'tool_result' && b.tool_use_id === 'call_Xq2patch');
        expect(JSON.stringify(result.content)).toContain('Success. Updated the following files');
      } else {
        const parts = body.contents.flatMap((c: Json) => c.parts);
        expect(parts.find((p: Json) => p.functionCall?.name === 'apply_patch').functionCall.args).toEqual({
          input: patchInput,
        });
        const response = parts.find((p: Json) => p.functionResponse?.name === 'apply_patch').functionResponse;
        expect(JSON.stringify(response.response)).toContain('Success. Updated the following files');
      }
    });
  }
});

describe("Codex's local_shell tool", () => {
  it('reaches an OpenAI-chat provider as a function, and its call comes back as a local_shell_call', async () => {
    mocks.openai.setBehavior({
      toolCall: { name: 'local_shell', arguments: { command: ['bash', '-lc', 'ls src'], working_directory: '/w' } },
    });
    const stream = openai().responses.stream({ ...localShell, model: 'openai/gpt-5.4' } as never);
    const types: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(types.filter((t) => t.startsWith('response.function_call'))).toEqual([]);
    expect(final.output).toEqual([
      expect.objectContaining({
        type: 'local_shell_call',
        status: 'completed',
        action: expect.objectContaining({ type: 'exec', command: ['bash', '-lc', 'ls src'], working_directory: '/w' }),
      }),
    ]);

    const body = lastBody('openai');
    expect(body.tools.map((t: Json) => t.function.name)).toEqual(['local_shell']);
    expect(body.reasoning_effort).toBe('high');
    expect(body.parallel_tool_calls).toBe(false);
    const call = body.messages.find((m: Json) => m.tool_calls).tool_calls[0];
    expect([call.id, call.function.name, JSON.parse(call.function.arguments)]).toEqual([
      'call_Ls1count',
      'local_shell',
      {
        command: ['bash', '-lc', "rg --files -g '*.ts' | wc -l"],
        timeout_ms: 10000,
        working_directory: '/Users/you/work/demo',
      },
    ]);
    expect(body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_Ls1count',
      content: localShell.input.at(-1).output,
    });
  });
});

describe('passthrough to a provider that serves Responses (native_formats)', () => {
  const post = (body: string) =>
    fetch(`${sb.baseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer any' },
      body,
    });

  it('gives it the client bytes as sent, web_search and the custom tool included, and its events back', async () => {
    const bytes = JSON.stringify({ ...firstTurn, model: 'native-gpt-5.4' });
    const before = mocks.responses.requests.length;
    const res = await post(bytes);
    expect(res.status).toBe(200);
    const events = await res.text();
    expect(events).toContain('event: response.completed');
    expect(events).toContain('Hello from codex-responses');
    const got = mocks.responses.requests.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.url).toBe('/v1/responses');
    expect(got[0]!.headers['content-length']).toBe(String(Buffer.byteLength(bytes)));
    expect(got[0]!.body).toEqual(JSON.parse(bytes));
  });

  it('is parsed by the openai SDK as the provider sent it', async () => {
    const final = await openai()
      .responses.stream({ ...firstTurn, model: 'native-gpt-5.4' } as never)
      .finalResponse();
    expect(final.output_text).toBe('Hello from codex-responses');
    expect(final.id).toMatch(/^resp_mock/);
  });

  it('reaches an Ollama-type provider at <base_url>/v1/responses', async () => {
    const before = mocks.responses.requests.length;
    const res = await post(JSON.stringify({ model: 'ollama-native-qwen3', input: 'hi', stream: false }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).output[0].content[0].text).toBe('Hello from codex-responses');
    expect(mocks.responses.requests.slice(before).map((r) => r.url)).toEqual(['/v1/responses']);
  });

  it('translates for a provider whose native_formats leaves responses out', async () => {
    const before = mocks.openai.requests.length;
    const r = await openai().responses.create({ model: 'declared-none-gpt', input: 'hi' });
    expect(r.output_text).toBe('Hello from codex-openai');
    expect(mocks.openai.requests.slice(before).map((x) => x.url)).toEqual(['/v1/chat/completions']);
  });
});

describe('which providers serve Responses (doors.ts)', () => {
  const target = (base_url: string, type: 'openai' | 'ollama', nativeFormats?: string[]) => ({
    kind: providerKind({ base_url, type }),
    baseUrl: new URL(base_url),
    name: 'p',
    ...(nativeFormats ? { nativeFormats } : {}),
  });

  it.each([
    ['https://api.openai.com/v1', 'openai', undefined, '/responses'],
    ['https://api.openai.com/v1', 'openai', [], null],
    ['https://openrouter.ai/api/v1', 'openai', undefined, null],
    ['https://openrouter.ai/api/v1', 'openai', ['responses'], '/responses'],
    ['http://127.0.0.1:11435', 'ollama', ['responses'], '/v1/responses'],
  ] as const)('%s (type %s, native_formats %j): %s', (base, type, formats, path) => {
    const t = target(base, type, formats as string[] | undefined);
    expect(speaksResponses(t)).toBe(path !== null);
    expect(responsesDoor.nativePath(t, 'm', true, {})).toBe(path);
  });
});
