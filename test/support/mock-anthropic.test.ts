// The Anthropic mock, driven by the official @anthropic-ai/sdk, so tests that use it test against real Anthropic habits.
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicFormat } from '../../main/proxy/formats/anthropic/index.ts';
import { foldChunks } from '../../main/proxy/formats/hub/index.ts';
import { withMock } from './lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from './mock-anthropic.ts';

// The SDK appends /v1/messages to its baseURL, so it gets the root, not the config's base_url.
const mock = withMock(startMockAnthropic, (m) => new Anthropic({ baseURL: m.rootUrl, apiKey: 'x', maxRetries: 0 }));

const ask = { model: 'claude-test-1', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Hi' }] };
const weather = { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } };

describe('mock anthropic: messages', () => {
  it('answers a text message as Anthropic does and records the key', async () => {
    const { mock: m, client } = await mock({ name: 'alpha' });
    expect(m.baseUrl).toBe(`http://127.0.0.1:${m.port}/v1`);
    const msg = await client.messages.create(ask);
    expect(msg).toEqual({
      id: 'msg_mock1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test-1',
      content: [{ type: 'text', text: 'Hello from alpha' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 3 },
    });
    expect(m.chatCount()).toBe(1);
    // The official SDK 1.x sends the key as Authorization: Bearer, not x-api-key.
    expect(m.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/messages',
      apiKey: 'x',
      apiKeyHeader: 'authorization',
      body: ask,
    });
    expect(m.requests[0]!.headers['anthropic-version']).toBeTruthy();
  });

  it('answers a tool call with parsed input', async () => {
    const { client } = await mock({ behavior: { toolCall: weather, usage: { input_tokens: 50, output_tokens: 20 } } });
    const msg = await client.messages.create(ask);
    expect(msg.content).toEqual([
      { type: 'tool_use', id: 'toolu_mock1', name: 'get_weather', input: weather.arguments },
    ]);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.usage).toEqual({ input_tokens: 50, output_tokens: 20 });
  });

  it('follows setBehavior for later requests', async () => {
    const { mock: m, client } = await mock({ name: 'beta' });
    m.setBehavior({ tokens: ['changed'] });
    expect((await client.messages.create(ask)).content).toEqual([{ type: 'text', text: 'changed' }]);
  });
});

