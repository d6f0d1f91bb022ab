// The mock provider, driven by the official openai client, so tests that use it test against real OpenAI habits.
import OpenAI from 'openai';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { withMock } from './lifecycle.ts';
import { startMockProvider } from './mock-provider.ts';

const mock = withMock(startMockProvider, (m) => new OpenAI({ baseURL: m.baseUrl, apiKey: 'x', maxRetries: 0 }));

const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('mock provider: non-stream', () => {
  it('answers an OpenAI chat completion that names the provider and records the request', async () => {
    const { mock: m, client } = await mock({ name: 'alpha' });
    const reply = await client.chat.completions.create(ask);

    expect(reply.object).toBe('chat.completion');
    expect(reply.id).toMatch(/^chatcmpl-/);
    expect(reply.model).toBe('gpt-4o-mini');
    expect(reply.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Hello from alpha' });
    expect(reply.choices[0]?.finish_reason).toBe('stop');
    expect(reply.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });

    expect(m.chatCount()).toBe(1);
    expect(m.requests).toHaveLength(1);
    const recorded = m.requests[0]!;
    expect(recorded).toMatchObject({ method: 'POST', url: '/v1/chat/completions', body: ask });
    expect(recorded.headers.authorization).toBe('Bearer x');
    expect(recorded.receivedAt).toBeLessThanOrEqual(performance.now());
  });

  it('tells two providers apart and follows setBehavior for later requests', async () => {
    const a = await mock({ name: 'alpha' });
    const b = await mock({
      name: 'beta',
      behavior: { tokens: ['one', ' two'], usage: { prompt_tokens: 7, completion_tokens: 2 } },
    });
    expect((await a.client.chat.completions.create(ask)).choices[0]?.message.content).toBe('Hello from alpha');
    const fromB = await b.client.chat.completions.create(ask);
    expect(fromB.choices[0]?.message.content).toBe('one two');
    expect(fromB.usage?.total_tokens).toBe(9);

    b.mock.setBehavior({ tokens: ['changed'] });
    expect((await b.client.chat.completions.create(ask)).choices[0]?.message.content).toBe('changed');
  });

  it('delays the response headers by firstByteDelayMs', async () => {
    const { client } = await mock({ behavior: { firstByteDelayMs: 120 } });
    const started = performance.now();
    await client.chat.completions.create(ask);
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('answers pipelined requests on one connection, in order', async () => {
    const { mock: m } = await mock({ behavior: { firstByteDelayMs: 20 } });
    const body = JSON.stringify(ask);
    const one = `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    const socket = net.connect(m.port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.write(one + one);
    while ((text.match(/HTTP\/1\.1 200/g) ?? []).length < 2 || !text.endsWith('}'))
      await new Promise((r) => setTimeout(r, 10));
    socket.destroy();
    expect(text.match(/"id":"chatcmpl-mock\d+"/g)).toEqual(['"id":"chatcmpl-mock1"', '"id":"chatcmpl-mock2"']);
  });

  it('keeps counting with record: false but stores nothing', async () => {
    const { mock: m, client } = await mock({ record: false });
    await client.chat.completions.create(ask);
    await client.models.list();
    expect(m.chatCount()).toBe(1);
    expect(m.requests).toEqual([]);
  });
});

describe('mock provider: stream', () => {
  it('streams chunk by chunk: the client holds the first chunk before the last one is written', async () => {
    const { mock: m, client } = await mock({ name: 'alpha', behavior: { chunkDelayMs: 60 } });
    const stream = await client.chat.completions.create({
      ...ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    const receivedAt: number[] = [];
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      receivedAt.push(performance.now());
      chunks.push(chunk);
    }

    // role, three tokens, stop, usage; [DONE] is consumed by the client.
    expect(chunks).toHaveLength(6);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello from alpha');
    expect(chunks[4]?.choices[0]).toMatchObject({ finish_reason: 'stop', delta: {} });
    expect(chunks[5]?.choices).toEqual([]);
    expect(chunks[5]?.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4o-mini')).toBe(true);

    expect(m.sentChunksAt).toHaveLength(7);
    expect(receivedAt[0]!).toBeLessThan(m.sentChunksAt.at(-1)!);
    expect(m.sentChunksAt.at(-1)! - m.sentChunksAt[0]!).toBeGreaterThanOrEqual(6 * 60 - 20);
  });

  it('writes the SSE bytes exactly as OpenAI does, without content-length', async () => {
    const { mock: m } = await mock({ behavior: { tokens: ['a', 'b'] } });
    const res = await fetch(`${m.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('content-length')).toBeNull();
    const events = (await res.text()).split('\n\n');
    expect(events.pop()).toBe('');
    expect(events.at(-1)).toBe('data: [DONE]');
    const parsed = events.slice(0, -1).map((e) => {
      expect(e.startsWith('data: {"id":"chatcmpl-')).toBe(true);
      return JSON.parse(e.slice('data: '.length));
    });
    expect(parsed.map((p) => p.choices[0])).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 0, delta: { content: 'a' }, finish_reason: null },
      { index: 0, delta: { content: 'b' }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'stop' },
    ]);
    expect(Object.keys(parsed[0])).toEqual(['id', 'object', 'created', 'model', 'choices']);
  });

  it('sends headers and the first chunk, then stalls for headersThenHangMs', async () => {
    const { mock: m, client } = await mock({ behavior: { headersThenHangMs: 150 } });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const receivedAt: number[] = [];
    for await (const _ of stream) receivedAt.push(performance.now());
    expect(receivedAt[1]! - receivedAt[0]!).toBeGreaterThanOrEqual(140);
    expect(m.sentChunksAt[1]! - m.sentChunksAt[0]!).toBeGreaterThanOrEqual(140);
  });

  it('breaks the connection after failAfterChunks chunks', async () => {
    const { client } = await mock({ behavior: { failAfterChunks: 2 } });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) got.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toThrow();
    expect(got).toEqual(['', 'Hello']);
  });
});

