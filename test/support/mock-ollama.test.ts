// The Ollama mock, driven by the official `ollama` client (and by the ollama format module), so tests through it
// meet Ollama's real habits: NDJSON streams, whole tool calls with object arguments, {"error": "<text>"} bodies.
import { Ollama } from 'ollama';
import { describe, expect, it } from 'vitest';
import { foldChunks, type HubChunk } from '../../main/proxy/formats/hub/index.ts';
import { ollamaFormat } from '../../main/proxy/formats/ollama/index.ts';
import { withMock } from './lifecycle.ts';
import { startMockOllama } from './mock-ollama.ts';

const mock = withMock(startMockOllama, (m) => new Ollama({ host: m.baseUrl }));

const ask = { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] };
const weather = { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } };
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('mock ollama: /api/chat through the official client', () => {
  it('answers a non-stream chat that names the provider, with Ollama timings and counts', async () => {
    const { mock: m, client } = await mock({ name: 'alpha' });
    const reply = await client.chat({ ...ask, stream: false });
    expect(reply).toMatchObject({
      model: 'llama3.2',
      message: { role: 'assistant', content: 'Hello from alpha' },
      done: true,
      done_reason: 'stop',
    });
    expect(reply.prompt_eval_count).toBe(10);
    expect(reply.eval_count).toBe(3);
    expect(Number.isInteger(reply.eval_duration) && reply.eval_duration > 0).toBe(true);
    expect(reply.total_duration).toBe(reply.load_duration + reply.prompt_eval_duration + reply.eval_duration);
    expect(new Date(reply.created_at).getTime()).toBeGreaterThan(0);
    expect(m.chatCount()).toBe(1);
    expect(m.requests[0]).toMatchObject({ method: 'POST', url: '/api/chat', body: { ...ask, stream: false } });
  });

  it('streams NDJSON: one line per token, then a final done line with counts', async () => {
    const { client } = await mock({ name: 'beta', behavior: { usage: { prompt_tokens: 7, completion_tokens: 2 } } });
    const parts = await collect(await client.chat({ ...ask, stream: true }));
    expect(parts.map((p) => p.message.content)).toEqual(['Hello', ' from', ' beta', '']);
    expect(parts.map((p) => p.done)).toEqual([false, false, false, true]);
    expect(parts.at(-1)).toMatchObject({ done_reason: 'stop', prompt_eval_count: 7, eval_count: 2 });
  });

  it('streams by default when the request has no "stream" field, as Ollama does', async () => {
    const { mock: m } = await mock();
    const res = await fetch(`${m.baseUrl}/api/chat`, { method: 'POST', body: JSON.stringify(ask) });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { done: boolean });
    expect(lines).toHaveLength(4);
    expect(lines.at(-1)?.done).toBe(true);
  });

  it('replies with a tool call, arguments as an object (non-stream)', async () => {
    const { mock: m, client } = await mock({ behavior: { toolCall: weather } });
    const reply = await client.chat({ ...ask, tools, stream: false });
    expect(reply.message.content).toBe('');
    expect(reply.message.tool_calls).toEqual([{ function: weather }]);
    expect(reply.done_reason).toBe('stop');
    expect(m.requests[0]?.body.tools).toEqual(tools);
  });

  it('streams a tool call whole in one line, then the done line', async () => {
    const { client } = await mock({ behavior: { toolCall: weather } });
    const parts = await collect(await client.chat({ ...ask, tools, stream: true }));
    expect(parts).toHaveLength(2);
    expect(parts[0]?.message.tool_calls).toEqual([{ function: weather }]);
    expect(parts[1]).toMatchObject({ done: true, done_reason: 'stop' });
  });

  it('delays lines by chunkDelayMs', async () => {
    const { client } = await mock({ behavior: { chunkDelayMs: 40 } });
    const started = performance.now();
    await collect(await client.chat({ ...ask, stream: true }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('mock ollama: failures as the official client sees them', () => {
  it('answers status with {"error": "<text>"}, which the client shows as text; failTimes then recovers', async () => {
    const { mock: m, client } = await mock({ name: 'gamma', behavior: { status: 404, failTimes: 1 } });
    const err = (await client.chat({ ...ask, stream: false }).catch((e: unknown) => e)) as Error & {
      status_code?: number;
    };
    expect(err.name).toBe('ResponseError');
    expect(err.status_code).toBe(404);
    expect(err.message).toBe('model "llama3.2" not found, try pulling it first (mock gamma)');
    expect((await client.chat({ ...ask, stream: false })).message.content).toBe('Hello from gamma');
    expect(m.chatCount()).toBe(2);
  });

  it('cuts the stream after failAfterChunks lines: the client fails after reading them', async () => {
    const { client } = await mock({ behavior: { failAfterChunks: 2 } });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const part of await client.chat({ ...ask, stream: true })) seen.push(part.message.content);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(seen).toEqual(['Hello', ' from']);
  });

  it("sends Ollama's mid-stream error line after errorAfterChunks lines: the client throws its text", async () => {
    const { client } = await mock({ name: 'delta', behavior: { errorAfterChunks: 1 } });
    const seen: string[] = [];
    const err = (await (async () => {
      for await (const part of await client.chat({ ...ask, stream: true })) seen.push(part.message.content);
    })().catch((e: unknown) => e)) as Error;
    expect(seen).toEqual(['Hello']);
    expect(err.message).toBe('an error was encountered while running the model: unexpected EOF (mock delta)');
  });

  it('answers a body without a model with 400 {"error": "model is required"}', async () => {
    const { mock: m } = await mock();
    const res = await fetch(`${m.baseUrl}/api/chat`, { method: 'POST', body: JSON.stringify({ messages: [] }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'model is required' });
  });

  it("answers unknown paths with Ollama's plain 404", async () => {
    const { mock: m } = await mock();
    const res = await fetch(`${m.baseUrl}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('404 page not found');
  });
});

describe('mock ollama: the other endpoints', () => {
  it('generates, streamed and not, with `response` and a context', async () => {
    const { mock: m, client } = await mock({ name: 'eps' });
    const one = await client.generate({ model: 'llama3.2', prompt: 'hi', stream: false });
    expect(one).toMatchObject({
      response: 'Hello from eps',
      done: true,
      done_reason: 'stop',
      context: [1, 2, 3],
      eval_count: 3,
    });
    const parts = await collect(await client.generate({ model: 'llama3.2', prompt: 'hi', stream: true }));
    expect(parts.map((p) => p.response).join('')).toBe('Hello from eps');
    expect(parts.at(-1)?.done).toBe(true);
    expect(m.requests.map((r) => r.url)).toEqual(['/api/generate', '/api/generate']);
    expect(m.chatCount()).toBe(0);
  });

  it('lists models, tells its version, shows a known model and 404s an unknown one', async () => {
    const { client } = await mock({ behavior: { models: ['llama3.2:latest', 'qwen3:8b'] } });
    const list = await client.list();
    expect(list.models.map((x) => x.name)).toEqual(['llama3.2:latest', 'qwen3:8b']);
    expect(list.models[0]).toMatchObject({
      model: 'llama3.2:latest',
      details: {
        format: 'gguf',
        family: 'llama',
        families: ['llama'],
        parameter_size: '8.0B',
        quantization_level: 'Q4_K_M',
      },
    });
    expect(list.models[0]?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await client.version()).toEqual({ version: '0.6.4' });
    expect((await client.show({ model: 'llama3.2' })).capabilities).toContain('tools');
    const err = (await client.show({ model: 'nope' }).catch((e: unknown) => e)) as Error & { status_code?: number };
    expect(err.status_code).toBe(404);
    expect(err.message).toBe("model 'nope' not found");
  });
});

describe('mock ollama and the ollama format module agree', () => {
  const hubAsk = {
    model: 'llama3.2',
    messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    tools: [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } }],
  };

  it('a streamed tool call decodes to hub chunks with its arguments intact', async () => {
    const { mock: m } = await mock({
      behavior: { toolCall: weather, usage: { prompt_tokens: 20, completion_tokens: 5 } },
    });
    const body = ollamaFormat.requestFromHub({ ...hubAsk, stream: true });
    const res = await fetch(`${m.baseUrl}/api/chat`, { method: 'POST', body: JSON.stringify(body) });
    const decoder = ollamaFormat.streamDecoder('llama3.2');
    const chunks: HubChunk[] = [];
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(...decoder.push(r.value));
    chunks.push(...decoder.end());
    const folded = foldChunks(chunks);
    expect(m.requests[0]?.body).toMatchObject({
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    expect(folded.choices[0]?.finish_reason).toBe('tool_calls');
    expect(JSON.parse(folded.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual(weather.arguments);
    expect(folded.usage).toEqual({ prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 });
  });

  it('a non-stream reply reads back as a hub response; the mid-stream error line raises', async () => {
    const { mock: m } = await mock({ name: 'zeta' });
    const body = ollamaFormat.requestFromHub({ ...hubAsk, stream: false });
    const res = await fetch(`${m.baseUrl}/api/chat`, { method: 'POST', body: JSON.stringify(body) });
    const hub = ollamaFormat.responseToHub(await res.json(), 'llama3.2');
    expect(hub.choices[0]).toMatchObject({ message: { content: 'Hello from zeta' }, finish_reason: 'stop' });
    expect(hub.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });

    m.setBehavior({ errorAfterChunks: 1 });
    const text = await (
      await fetch(`${m.baseUrl}/api/chat`, {
        method: 'POST',
        body: JSON.stringify(ollamaFormat.requestFromHub({ ...hubAsk, stream: true })),
      })
    ).text();
    const decoder = ollamaFormat.streamDecoder('llama3.2');
    expect(() => {
      decoder.push(text);
      decoder.end();
    }).toThrow('unexpected EOF (mock zeta)');
  });
});

describe('mock ollama: several tool calls', () => {
  it('answers toolCalls whole in one message, streamed or not', async () => {
    const calls = [weather, { name: 'get_time', arguments: { zone: 'UTC' } }];
    const { client } = await mock({ behavior: { toolCalls: calls } });
    const whole = await client.chat({ ...ask, tools, stream: false });
    expect(whole.message.tool_calls?.map((c) => [c.function.name, c.function.arguments])).toEqual(
      calls.map((c) => [c.name, c.arguments]),
    );
    const lines = await collect(await client.chat({ ...ask, tools, stream: true }));
    expect(lines.flatMap((l) => l.message.tool_calls ?? []).map((c) => c.function.arguments)).toEqual(
      calls.map((c) => c.arguments),
    );
  });
});