describe('mock anthropic: streams', () => {
  it('streams text event by event; the SDK builds the final message', async () => {
    const { client } = await mock({ name: 'alpha', behavior: { chunkDelayMs: 5 } });
    const stream = client.messages.stream(ask);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const msg = await stream.finalMessage();
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello from alpha' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage).toMatchObject({ input_tokens: 10, output_tokens: 3 });
  });

  it('streams a tool call with the arguments across several input_json_delta events', async () => {
    const { client } = await mock({ behavior: { toolCall: weather } });
    const stream = client.messages.stream(ask);
    const partials: string[] = [];
    stream.on('inputJson', (partial) => partials.push(partial));
    const msg = await stream.finalMessage();
    expect(partials.length).toBeGreaterThanOrEqual(3);
    expect(partials.join('')).toBe(JSON.stringify(weather.arguments));
    expect(msg.content).toEqual([
      { type: 'tool_use', id: 'toolu_mock1', name: 'get_weather', input: weather.arguments },
    ]);
    expect(msg.stop_reason).toBe('tool_use');
  });

  it('writes the SSE bytes as Anthropic does: event lines, ping after the first block start, no content-length', async () => {
    const { mock: m } = await mock({ behavior: { tokens: ['a', 'b'] } });
    const res = await fetch(`${m.baseUrl}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('content-length')).toBeNull();
    const events = (await res.text()).split('\n\n');
    expect(events.pop()).toBe('');
    expect(events.map((e) => e.split('\n')[0])).toEqual([
      'event: message_start',
      'event: content_block_start',
      'event: ping',
      'event: content_block_delta',
      'event: content_block_delta',
      'event: content_block_stop',
      'event: message_delta',
      'event: message_stop',
    ]);
    expect(events.map((e) => JSON.parse(e.split('\ndata: ')[1]!))).toEqual([
      {
        type: 'message_start',
        message: {
          id: 'msg_mock1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test-1',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'b' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ]);
  });

  it('breaks the connection after failAfterChunks events', async () => {
    const { client } = await mock({ behavior: { failAfterChunks: 4 } });
    const got: string[] = [];
    const stream = client.messages.stream(ask);
    stream.on('text', (t) => got.push(t));
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(got).toEqual(['Hello']);
  });

  it('sends an error event after errorEventAfterChunks events, which the SDK raises', async () => {
    const { client } = await mock({ behavior: { errorEventAfterChunks: 4 } });
    const err = await client.messages
      .stream(ask)
      .finalMessage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
  });

  it("says errorMessage's text (made from the request's headers) in the error event", async () => {
    const { client } = await mock({
      behavior: {
        errorEventAfterChunks: 4,
        errorMessage: (h) => `Overloaded for ${String(h['x-api-key'] ?? h.authorization)}`,
      },
    });
    const err = await client.messages
      .stream(ask)
      .finalMessage()
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof Anthropic.APIError>).message).toMatch(/Overloaded for (Bearer )?x\b/);
  });
});

describe('mock anthropic: failures and checks', () => {
  it('answers the status with an Anthropic error body for the first failTimes requests, then succeeds', async () => {
    const { mock: m, client } = await mock({ behavior: { status: 529, failTimes: 2 } });
    for (let i = 0; i < 2; i++) {
      const err = await client.messages.create(ask).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.InternalServerError);
      expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
      expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: 'overloaded_error' },
      });
    }
    expect((await client.messages.create(ask)).content).toEqual([{ type: 'text', text: 'Hello from mock' }]);
    expect(m.chatCount()).toBe(3);
  });

  it.each([
    [429, Anthropic.RateLimitError, 'rate_limit_error'],
    [401, Anthropic.AuthenticationError, 'authentication_error'],
    [404, Anthropic.NotFoundError, 'not_found_error'],
    [500, Anthropic.InternalServerError, 'api_error'],
  ] as const)('answers %i as the SDK expects, for the models list too', async (status, errorClass, type) => {
    const { client } = await mock({ behavior: { status } });
    const err = await client.messages.create(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errorClass);
    expect((err as InstanceType<typeof Anthropic.APIError>).type).toBe(type);
    await expect(client.models.list()).rejects.toBeInstanceOf(errorClass);
  });

  it('requires a key (x-api-key or Authorization: Bearer) and anthropic-version, as Anthropic does', async () => {
    const { mock: m } = await mock();
    const post = (headers: Record<string, string>) =>
      fetch(`${m.baseUrl}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(ask),
      });
    const noKey = await post({ 'anthropic-version': '2023-06-01' });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: 'x-api-key header is required' },
    });
    const noVersion = await post({ 'x-api-key': 'k' });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
    expect((await post({ 'x-api-key': 'k1', 'anthropic-version': '2023-06-01' })).status).toBe(200);
    expect((await post({ authorization: 'Bearer k2', 'anthropic-version': '2023-06-01' })).status).toBe(200);
    expect(m.requests.map((r) => [r.apiKey, r.apiKeyHeader])).toEqual([
      [undefined, undefined],
      ['k', 'x-api-key'],
      ['k1', 'x-api-key'],
      ['k2', 'authorization'],
    ]);
  });

  it('refuses a body without max_tokens, and unknown paths', async () => {
    const { mock: m } = await mock();
    const headers = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
    const { max_tokens: _, ...noMax } = ask;
    const res = await fetch(`${m.baseUrl}/messages`, { method: 'POST', headers, body: JSON.stringify(noMax) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    const unknown = await fetch(`${m.baseUrl}/complete`, { method: 'POST', headers, body: '{}' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });
});

describe('mock anthropic: models', () => {
  it("lists the configured models in Anthropic's shape", async () => {
    const { mock: m, client } = await mock({ name: 'alpha', behavior: { models: ['claude-a', 'claude-b'] } });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(`${model.type}:${model.id}`);
    expect(ids).toEqual(['model:claude-a', 'model:claude-b']);
    expect(m.requests[0]).toMatchObject({ method: 'GET', apiKey: 'x' });
    expect(m.requests[0]!.url.startsWith('/v1/models')).toBe(true);
    expect(m.chatCount()).toBe(0);
  });
});

describe('mock anthropic: read by the Anthropic provider format', () => {
  const post = (m: MockAnthropic, body: unknown) =>
    fetch(`${m.baseUrl}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });

  it('accepts a converted hub request and its reply converts back', async () => {
    const { mock: m } = await mock({ name: 'alpha' });
    const res = await post(
      m,
      anthropicFormat.requestFromHub({ model: 'claude-test-1', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    const hub = anthropicFormat.responseToHub(await res.json(), 'claude-test-1');
    expect(hub.choices[0]).toMatchObject({ message: { content: 'Hello from alpha' }, finish_reason: 'stop' });
    expect(hub.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
  });

  it('decodes a streamed tool call without losing arguments, fed as the socket delivers it', async () => {
    const { mock: m } = await mock({ behavior: { toolCall: weather } });
    const res = await post(
      m,
      anthropicFormat.requestFromHub({
        model: 'claude-test-1',
        messages: [{ role: 'user', content: 'Paris?' }],
        stream: true,
      }),
    );
    const dec = anthropicFormat.streamDecoder('claude-test-1');
    const chunks = [];
    const decoder = new TextDecoder();
    for await (const bytes of res.body!) chunks.push(...dec.push(decoder.decode(bytes, { stream: true })));
    chunks.push(...dec.end());
    const hub = foldChunks(chunks);
    expect(hub.choices[0]!.message.tool_calls).toEqual([
      {
        id: 'toolu_mock1',
        type: 'function',
        function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) },
      },
    ]);
    expect(hub.choices[0]!.finish_reason).toBe('tool_calls');
  });
});

describe('mock anthropic: several tool calls, thinking and cache usage', () => {
  const calls = [weather, { name: 'get_time', arguments: { zone: 'Europe/Paris' } }];

  it('answers toolCalls as one tool_use block each, whole and streamed', async () => {
    const { client } = await mock({ behavior: { toolCalls: calls } });
    const msg = await client.messages.create(ask);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.content).toEqual([
      { type: 'tool_use', id: 'toolu_mock1', name: 'get_weather', input: weather.arguments },
      { type: 'tool_use', id: 'toolu_mock1_1', name: 'get_time', input: { zone: 'Europe/Paris' } },
    ]);
    const final = await client.messages.stream(ask).finalMessage();
    expect(final.content.map((b) => (b.type === 'tool_use' ? [b.name, b.input] : b.type))).toEqual([
      ['get_weather', weather.arguments],
      ['get_time', { zone: 'Europe/Paris' }],
    ]);
  });

  it('puts a signed thinking block before the reply, and reports cache reads and writes', async () => {
    const usage = { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 80, cache_creation_input_tokens: 15 };
    const { client } = await mock({ behavior: { reasoning: ['Hmm', ', fine'], usage } });
    const msg = await client.messages.create(ask);
    expect(msg.content).toEqual([
      { type: 'thinking', thinking: 'Hmm, fine', signature: 'sig_mock' },
      { type: 'text', text: 'Hello from mock' },
    ]);
    expect(msg.usage).toEqual(usage);
    const final = await client.messages.stream(ask).finalMessage();
    expect(final.content).toEqual(msg.content);
    expect(final.usage).toMatchObject(usage);
  });
});
