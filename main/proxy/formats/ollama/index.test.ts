// The assembled format: error bodies both ways, and the official ollama client reading what the format writes.
import http from 'node:http';
import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseToChunks } from '../conformance.case.ts';
import type { HubRequest } from '../hub/index.ts';
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
  let server: http.Server;
  let client: Ollama;
  const toolReply = hubText({
    message: {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        {
          id: 'call_a',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris","units":{"temp":"C"}}' },
        },
      ],
    },
    finish_reason: 'tool_calls',
  });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const hub = ollamaFormat.requestToHub(JSON.parse(raw), {});
        const said = contentOf(hub);
        if (said === 'fail') {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify(
              ollamaFormat.errorBody({
                status: 404,
                code: 'no_route',
                type: 'invalid_request_error',
                message: 'No route for "m".',
              }),
            ),
          );
          return;
        }
        if (!hub.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(ollamaFormat.responseFromHub(toolReply, { model: hub.model })));
          return;
        }
        const enc = ollamaFormat.streamEncoder({ model: hub.model });
        res.writeHead(200, { 'content-type': enc.contentType });
        // Arguments split into 3-character deltas, as providers stream them.
        for (const c of responseToChunks(toolReply)) {
          const tc = c.choices[0]?.delta.tool_calls?.[0];
          if (!tc) {
            res.write(enc.chunk(c));
            continue;
          }
          const args = tc.function!.arguments!;
          for (let i = 0; i < args.length; i += 3) {
            const piece = {
              index: 0,
              ...(i === 0 ? { id: tc.id, type: 'function' as const } : {}),
              function: { ...(i === 0 ? { name: tc.function!.name } : {}), arguments: args.slice(i, i + 3) },
            };
            res.write(
              enc.chunk({ ...c, choices: [{ index: 0, delta: { tool_calls: [piece] }, finish_reason: null }] }),
            );
          }
        }
        if (said === 'break')
          res.end(
            enc.error({
              status: 502,
              code: 'upstream_error',
              type: 'upstream_error',
              message: 'Provider "x" failed mid-stream.',
            }),
          );
        else res.end(enc.end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new Ollama({ host: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

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
