// Every front door × every provider kind, through `switchboard serve`, with each vendor's official npm client:
// streamed text and streamed tool calls for every pair, plus non-stream text per front door.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, Type } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { startMockGemini } from '../../test/support/mock-gemini.ts';
import { startMockOllama } from '../../test/support/mock-ollama.ts';
import { startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Mock = {
  name: string;
  baseUrl: string;
  setBehavior(b: object): void;
  close(): Promise<void>;
  chatCount(): number;
};
type ToolCall = { name: string; args: unknown };
type Driver = {
  text(model: string): Promise<string>;
  streamText(model: string): Promise<string>;
  streamTool(model: string): Promise<ToolCall>;
};

const KINDS = ['openai', 'anthropic', 'gemini', 'ollama'] as const;
const WEATHER_ARGS = { city: 'Paris', unit: 'celsius', days: 3 };
const ask = 'What is the weather in Paris?';

let sb: ServeProcess;
const mocks: Record<(typeof KINDS)[number], Mock> = {} as never;

beforeAll(async () => {
  mocks.openai = (await startMockProvider({ name: 'kind-openai' })) as unknown as Mock;
  mocks.anthropic = (await startMockAnthropic({ name: 'kind-anthropic' })) as unknown as Mock;
  mocks.gemini = (await startMockGemini({ name: 'kind-gemini' })) as unknown as Mock;
  mocks.ollama = (await startMockOllama({ name: 'kind-ollama' })) as unknown as Mock;
  const baseFor = (k: (typeof KINDS)[number]) =>
    k === 'ollama' ? mocks.ollama.baseUrl.replace(/\/$/, '') : mocks[k].baseUrl;
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: false,
      providers: KINDS.map((k) => ({
        name: `p-${k}`,
        type: k,
        base_url: baseFor(k),
        api_key: `key-${k}`,
        enabled: true,
      })),
      routing: { default_provider: '', rules: KINDS.map((k) => ({ pattern: `via-${k}-*`, provider: `p-${k}` })) },
      app_rules: [],
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, ...Object.values(mocks)]);

const openai = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'any', maxRetries: 0 });
const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string' }, days: { type: 'number' } },
    required: ['city'],
  },
};

