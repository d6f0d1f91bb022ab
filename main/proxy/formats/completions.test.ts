// Golden tests for the legacy /v1/completions front door, and the official openai client reading its answers.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionsFormat, completionsRequestFromHub, completionsResponseToHub } from './completions.ts';
import { CompletionsStreamDecoder } from './completions.ts';
import { responseToChunks } from './conformance.case.ts';
import {
  badRequest,
  chunkMaker,
  HUB_HEAD,
  hubReply,
  serveFormat,
  type TestServer,
  upstreamError,
  usageChunk,
} from './fixtures.test-helper.ts';
import { foldChunks, type HubRequest } from './hub/index.ts';

const ctx = { model: 'gpt-3.5-turbo-instruct' };
const usage = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };
const chunk = chunkMaker(HUB_HEAD);

const refusal = (body: unknown) => badRequest(() => completionsFormat.requestToHub(body, {}));

/** The `data:` payloads of an SSE text, with generated ids replaced. */
function dataLines(text: string): unknown[] {
  const parts = text.split('\n\n');
  expect(parts.pop()).toBe('');
  return parts.map((p) => {
    expect(p.startsWith('data: ')).toBe(true);
    const data = p.slice('data: '.length);
    return data === '[DONE]' ? data : JSON.parse(data.replace(/"cmpl-[a-z0-9]+"/, '"cmpl-X"'));
  });
}

describe('completions: request → hub', () => {
  it('converts a request exactly', () => {
    expect(
      completionsFormat.requestToHub(
        {
          model: 'gpt-3.5-turbo-instruct',
          prompt: 'Say this is a test',
          max_tokens: 7,
          temperature: 0,
          top_p: 1,
          n: 1,
          stream: true,
          stream_options: { include_usage: true },
          stop: '\n',
          logprobs: null,
          echo: false,
          suffix: null,
          seed: 3,
          presence_penalty: 0.1,
          frequency_penalty: 0.2,
          user: 'u-1',
          best_of: 1,
        },
        {},
      ),
    ).toEqual({
      model: 'gpt-3.5-turbo-instruct',
      messages: [{ role: 'user', content: 'Say this is a test' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 7,
      temperature: 0,
      top_p: 1,
      stop: '\n',
      n: 1,
      seed: 3,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      user: 'u-1',
    } satisfies HubRequest);
  });

  it('accepts a prompt array holding one prompt', () => {
    expect(completionsFormat.requestToHub({ model: 'm', prompt: ['Once upon'] }, {}).messages).toEqual([
      { role: 'user', content: 'Once upon' },
    ]);
  });

  it('refuses more than one prompt, saying to send one request per prompt', () => {
    const e = refusal({ model: 'm', prompt: ['a', 'b'] });
    expect(e.message).toContain('"prompt" has 2 prompts');
    expect(e.action).toContain('one request per prompt');
  });

  it.each([
    [{ model: 'm', prompt: [1, 2, 3] }, 'token-id'],
    [{ model: 'm', prompt: 'x', suffix: '}' }, '"suffix"'],
    [{ model: 'm', prompt: 'x', echo: true }, '"echo"'],
    [{ model: 'm', prompt: 'x', logprobs: 2 }, '"logprobs"'],
    [{ model: 'm' }, '"prompt"'],
    [[], 'JSON object'],
  ])('refuses %j', (body, fragment) => {
    expect(refusal(body).message).toContain(fragment);
  });

  it('asks for a model when there is none', () => {
    expect(() => completionsFormat.requestToHub({ prompt: 'x' }, {})).toThrow(
      expect.objectContaining({ code: 'model_required' }),
    );
  });
});

describe('completions: hub → response and stream', () => {
  it('writes a response exactly', () => {
    const res = hubReply(HUB_HEAD, { content: '\n\nThis is indeed a test' }, 'length', usage);
    const wire = completionsFormat.responseFromHub(res, ctx) as Record<string, unknown>;
    expect(wire.id).toMatch(/^cmpl-/);
    expect({ ...wire, id: 'cmpl-X' }).toEqual({
      id: 'cmpl-X',
      object: 'text_completion',
      created: 1700000000,
      model: 'gpt-3.5-turbo-instruct',
      choices: [{ text: '\n\nThis is indeed a test', index: 0, logprobs: null, finish_reason: 'length' }],
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
    });
  });

  it('writes the exact stream: text chunks, the finish with usage, then [DONE]', () => {
    const enc = completionsFormat.streamEncoder(ctx);
    const chunks = [
      ...responseToChunks(hubReply(HUB_HEAD, { content: 'Hello' }, 'stop')).slice(0, -1),
      chunk({ content: ' world' }),
      chunk({}, 'stop'),
      usageChunk(HUB_HEAD, usage),
    ];
    const text = chunks.map((c) => enc.chunk(c)).join('') + enc.end();
    expect(enc.contentType).toBe('text/event-stream');
    const head = { id: 'cmpl-X', object: 'text_completion', created: 1700000000, model: 'gpt-3.5-turbo-instruct' };
    expect(dataLines(text)).toEqual([
      { ...head, choices: [{ text: 'Hello', index: 0, logprobs: null, finish_reason: null }] },
      { ...head, choices: [{ text: ' world', index: 0, logprobs: null, finish_reason: null }] },
      { ...head, choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }], usage },
      '[DONE]',
    ]);
  });

  it('sends a held finish at the end when no usage comes, and reads tool_calls as stop', () => {
    const enc = completionsFormat.streamEncoder(ctx);
    const text = enc.chunk(chunk({ content: 'x' }, 'tool_calls')) + enc.end();
    expect(dataLines(text).map((d) => (typeof d === 'string' ? d : (d as { choices: unknown[] }).choices[0]))).toEqual([
      { text: 'x', index: 0, logprobs: null, finish_reason: null },
      { text: '', index: 0, logprobs: null, finish_reason: 'stop' },
      '[DONE]',
    ]);
  });

  it('ends a failed stream with an OpenAI error line and no [DONE]', () => {
    const enc = completionsFormat.streamEncoder(ctx);
    const text = enc.chunk(chunk({ content: 'x' })) + enc.error(upstreamError('boom'));
    expect(dataLines(text).at(-1)).toEqual({
      error: { message: 'boom', type: 'upstream_error', param: null, code: 'upstream_error' },
    });
    expect(enc.end()).toBe('');
  });

  it('writes the OpenAI error body', () => {
    expect(
      completionsFormat.errorBody({
        status: 400,
        code: 'invalid_request',
        type: 'invalid_request_error',
        message: 'm',
        action: 'a',
      }),
    ).toEqual({
      error: { message: 'm', type: 'invalid_request_error', param: null, code: 'invalid_request', action: 'a' },
    });
  });
});

