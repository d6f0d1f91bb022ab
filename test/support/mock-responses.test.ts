// The Responses mock, driven by the official openai client (and read back by Switchboard's Responses decoder).
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { foldChunks, type HubChunk } from '../../main/proxy/formats/hub/index.ts';
import { responsesFormat } from '../../main/proxy/formats/responses/index.ts';
import { withMock } from './lifecycle.ts';
import { startMockResponses, type MockResponsesProvider } from './mock-responses.ts';

const mock = withMock(startMockResponses, (m) => new OpenAI({ baseURL: m.baseUrl, apiKey: 'x', maxRetries: 0 }));

const weather = { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } };

describe('mock responses: non-stream', () => {
  it('answers a text response that names the provider and records the request', async () => {
    const { mock: m, client } = await mock({ name: 'alpha' });
    const reply = await client.responses.create({ model: 'gpt-4.1-mini', input: 'hi' });
    expect(reply.object).toBe('response');
    expect(reply.id).toMatch(/^resp_/);
    expect(reply.status).toBe('completed');
    expect(reply.model).toBe('gpt-4.1-mini');
    expect(reply.output_text).toBe('Hello from alpha');
    expect(reply.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(reply.usage).toMatchObject({ input_tokens: 10, output_tokens: 3, total_tokens: 13 });
    expect(m.chatCount()).toBe(1);
    expect(m.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/responses',
      body: { model: 'gpt-4.1-mini', input: 'hi' },
    });
    expect(m.requests[0]?.headers.authorization).toBe('Bearer x');
  });

  it('answers a function call item', async () => {
    const { client } = await mock({ behavior: { toolCall: weather } });
    const reply = await client.responses.create({ model: 'm', input: 'Weather in Paris?' });
    expect(reply.output_text).toBe('');
    expect(reply.output).toHaveLength(1);
    const call = reply.output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(call?.type === 'function_call' && call.call_id).toMatch(/^call_/);
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual(weather.arguments);
  });

  it('follows setBehavior and usage given in chat names', async () => {
    const { mock: m, client } = await mock({
      behavior: { tokens: ['one', ' two'], usage: { prompt_tokens: 7, completion_tokens: 2 } },
    });
    const reply = await client.responses.create({ model: 'm', input: 'hi' });
    expect(reply.output_text).toBe('one two');
    expect(reply.usage?.total_tokens).toBe(9);
    m.setBehavior({ tokens: ['changed'] });
    expect((await client.responses.create({ model: 'm', input: 'hi' })).output_text).toBe('changed');
  });
});

describe('mock responses: stream', () => {
  it('streams the OpenAI event sequence that client.responses.stream() reads', async () => {
    const { client } = await mock({ name: 'alpha' });
    const stream = client.responses.stream({ model: 'm', input: 'hi' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas).toEqual(['Hello', ' from', ' alpha']);
    expect(final.output_text).toBe('Hello from alpha');
    expect(final.status).toBe('completed');
  });

  it('create({stream: true}) yields every event with increasing sequence numbers', async () => {
    const { client } = await mock({ behavior: { tokens: ['a', 'b'] } });
    const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  });

  it('streams a function call with its arguments split across several deltas', async () => {
    const { client } = await mock({ behavior: { toolCall: weather } });
    const stream = client.responses.stream({ model: 'm', input: 'Weather?' });
    const deltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(deltas.join(''))).toEqual(weather.arguments);
    const call = final.output[0];
    expect(call?.type).toBe('function_call');
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual(weather.arguments);
  });

  it('breaks the connection after failAfterChunks events', async () => {
    const { client } = await mock({ behavior: { failAfterChunks: 5 } });
    const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of stream) seen.push(e.type);
      })(),
    ).rejects.toThrow();
    expect(seen).toHaveLength(5);
  });
});

describe('mock responses: failures and models', () => {
  it('answers the status with an OpenAI error body for failTimes requests, then succeeds', async () => {
    const { mock: m, client } = await mock({ behavior: { status: 429, failTimes: 1 } });
    const err = await client.responses.create({ model: 'm', input: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('rate_limit_exceeded');
    expect((await client.responses.create({ model: 'm', input: 'hi' })).output_text).toBe('Hello from mock');
    expect(m.chatCount()).toBe(2);
  });

  it('lists models and answers unknown paths with 404', async () => {
    const { mock: m, client } = await mock({ name: 'alpha', behavior: { models: ['m1'] } });
    expect((await client.models.list()).data.map((x) => [x.id, x.owned_by])).toEqual([['m1', 'alpha']]);
    const res = await fetch(`${m.baseUrl}/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});

describe('mock responses: read by the Responses provider side', () => {
  async function decode(m: MockResponsesProvider): Promise<HubChunk[]> {
    const res = await fetch(`${m.baseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        responsesFormat.requestFromHub({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      ),
    });
    const dec = responsesFormat.streamDecoder('m');
    const chunks: HubChunk[] = [];
    const decoder = new TextDecoder();
    for await (const bytes of res.body!) chunks.push(...dec.push(decoder.decode(bytes, { stream: true })));
    chunks.push(...dec.end());
    return chunks;
  }

  it('decodes the mock text stream into hub chunks', async () => {
    const { mock: m } = await mock({ name: 'alpha' });
    const folded = foldChunks(await decode(m));
    expect(folded.choices[0]).toMatchObject({ message: { content: 'Hello from alpha' }, finish_reason: 'stop' });
    expect(folded.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
  });

  it('decodes the mock tool call stream without losing arguments', async () => {
    const { mock: m } = await mock({ behavior: { toolCall: weather } });
    const chunks = await decode(m);
    const argDeltas = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments);
    expect(argDeltas.length).toBeGreaterThanOrEqual(2);
    const folded = foldChunks(chunks);
    expect(folded.choices[0]?.finish_reason).toBe('tool_calls');
    const call = folded.choices[0]?.message.tool_calls?.[0];
    expect(call?.function.name).toBe('get_weather');
    expect(JSON.parse(call!.function.arguments)).toEqual(weather.arguments);
  });

  it('reads the mock non-stream body as a hub response', async () => {
    const { mock: m, client } = await mock({ behavior: { toolCall: weather } });
    const raw = await client.responses.create({ model: 'm', input: 'x' });
    const hub = responsesFormat.responseToHub(JSON.parse(JSON.stringify(raw)), 'm');
    expect(hub.choices[0]?.finish_reason).toBe('tool_calls');
    expect(JSON.parse(hub.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual(weather.arguments);
    expect(m.chatCount()).toBe(1);
  });
});