describe('mock provider: failures', () => {
  it('answers the status with an OpenAI error body for the first failTimes requests, then succeeds', async () => {
    const { mock: m, client } = await mock({ behavior: { status: 500, failTimes: 2 } });
    for (let i = 0; i < 2; i++) {
      const err = await client.chat.completions.create(ask).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.InternalServerError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
      expect((err as InstanceType<typeof OpenAI.APIError>).type).toBe('server_error');
    }
    expect((await client.chat.completions.create(ask)).choices[0]?.message.content).toBe('Hello from mock');
    expect(m.chatCount()).toBe(3);
  });

  it.each([
    [429, OpenAI.RateLimitError, 'rate_limit_exceeded'],
    [401, OpenAI.AuthenticationError, 'invalid_api_key'],
    [408, OpenAI.APIError, 'timeout'],
  ] as const)('answers %i as the client expects', async (status, errorClass, code) => {
    const { client } = await mock({ behavior: { status } });
    const err = await client.chat.completions.create(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errorClass);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe(code);
    // Without failTimes the provider stays down, for the models list too.
    await expect(client.chat.completions.create(ask)).rejects.toBeInstanceOf(errorClass);
    await expect(client.models.list()).rejects.toBeInstanceOf(errorClass);
  });

  it("says errorMessage's text in the status's error body, or answers errorPage's HTML (both from the request)", async () => {
    const { mock: m, client } = await mock({
      behavior: { status: 401, errorMessage: (h) => `Incorrect API key provided: ${String(h.authorization)}` },
    });
    const err = await client.chat.completions.create(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toBe('401 Incorrect API key provided: Bearer x');
    m.setBehavior({
      status: 503,
      errorPage: (h) => `<html><pre>authorization: ${String(h.authorization)}</pre></html>`,
    });
    const res = await fetch(`${m.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer y' },
      body: JSON.stringify(ask),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe('<html><pre>authorization: Bearer y</pre></html>');
  });

  it('resets the connection with destroy', async () => {
    const { mock: m, client } = await mock({ behavior: { destroy: true } });
    await expect(client.chat.completions.create(ask)).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(m.chatCount()).toBe(1);
  });

  it('answers unknown paths with a 404 OpenAI error', async () => {
    const { mock: m } = await mock();
    const res = await fetch(`${m.baseUrl}/audio/speech`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'unknown_url' } });
  });

  it('answers a chat body that is not JSON with 400 and records the raw text', async () => {
    const { mock: m } = await mock();
    const res = await fetch(`${m.baseUrl}/chat/completions`, { method: 'POST', body: '{oops' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_json' } });
    expect(m.requests[0]?.body).toBe('{oops');
  });
});

describe('mock provider: models and lifecycle', () => {
  it('lists the configured models, owned by the provider', async () => {
    const { mock: m, client } = await mock({ name: 'alpha', behavior: { models: ['m1', 'm2'] } });
    const page = await client.models.list();
    expect(page.data.map((x) => [x.id, x.object, x.owned_by])).toEqual([
      ['m1', 'model', 'alpha'],
      ['m2', 'model', 'alpha'],
    ]);
    expect(m.requests[0]).toMatchObject({ method: 'GET', url: '/v1/models' });
    expect(m.chatCount()).toBe(0);
  });

  it('close() ends a hanging request and the server', async () => {
    const { mock: m, client } = await mock({ behavior: { hang: true } });
    const pending = client.chat.completions.create(ask).catch((e: unknown) => e);
    while (m.requests.length === 0) await new Promise((r) => setTimeout(r, 5));

    const started = performance.now();
    await m.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
    await expect(fetch(`${m.baseUrl}/models`)).rejects.toThrow();
    await m.close(); // twice is fine
  });
});

describe('tool calls', () => {
  it('replies with a tool call, whole and streamed in pieces, as the openai client reads it', async () => {
    const { startMockProvider: start } = await import('./mock-provider.ts');
    const { default: OpenAIClient } = await import('openai');
    const m = await start({
      name: 'tools',
      behavior: { toolCall: { name: 'get_weather', arguments: { city: 'Paris', days: 3 } } },
    });
    try {
      const c = new OpenAIClient({ baseURL: m.baseUrl, apiKey: 'x', maxRetries: 0 });
      const whole = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      expect(whole.choices[0]!.finish_reason).toBe('tool_calls');
      expect(
        JSON.parse(
          whole.choices[0]!.message.tool_calls![0]!.type === 'function'
            ? (whole.choices[0]!.message.tool_calls![0] as { function: { arguments: string } }).function.arguments
            : '',
        ),
      ).toEqual({ city: 'Paris', days: 3 });
      const stream = await c.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      let args = '';
      let pieces = 0;
      for await (const chunk of stream) {
        const d = chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments;
        if (d) {
          args += d;
          pieces++;
        }
      }
      expect(pieces).toBe(3);
      expect(JSON.parse(args)).toEqual({ city: 'Paris', days: 3 });
    } finally {
      await m.close();
    }
  });
});

describe('mock provider: script', () => {
  it('consumes one scripted behaviour per chat request, then falls back to the base behaviour', async () => {
    const { client } = await mock({
      behavior: {
        script: [{ toolCall: { name: 'calc', arguments: { x: 1 } } }, { tokens: ['two'] }],
        tokens: ['base'],
      },
    });
    const first = await client.chat.completions.create(ask);
    expect(first.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'calc', arguments: '{"x":1}' },
    });
    expect((await client.chat.completions.create(ask)).choices[0]!.message.content).toBe('two');
    expect((await client.chat.completions.create(ask)).choices[0]!.message.content).toBe('base');
  });
});

describe('mock provider: several tool calls and reasoning', () => {
  const calls = [
    { name: 'read_file', arguments: { path: 'a.ts' } },
    { name: 'read_file', arguments: { path: 'b.ts', lines: [1, 20] } },
  ];

  it('answers toolCalls as parallel calls, whole and streamed (each under its own index)', async () => {
    const { client } = await mock({ behavior: { toolCalls: calls } });
    const whole = await client.chat.completions.create(ask);
    expect(whole.choices[0]?.finish_reason).toBe('tool_calls');
    expect(whole.choices[0]?.message.tool_calls?.map((c) => [c.id, c.type === 'function' && c.function])).toEqual([
      ['call_mock1', { name: 'read_file', arguments: '{"path":"a.ts"}' }],
      ['call_mock2', { name: 'read_file', arguments: '{"path":"b.ts","lines":[1,20]}' }],
    ]);
    const final = await client.chat.completions.stream({ ...ask, stream: true }).finalChatCompletion();
    expect(
      final.choices[0]?.message.tool_calls?.map((c) => c.type === 'function' && JSON.parse(c.function.arguments)),
    ).toEqual(calls.map((c) => c.arguments));
  });

  it('sends reasoning as reasoning_content by default, or as OpenRouter’s `reasoning`', async () => {
    const { mock: m, client } = await mock({ behavior: { reasoning: ['Let me', ' think'] } });
    const deltas: Record<string, unknown>[] = [];
    for await (const c of await client.chat.completions.create({ ...ask, stream: true }))
      if (c.choices[0]) deltas.push(c.choices[0].delta as Record<string, unknown>);
    expect(deltas.map((d) => d.reasoning_content).filter(Boolean)).toEqual(['Let me', ' think']);
    m.setBehavior({ reasoning: ['Let me', ' think'], reasoningField: 'reasoning' });
    const whole = await client.chat.completions.create(ask);
    expect(whole.choices[0]?.message).toMatchObject({ content: 'Hello from mock', reasoning: 'Let me think' });
  });

  it('reports cache and reasoning token details as given', async () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 30,
      prompt_tokens_details: { cached_tokens: 80 },
      completion_tokens_details: { reasoning_tokens: 20 },
    };
    const { client } = await mock({ behavior: { usage } });
    expect((await client.chat.completions.create(ask)).usage).toEqual({ ...usage, total_tokens: 130 });
  });
});