describe('completions: the official openai client reads what Switchboard writes', () => {
  let server: TestServer;
  let client: OpenAI;
  let failMidStream = false;
  const answer = hubReply(HUB_HEAD, { content: 'This is a test.' }, 'stop', usage);

  beforeAll(async () => {
    server = await serveFormat(completionsFormat, (hub: HubRequest) => {
      if (!hub.stream) return { reply: answer };
      const chunks = responseToChunks(answer);
      return failMidStream
        ? { chunks: chunks.slice(0, 2), error: upstreamError('Provider failed mid-stream.') }
        : { chunks };
    });
    client = new OpenAI({ baseURL: `${server.root}/v1`, apiKey: 'x', maxRetries: 0 });
  });
  afterAll(() => server.close());

  it('non-stream', async () => {
    const reply = await client.completions.create({
      model: 'gpt-3.5-turbo-instruct',
      prompt: 'Say this is a test',
      max_tokens: 7,
    });
    expect(reply.object).toBe('text_completion');
    expect(reply.model).toBe('gpt-3.5-turbo-instruct');
    expect(reply.choices[0]).toEqual({ text: 'This is a test.', index: 0, logprobs: null, finish_reason: 'stop' });
    expect(reply.usage).toEqual(usage);
  });

  it('stream', async () => {
    failMidStream = false;
    const stream = await client.completions.create({ model: 'm', prompt: 'Say this is a test', stream: true });
    const got: OpenAI.Completion[] = [];
    for await (const c of stream) got.push(c);
    expect(got.map((c) => c.choices[0]?.text).join('')).toBe('This is a test.');
    expect(got.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(new Set(got.map((c) => c.id)).size).toBe(1);
  });

  it('a mid-stream failure makes the client throw', async () => {
    failMidStream = true;
    const stream = await client.completions.create({ model: 'm', prompt: 'x', stream: true });
    const err = await (async () => {
      for await (const _ of stream);
    })().catch((e: unknown) => e);
    failMidStream = false;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain('Provider failed mid-stream.');
  });

  it('a refused request comes back as a 400 the client classifies', async () => {
    const err = await client.completions.create({ model: 'm', prompt: ['a', 'b'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('one prompt per request');
  });
});

describe('provider side: /v1/completions for raw and fill-in-the-middle prompts', () => {
  const hub = { model: 'qwen-coder', messages: [], max_tokens: 64, temperature: 0.2, top_k: 40, stop: ['\n\n'] };

  it('writes prompt, suffix and the sampling fields (no top_k), asking for usage on a stream', () => {
    expect(completionsRequestFromHub({ ...hub, stream: true }, 'def f(', ')\n')).toEqual({
      model: 'qwen-coder',
      prompt: 'def f(',
      suffix: ')\n',
      max_tokens: 64,
      temperature: 0.2,
      stop: ['\n\n'],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(completionsRequestFromHub(hub, 'x')).not.toHaveProperty('suffix');
  });

  it('reads a reply: text, finish and usage', () => {
    const res = completionsResponseToHub(
      {
        id: 'cmpl-1',
        object: 'text_completion',
        created: 1,
        model: 'qwen-coder',
        choices: [{ text: 'x):', index: 0, logprobs: null, finish_reason: 'length' }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      },
      'm',
    );
    expect(res.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'x):' },
      finish_reason: 'length',
    });
    expect(res.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
    expect(() => completionsResponseToHub({ error: { message: 'no such model' } }, 'm')).toThrow('no such model');
  });

  it('reads a stream, cut anywhere: text deltas, the finish, the usage', () => {
    const events = [
      { id: 'cmpl-1', created: 1, model: 'q', choices: [{ text: 'x', index: 0, finish_reason: null }] },
      { id: 'cmpl-1', created: 1, model: 'q', choices: [{ text: '):', index: 0, finish_reason: 'stop' }] },
      {
        id: 'cmpl-1',
        created: 1,
        model: 'q',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      },
    ];
    const text = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
    const dec = new CompletionsStreamDecoder('m');
    const chunks = [...dec.push(text.slice(0, 37)), ...dec.push(text.slice(37)), ...dec.end()];
    const folded = foldChunks(chunks);
    expect(folded.choices[0]!.message.content).toBe('x):');
    expect(folded.choices[0]!.finish_reason).toBe('stop');
    expect(folded.usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });
});