const drivers: Record<string, Driver> = {
  'OpenAI chat (openai)': {
    async text(model) {
      const r = await openai().chat.completions.create({ model, messages: [{ role: 'user', content: ask }] });
      return r.choices[0]!.message.content ?? '';
    },
    async streamText(model) {
      let text = '';
      for await (const c of await openai().chat.completions.create({
        model,
        messages: [{ role: 'user', content: ask }],
        stream: true,
      }))
        text += c.choices[0]?.delta?.content ?? '';
      return text;
    },
    async streamTool(model) {
      let name = '';
      let args = '';
      const stream = await openai().chat.completions.create({
        model,
        messages: [{ role: 'user', content: ask }],
        tools: [{ type: 'function', function: weatherTool }],
        stream: true,
      });
      for await (const c of stream) {
        const tc = c.choices[0]?.delta?.tool_calls?.[0];
        if (tc?.function?.name) name += tc.function.name;
        if (tc?.function?.arguments) args += tc.function.arguments;
      }
      return { name, args: JSON.parse(args) };
    },
  },
  'Anthropic messages (@anthropic-ai/sdk)': {
    async text(model) {
      const client = new Anthropic({ baseURL: sb.url, apiKey: 'any', maxRetries: 0 });
      const r = await client.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: ask }] });
      return r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    },
    async streamText(model) {
      const client = new Anthropic({ baseURL: sb.url, apiKey: 'any', maxRetries: 0 });
      const final = await client.messages
        .stream({ model, max_tokens: 100, messages: [{ role: 'user', content: ask }] })
        .finalMessage();
      return final.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    },
    async streamTool(model) {
      const client = new Anthropic({ baseURL: sb.url, apiKey: 'any', maxRetries: 0 });
      const final = await client.messages
        .stream({
          model,
          max_tokens: 100,
          messages: [{ role: 'user', content: ask }],
          tools: [
            {
              name: weatherTool.name,
              description: weatherTool.description,
              input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema,
            },
          ],
        })
        .finalMessage();
      const use = final.content.find((b) => b.type === 'tool_use');
      if (!use || use.type !== 'tool_use') throw new Error(`no tool_use block: ${JSON.stringify(final.content)}`);
      expect(final.stop_reason).toBe('tool_use');
      return { name: use.name, args: use.input };
    },
  },
  'Gemini generateContent (@google/genai)': {
    async text(model) {
      const ai = new GoogleGenAI({ apiKey: 'any', httpOptions: { baseUrl: sb.url } });
      const r = await ai.models.generateContent({ model, contents: ask });
      return r.text ?? '';
    },
    async streamText(model) {
      const ai = new GoogleGenAI({ apiKey: 'any', httpOptions: { baseUrl: sb.url } });
      let text = '';
      for await (const c of await ai.models.generateContentStream({ model, contents: ask })) text += c.text ?? '';
      return text;
    },
    async streamTool(model) {
      const ai = new GoogleGenAI({ apiKey: 'any', httpOptions: { baseUrl: sb.url } });
      const calls: ToolCall[] = [];
      const stream = await ai.models.generateContentStream({
        model,
        contents: ask,
        config: {
          tools: [
            {
              functionDeclarations: [
                {
                  name: weatherTool.name,
                  description: weatherTool.description,
                  parameters: {
                    type: Type.OBJECT,
                    properties: {
                      city: { type: Type.STRING },
                      unit: { type: Type.STRING },
                      days: { type: Type.NUMBER },
                    },
                    required: ['city'],
                  },
                },
              ],
            },
          ],
        },
      });
      for await (const c of stream)
        for (const fc of c.functionCalls ?? []) calls.push({ name: fc.name ?? '', args: fc.args });
      expect(calls).toHaveLength(1);
      return calls[0]!;
    },
  },
  'Ollama /api/chat (ollama)': {
    async text(model) {
      const r = await new Ollama({ host: sb.url }).chat({
        model,
        messages: [{ role: 'user', content: ask }],
        stream: false,
      });
      return r.message.content;
    },
    async streamText(model) {
      let text = '';
      let done = false;
      for await (const part of await new Ollama({ host: sb.url }).chat({
        model,
        messages: [{ role: 'user', content: ask }],
        stream: true,
      })) {
        text += part.message.content;
        done ||= part.done;
      }
      expect(done).toBe(true);
      return text;
    },
    async streamTool(model) {
      const calls: ToolCall[] = [];
      const stream = await new Ollama({ host: sb.url }).chat({
        model,
        messages: [{ role: 'user', content: ask }],
        tools: [{ type: 'function', function: weatherTool as never }],
        stream: true,
      });
      for await (const part of stream)
        for (const tc of part.message.tool_calls ?? [])
          calls.push({ name: tc.function.name, args: tc.function.arguments });
      expect(calls).toHaveLength(1);
      return calls[0]!;
    },
  },
  'OpenAI Responses (openai)': {
    async text(model) {
      const r = await openai().responses.create({ model, input: ask });
      return r.output_text;
    },
    async streamText(model) {
      let text = '';
      let completed = false;
      for await (const e of await openai().responses.create({ model, input: ask, stream: true })) {
        if (e.type === 'response.output_text.delta') text += e.delta;
        if (e.type === 'response.completed') completed = true;
      }
      expect(completed).toBe(true);
      return text;
    },
    async streamTool(model) {
      let result: ToolCall | null = null;
      const stream = await openai().responses.create({
        model,
        input: ask,
        tools: [
          {
            type: 'function',
            name: weatherTool.name,
            description: weatherTool.description,
            parameters: weatherTool.parameters,
            strict: false,
          },
        ],
        stream: true,
      });
      for await (const e of stream) {
        if (e.type === 'response.output_item.done' && e.item.type === 'function_call')
          result = { name: e.item.name, args: JSON.parse(e.item.arguments) };
      }
      if (!result) throw new Error('no function_call item');
      return result;
    },
  },
};

defaultBehaviorBeforeEach(() => Object.values(mocks));

for (const [door, d] of Object.entries(drivers)) {
  describe(door, () => {
    for (const kind of KINDS) {
      it(`streams text from a provider of kind ${kind}`, async () => {
        const before = mocks[kind].chatCount();
        const text = await d.streamText(`via-${kind}-model`);
        expect(text).toContain(`kind-${kind}`);
        expect(mocks[kind].chatCount()).toBe(before + 1);
      });

      it(`streams a tool call from a provider of kind ${kind}, arguments intact`, async () => {
        mocks[kind].setBehavior({ toolCall: { name: 'get_weather', arguments: WEATHER_ARGS } });
        const call = await d.streamTool(`via-${kind}-model`);
        expect(call).toEqual({ name: 'get_weather', args: WEATHER_ARGS });
      });
    }

    it('answers a non-stream request', async () => {
      const text = await d.text('via-openai-model');
      expect(text).toContain('kind-openai');
    });
  });
}

describe('requests the hub cannot express', () => {
  it("pass through to a provider of the client's own kind, and get a clear 400 elsewhere", async () => {
    const body = (model: string) =>
      JSON.stringify({
        model,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'news?' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
      });
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'any' };
    const before = mocks.anthropic.chatCount();
    const ok = await fetch(`${sb.url}/v1/messages`, { method: 'POST', headers, body: body('via-anthropic-model') });
    expect(ok.status).toBe(200);
    expect(mocks.anthropic.chatCount()).toBe(before + 1);

    const refused = await fetch(`${sb.url}/v1/messages`, { method: 'POST', headers, body: body('via-openai-model') });
    expect(refused.status).toBe(400);
    const err = (await refused.json()) as { type: string; error: { type: string; message: string } };
    expect(err.type).toBe('error');
    expect(err.error.message).toContain('web_search');
    expect(err.error.message).toContain('p-openai');
  });
});
