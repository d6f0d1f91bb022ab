// The assembled format: error bodies both ways, and the official ollama client reading what the format writes.
import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseToChunks } from '../conformance.case.ts';
import { serveFormat, type TestServer, toolCall, upstreamError, withDelta } from '../fixtures.test-helper.ts';
import type { HubChunk, HubRequest } from '../hub/index.ts';
import { hubText } from './fixtures.test-helper.ts';
import { ollamaFormat } from './index.ts';

describe('ollama error bodies', () => {
  it('errorBody is {"error": "<text>"} with the action appended; errorMessage reads strings, objects, raw text', () => {
    expect(
      ollamaFormat.errorBody({
        status: 404,
        code: 'no_route',
        type: 'invalid_request_error',
        message: 'No route for "x".',
        action: 'Add a rule.',
      }),
    ).toEqual({ error: 'No route for "x". Add a rule.' });
    expect(ollamaFormat.errorMessage({ error: 'model "x" not found, try pulling it first' })).toBe(
      'model "x" not found, try pulling it first',
    );
    expect(ollamaFormat.errorMessage({ error: { message: 'from a proxy' } })).toBe('from a proxy');
    expect(ollamaFormat.errorMessage('404 page not found\n')).toBe('404 page not found');
    expect(ollamaFormat.errorMessage({ nothing: true })).toBeUndefined();
  });
});

describe('the official ollama client reads what the format writes', () => {
  let server: TestServer;
  let client: Ollama;
  const toolReply = hubText({
    message: {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [toolCall('call_a', 'get_weather', '{"city":"Paris","units":{"temp":"C"}}')],
    },
    finish_reason: 'tool_calls',
  });

  /** The chunks with each tool call's arguments split into 3-character deltas, as providers stream them. */
  const argumentsInPieces = (chunks: HubChunk[]): HubChunk[] =>
    chunks.flatMap((c) => {
      const tc = c.choices[0]?.delta.tool_calls?.[0];
      if (!tc) return [c];
      const args = tc.function!.arguments!;
      const pieces: HubChunk[] = [];
      for (let i = 0; i < args.length; i += 3) {
        const piece = {
          index: 0,
          ...(i === 0 ? { id: tc.id, type: 'function' as const } : {}),
          function: { ...(i === 0 ? { name: tc.function!.name } : {}), arguments: args.slice(i, i + 3) },
        };
        pieces.push(withDelta(c, { tool_calls: [piece] }));
      }
      return pieces;
    });

  beforeAll(async () => {
    server = await serveFormat(ollamaFormat, (hub) => {
      const said = contentOf(hub);
      if (said === 'fail') {
        return {
          error: { status: 404, code: 'no_route', type: 'invalid_request_error', message: 'No route for "m".' },
        };
      }
      if (!hub.stream) return { reply: toolReply };
      const chunks = argumentsInPieces(responseToChunks(toolReply));
      return said === 'break' ? { chunks, error: upstreamError('Provider "x" failed mid-stream.') } : { chunks };
    });
    client = new Ollama({ host: server.root });
  });
  afterAll(() => server.close());

  const contentOf = (hub: HubRequest): string => String(hub.messages[0]?.content ?? '');

  it('streamed: text, then the tool call whole with object arguments, then done', async () => {
    const parts = [];
    for await (const p of await client.chat({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    }))
      parts.push(p);
    expect(parts.map((p) => p.message.content).join('')).toBe('Checking.');
    expect(parts.flatMap((p) => p.message.tool_calls ?? [])).toEqual([
      { function: { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } } },
    ]);
    expect(parts.at(-1)).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 26, eval_count: 298 });
  });

  it('non-stream: the reply with its tool call', async () => {
    const reply = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(reply.message.tool_calls).toEqual([
      { function: { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } } },
    ]);
    expect(reply.model).toBe('llama3.2');
  });

  it('errors: the HTTP body shows as text (not "[object Object]"), and the error line throws its text', async () => {
    const err = (await client
      .chat({ model: 'm', messages: [{ role: 'user', content: 'fail' }], stream: false })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('No route for "m".');
    const streamed = (await (async () => {
      for await (const _ of await client.chat({
        model: 'm',
        messages: [{ role: 'user', content: 'break' }],
        stream: true,
      }))
        void _;
    })().catch((e: unknown) => e)) as Error;
    expect(streamed.message).toBe('Provider "x" failed mid-stream.');
  });
});
