// The official openai client reads what Switchboard writes: non-stream, streams, a mid-stream failure, a refusal.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseToChunks } from '../conformance.case.ts';
import { hubReply, serveFormat, type TestServer, toolCall, upstreamError, withDelta } from '../fixtures.test-helper.ts';
import type { HubChunk } from '../hub/index.ts';
import { base, usage } from './fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

describe('responses client side: the official openai client reads what Switchboard writes', () => {
  let server: TestServer;
  let client: OpenAI;
  let reply: 'text' | 'tool' | 'fail' = 'text';
  const toolRes = hubReply(
    base,
    { content: null, tool_calls: [toolCall('call_w', 'get_weather', '{"city":"Paris","units":"C"}')] },
    'tool_calls',
    usage,
  );
  const textRes = hubReply(base, { content: 'Hello from switchboard' }, 'stop', usage);

  /** Splits every argument and text delta in two, as providers stream them. */
  const splitDeltas = (chunks: HubChunk[]): HubChunk[] =>
    chunks.flatMap((c) => {
      const d = c.choices[0]?.delta;
      const tc = d?.tool_calls?.[0];
      if (tc?.function?.arguments && tc.function.arguments.length > 4) {
        const a = tc.function.arguments;
        return [
          withDelta(c, { tool_calls: [{ ...tc, function: { name: tc.function.name, arguments: a.slice(0, 4) } }] }),
          withDelta(c, { tool_calls: [{ index: tc.index, function: { arguments: a.slice(4) } }] }),
        ];
      }
      if (typeof d?.content === 'string' && d.content.length > 1) {
        return [withDelta(c, { content: d.content.slice(0, 5) }), withDelta(c, { content: d.content.slice(5) })];
      }
      return [c];
    });

  beforeAll(async () => {
    server = await serveFormat(responsesFormat, (hub) => {
      const result = reply === 'tool' ? toolRes : textRes;
      if (!hub.stream) return { reply: result };
      const chunks = splitDeltas(responseToChunks(result));
      return reply === 'fail'
        ? { chunks: chunks.slice(0, 2), error: upstreamError('Provider "p" failed mid-stream.') }
        : { chunks };
    });
    client = new OpenAI({ baseURL: `${server.root}/v1`, apiKey: 'x', maxRetries: 0 });
  });
  afterAll(() => server.close());

  it('non-stream text and function call', async () => {
    reply = 'text';
    const text = await client.responses.create({ model: 'gpt-4.1', input: 'hi' });
    expect(text.output_text).toBe('Hello from switchboard');
    expect(text.usage?.total_tokens).toBe(7);
    reply = 'tool';
    const tool = await client.responses.create({
      model: 'gpt-4.1',
      input: 'weather?',
      tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: false }],
    });
    const call = tool.output[0];
    expect(call?.type === 'function_call' && [call.call_id, call.name, JSON.parse(call.arguments)]).toEqual([
      'call_w',
      'get_weather',
      { city: 'Paris', units: 'C' },
    ]);
  });

  it('stream text through client.responses.stream()', async () => {
    reply = 'text';
    const stream = client.responses.stream({ model: 'gpt-4.1', input: 'hi' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas).toEqual(['Hello', ' from switchboard']);
    expect(final.output_text).toBe('Hello from switchboard');
    expect(final.status).toBe('completed');
  });

  it('stream function call: the arguments arrive in pieces and whole', async () => {
    reply = 'tool';
    const stream = client.responses.stream({ model: 'gpt-4.1', input: 'weather?' });
    const deltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas.length).toBe(2);
    const call = final.output[0];
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ city: 'Paris', units: 'C' });
  });

  it('a mid-stream failure makes the client throw with the message', async () => {
    reply = 'fail';
    const stream = await client.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of stream) seen.push(e.type);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain('Provider "p" failed mid-stream.');
    expect(seen).toContain('response.output_text.delta');
  });

  it('a refused request comes back as a 400 the client classifies', async () => {
    const err = await client.responses
      .create({ model: 'gpt-4.1', input: 'hi', previous_response_id: 'resp_1' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_request');
  });
});
