// The official openai client reads what Switchboard writes: non-stream, streams, a mid-stream failure, a refusal.
import http from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../errors.ts';
import { responseToChunks } from '../conformance.case.ts';
import type { HubChunk, HubRequest, HubResponse } from '../hub/index.ts';
import { base, usage } from './fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

describe('responses client side: the official openai client reads what Switchboard writes', () => {
  let server: http.Server;
  let client: OpenAI;
  let reply: 'text' | 'tool' | 'fail' = 'text';
  const toolRes: HubResponse = {
    ...base,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_w',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris","units":"C"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage,
  };
  const textRes: HubResponse = {
    ...base,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from switchboard' }, finish_reason: 'stop' }],
    usage,
  };

  /** Splits every argument and text delta in two, as providers stream them. */
  const splitDeltas = (chunks: HubChunk[]): HubChunk[] =>
    chunks.flatMap((c) => {
      const d = c.choices[0]?.delta;
      const tc = d?.tool_calls?.[0];
      if (tc?.function?.arguments && tc.function.arguments.length > 4) {
        const a = tc.function.arguments;
        return [
          {
            ...c,
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ ...tc, function: { name: tc.function.name, arguments: a.slice(0, 4) } }] },
                finish_reason: null,
              },
            ],
          },
          {
            ...c,
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index: tc.index, function: { arguments: a.slice(4) } }] },
                finish_reason: null,
              },
            ],
          },
        ];
      }
      if (typeof d?.content === 'string' && d.content.length > 1) {
        return [
          { ...c, choices: [{ index: 0, delta: { content: d.content.slice(0, 5) }, finish_reason: null }] },
          { ...c, choices: [{ index: 0, delta: { content: d.content.slice(5) }, finish_reason: null }] },
        ];
      }
      return [c];
    });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        let hub: HubRequest;
        try {
          hub = responsesFormat.requestToHub(JSON.parse(raw), {});
        } catch (e) {
          const err = e as ApiError;
          res.writeHead(err.status, { 'content-type': 'application/json' });
          return res.end(
            JSON.stringify(
              responsesFormat.errorBody({
                status: err.status,
                code: err.code,
                type: err.type,
                message: err.message,
                action: err.action,
              }),
            ),
          );
        }
        const result = reply === 'tool' ? toolRes : textRes;
        if (!hub.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify(responsesFormat.responseFromHub(result, { model: hub.model })));
        }
        const enc = responsesFormat.streamEncoder({ model: hub.model });
        res.writeHead(200, { 'content-type': enc.contentType });
        const chunks = splitDeltas(responseToChunks(result));
        if (reply === 'fail') {
          res.write(enc.chunk(chunks[0]!) + enc.chunk(chunks[1]!));
          return res.end(
            enc.error({
              status: 502,
              code: 'upstream_error',
              type: 'upstream_error',
              message: 'Provider "p" failed mid-stream.',
            }),
          );
        }
        for (const c of chunks) res.write(enc.chunk(c));
        res.end(enc.end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
      apiKey: 'x',
      maxRetries: 0,
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

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
