// Golden tests for Ollama's native format: exact wire JSON as Ollama's API reference shows it, both directions,
// streams cut anywhere, tool calls without ids, error bodies, /api/generate, and the official client reading us.
import http from 'node:http';
import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.ts';
import { foldChunks, type HubChunk, type HubRequest, type HubResponse, UpstreamStreamError } from './hub/index.ts';
import { responseToChunks } from './conformance.case.ts';
import { generateResponseFromHub, generateStreamEncoder, generateToHub, ollamaFormat } from './ollama.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CALL_ID = /^call_/;
const ctx = { model: 'llama3.2' };
const timingsShape = {
  total_duration: expect.any(Number),
  load_duration: 0,
  prompt_eval_duration: expect.any(Number),
  eval_duration: expect.any(Number),
};

function toHubError(body: unknown): ApiError {
  try {
    ollamaFormat.requestToHub(body, {});
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

const lines = (text: string): Record<string, unknown>[] => {
  expect(text.endsWith('\n')).toBe(true);
  return text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
};

const hubText = (over: Partial<HubResponse['choices'][0]> = {}, usage = { prompt_tokens: 26, completion_tokens: 298, total_tokens: 324 }): HubResponse => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model: 'upstream-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How are you today?' }, finish_reason: 'stop', ...over }],
  usage,
});

// ---------------------------------------------------------------------------------------------------------------
describe('ollama client side: /api/chat request → hub', () => {
  it('reads the reference streaming request, streaming by default and asking for usage', () => {
    const hub = ollamaFormat.requestToHub({ model: 'llama3.2', messages: [{ role: 'user', content: 'why is the sky blue?' }] }, {});
    expect(hub).toEqual({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'why is the sky blue?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('reads every field of a full request; ignores keep_alive, think, num_ctx and top_k', () => {
    const hub = ollamaFormat.requestToHub(
      {
        model: 'llava',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'what is in this image?', images: ['iVBORw0KGgoAAAANSUhEUg', '/9j/4AAQSkZJRg'] },
          { role: 'assistant', content: '', thinking: 'Need the weather.', tool_calls: [{ function: { name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } } }] },
          { role: 'tool', content: '22', tool_name: 'get_current_weather' },
        ],
        stream: false,
        tools: [
          {
            type: 'function',
            function: { name: 'get_current_weather', description: 'Get the current weather for a location', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
          },
        ],
        format: 'json',
        options: { temperature: 0, top_p: 0.9, top_k: 20, num_predict: 100, stop: ['\n', 'user:'], seed: 42, num_ctx: 1024, presence_penalty: 1.5, frequency_penalty: 1 },
        keep_alive: '5m',
        think: true,
      },
      {},
    );
    expect(hub).toEqual({
      model: 'llava',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is in this image?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg' } },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Need the weather.',
          tool_calls: [{ id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_current_weather', arguments: '{"format":"celsius","location":"Paris, FR"}' } }],
        },
        { role: 'tool', tool_call_id: expect.stringMatching(CALL_ID), content: '22' },
      ],
      stream: false,
      tools: [
        {
          type: 'function',
          function: { name: 'get_current_weather', description: 'Get the current weather for a location', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
        },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
      top_p: 0.9,
      max_tokens: 100,
      stop: ['\n', 'user:'],
      seed: 42,
      presence_penalty: 1.5,
      frequency_penalty: 1,
    });
    const assistant = hub.messages[2] as { tool_calls: { id: string }[] };
    expect((hub.messages[3] as { tool_call_id: string }).tool_call_id).toBe(assistant.tool_calls[0]!.id);
  });

  it('maps a JSON schema format to json_schema and leaves num_predict -1 (no limit) out', () => {
    const schema = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] };
    const hub = ollamaFormat.requestToHub({ model: 'm', messages: [], format: schema, options: { num_predict: -1 }, stream: false }, {});
    expect(hub.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema } });
    expect(hub.max_tokens).toBeUndefined();
    expect(hub.stream_options).toBeUndefined();
  });

  it('keeps an image sent as a data: URL as it is, and a text-less image message as image parts only', () => {
    const hub = ollamaFormat.requestToHub({ model: 'm', messages: [{ role: 'user', images: ['data:image/webp;base64,UklGRg=='] }] }, {});
    expect(hub.messages[0]).toEqual({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } }] });
  });

  describe('links tool results to minted tool call ids', () => {
    const ids = (hub: HubRequest) => hub.messages.map((m) => ('tool_calls' in m ? (m.tool_calls ?? []).map((c) => c.id) : m.role === 'tool' ? m.tool_call_id : null));
    const twoCalls = {
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { name: 'get_weather', arguments: { city: 'Paris' } } },
        { function: { name: 'get_time', arguments: { tz: 'CET' } } },
      ],
    };

    it('by tool_name, whatever the order of the results', () => {
      const hub = ollamaFormat.requestToHub(
        { model: 'm', messages: [{ role: 'user', content: 'q' }, twoCalls, { role: 'tool', tool_name: 'get_time', content: '10:00' }, { role: 'tool', tool_name: 'get_weather', content: 'sunny' }] },
        {},
      );
      const [, calls, time, weather] = ids(hub) as [null, string[], string, string];
      expect(new Set(calls).size).toBe(2);
      expect(time).toBe(calls[1]);
      expect(weather).toBe(calls[0]);
    });

    it('by `name` when an older client sends that instead of tool_name', () => {
      const hub = ollamaFormat.requestToHub({ model: 'm', messages: [twoCalls, { role: 'tool', name: 'get_time', content: '10:00' }] }, {});
      const [calls, time] = ids(hub) as [string[], string];
      expect(time).toBe(calls[1]);
    });

    it('in order when the results carry no tool_name', () => {
      const hub = ollamaFormat.requestToHub({ model: 'm', messages: [twoCalls, { role: 'tool', content: 'sunny' }, { role: 'tool', content: '10:00' }] }, {});
      const [calls, first, second] = ids(hub) as [string[], string, string];
      expect([first, second]).toEqual(calls);
    });

    it('by the ids a newer Ollama client sends, when it sends them', () => {
      const withIds = { ...twoCalls, tool_calls: twoCalls.tool_calls.map((c, i) => ({ id: `call_x${i}`, ...c })) };
      const hub = ollamaFormat.requestToHub({ model: 'm', messages: [withIds, { role: 'tool', tool_call_id: 'call_x1', content: '10:00' }, { role: 'tool', content: 'sunny' }] }, {});
      expect(ids(hub)).toEqual([['call_x0', 'call_x1'], 'call_x1', 'call_x0']);
    });

    it('only to the latest assistant message; a result with no call to answer gets its own id', () => {
      const hub = ollamaFormat.requestToHub(
        { model: 'm', messages: [twoCalls, { role: 'tool', content: 'sunny' }, { role: 'assistant', content: 'Done.' }, { role: 'tool', tool_name: 'get_time', content: 'late' }] },
        {},
      );
      const [calls, first, , orphan] = ids(hub) as [string[], string, null, string];
      expect(first).toBe(calls[0]);
      expect(orphan).toMatch(CALL_ID);
      expect(calls).not.toContain(orphan);
    });
  });

  describe('refuses invalid requests with a 400 naming the field and the fix', () => {
    const cases: [string, unknown, string][] = [
      ['a body that is not an object', 'nonsense', 'The request body must be a JSON object'],
      ['a model that is not a string', { model: 5 }, '"model"'],
      ['messages that are not an array', { model: 'm', messages: {} }, '"messages"'],
      ['an unknown role', { model: 'm', messages: [{ role: 'bot', content: 'x' }] }, '"messages[0].role"'],
      ['content as parts', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }, '"messages[0].content"'],
      ['images that are not strings', { model: 'm', messages: [{ role: 'user', content: 'x', images: [1] }] }, '"messages[0].images"'],
      ['a tool call without a name', { model: 'm', messages: [{ role: 'assistant', content: '', tool_calls: [{ function: {} }] }] }, '"messages[0].tool_calls[0].function.name"'],
      ['tool call arguments that are a number', { model: 'm', messages: [{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: 5 } }] }] }, '"messages[0].tool_calls[0].function.arguments"'],
      ['tools that are not an array', { model: 'm', tools: 'x' }, '"tools"'],
      ['a tool without a name', { model: 'm', tools: [{ type: 'function', function: { name: '' } }] }, '"tools[0].function.name"'],
      ['a stream flag that is not a boolean', { model: 'm', stream: 'yes' }, '"stream"'],
      ['an unknown format', { model: 'm', format: 'xml' }, '"format"'],
      ['a temperature as text', { model: 'm', options: { temperature: '0.5' } }, '"options.temperature"'],
      ['stop that is a number', { model: 'm', options: { stop: 5 } }, '"options.stop"'],
    ];
    for (const [name, body, field] of cases) {
      it(name, () => {
        const e = toHubError(body);
        expect(e).toMatchObject({ code: 'invalid_request', status: 400 });
        expect(e.message).toContain(field);
        expect(e.action).toBeTruthy();
      });
    }
    it('a missing model (model_required, as the OpenAI front door answers)', () => {
      const e = toHubError({ messages: [] });
      expect(e).toMatchObject({ code: 'model_required', status: 400 });
      expect(e.message).toContain('"model"');
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('ollama client side: hub response → /api/chat response', () => {
  it('writes the reference non-stream reply, with the client\'s model and nanosecond timings', () => {
    const body = ollamaFormat.responseFromHub(hubText(), ctx);
    expect(body).toEqual({
      model: 'llama3.2',
      created_at: expect.stringMatching(ISO),
      message: { role: 'assistant', content: 'Hello! How are you today?' },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 26,
      eval_count: 298,
      ...timingsShape,
    });
  });

  it('measures the durations from the response\'s creation, split between prompt and reply by tokens', () => {
    const res = hubText({}, { prompt_tokens: 100, completion_tokens: 300, total_tokens: 400 });
    res.created = Math.floor(Date.now() / 1000) - 2;
    const body = ollamaFormat.responseFromHub(res, ctx) as Record<string, number>;
    for (const k of ['total_duration', 'prompt_eval_duration', 'eval_duration']) expect(Number.isInteger(body[k])).toBe(true);
    expect(body.total_duration).toBeGreaterThanOrEqual(1e9);
    expect(body.total_duration).toBeLessThan(4e9);
    expect(body.prompt_eval_duration! + body.eval_duration!).toBe(body.total_duration);
    expect(body.prompt_eval_duration! / body.total_duration!).toBeCloseTo(0.25, 2);
  });

  it('writes tool calls with object arguments and done_reason "stop", as Ollama does', () => {
    const res = hubText({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_current_weather', arguments: '{"format":"celsius","location":"Paris, FR"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
    const body = ollamaFormat.responseFromHub(res, ctx) as Record<string, unknown>;
    expect(body.message).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } } },
        { function: { name: 'get_time', arguments: {} } },
      ],
    });
    expect(body.done_reason).toBe('stop');
  });

  it('writes a cut reply as "length", reasoning as thinking, and keeps unparseable arguments as their text', () => {
    const res = hubText({
      message: { role: 'assistant', content: 'Once', reasoning_content: 'hmm', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"city":"Par' } }] },
      finish_reason: 'length',
    });
    const body = ollamaFormat.responseFromHub(res, ctx) as { message: unknown; done_reason: string };
    expect(body.done_reason).toBe('length');
    expect(body.message).toEqual({ role: 'assistant', content: 'Once', thinking: 'hmm', tool_calls: [{ function: { name: 'f', arguments: '{"city":"Par' } }] });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('ollama client side: hub stream → NDJSON', () => {
  it('writes one line per delta and a final done line (the reference stream)', () => {
    const enc = ollamaFormat.streamEncoder(ctx);
    expect(enc.contentType).toBe('application/x-ndjson');
    let text = '';
    for (const c of responseToChunks(hubText({ message: { role: 'assistant', content: 'The' } }))) text += enc.chunk(c);
    text += enc.end();
    expect(lines(text)).toEqual([
      { model: 'llama3.2', created_at: expect.stringMatching(ISO), message: { role: 'assistant', content: 'The' }, done: false },
      {
        model: 'llama3.2',
        created_at: expect.stringMatching(ISO),
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: 26,
        eval_count: 298,
        ...timingsShape,
      },
    ]);
    expect(enc.end()).toBe('');
  });

  it('buffers tool call arguments streamed a character at a time and writes every call whole in one line', () => {
    const enc = ollamaFormat.streamEncoder(ctx);
    const base = { id: 'x', object: 'chat.completion.chunk' as const, created: 1, model: 'up' };
    const delta = (d: HubChunk['choices'][0]['delta'], finish: HubChunk['choices'][0]['finish_reason'] = null): HubChunk => ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
    const argsA = '{"city":"Paris","units":{"temp":"C"}}';
    const argsB = '{"tz":"CET"}';
    const chunks: HubChunk[] = [delta({ role: 'assistant', content: '' }), delta({ content: 'Checking.' })];
    chunks.push(delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
    chunks.push(delta({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }] }));
    // Interleave the two calls' arguments, one character per delta.
    for (let i = 0; i < Math.max(argsA.length, argsB.length); i++) {
      if (argsA[i]) chunks.push(delta({ tool_calls: [{ index: 0, function: { arguments: argsA[i] } }] }));
      if (argsB[i]) chunks.push(delta({ tool_calls: [{ index: 1, function: { arguments: argsB[i] } }] }));
    }
    chunks.push(delta({}, 'tool_calls'));
    let text = '';
    for (const c of chunks) text += enc.chunk(c);
    text += enc.end();
    const out = lines(text);
    expect(out.map((l) => l.message)).toEqual([
      { role: 'assistant', content: 'Checking.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { function: { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } } },
          { function: { name: 'get_time', arguments: { tz: 'CET' } } },
        ],
      },
      { role: 'assistant', content: '' },
    ]);
    expect(out.map((l) => l.done)).toEqual([false, false, true]);
    expect(out[2]?.done_reason).toBe('stop');
  });

  it('writes thinking deltas and, without provider usage, counts one token per delta', () => {
    const enc = ollamaFormat.streamEncoder(ctx);
    const res = hubText({ message: { role: 'assistant', content: 'Hi', reasoning_content: 'Greeting.' } });
    delete res.usage;
    let text = '';
    for (const c of responseToChunks(res)) text += enc.chunk(c);
    const out = lines(text + enc.end());
    expect(out[0]?.message).toEqual({ role: 'assistant', content: '', thinking: 'Greeting.' });
    expect(out[1]?.message).toEqual({ role: 'assistant', content: 'Hi' });
    expect(out[2]).toMatchObject({ done: true, prompt_eval_count: 0, eval_count: 2 });
  });

  it('ends a failed stream with Ollama\'s error line, a string, and writes nothing after it', () => {
    const enc = ollamaFormat.streamEncoder(ctx);
    const text = enc.error({ status: 502, code: 'upstream_error', type: 'upstream_error', message: 'Provider "x" failed mid-stream.', action: 'Retry.' });
    expect(text).toBe('{"error":"Provider \\"x\\" failed mid-stream. Retry."}\n');
    expect(enc.end()).toBe('');
  });
});

describe('ollama error bodies', () => {
  it('errorBody is {"error": "<text>"} with the action appended; errorMessage reads strings, objects and raw text', () => {
    expect(ollamaFormat.errorBody({ status: 404, code: 'no_route', type: 'invalid_request_error', message: 'No route for "x".', action: 'Add a rule.' })).toEqual({ error: 'No route for "x". Add a rule.' });
    expect(ollamaFormat.errorMessage({ error: 'model "x" not found, try pulling it first' })).toBe('model "x" not found, try pulling it first');
    expect(ollamaFormat.errorMessage({ error: { message: 'from a proxy' } })).toBe('from a proxy');
    expect(ollamaFormat.errorMessage('404 page not found\n')).toBe('404 page not found');
    expect(ollamaFormat.errorMessage({ nothing: true })).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('ollama provider side: hub request → /api/chat body', () => {
  const full: HubRequest = {
    model: 'llama3.2',
    messages: [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true } }],
    temperature: 0.5,
    top_p: 0.9,
    max_tokens: 64,
    stop: 'END',
    seed: 7,
    response_format: { type: 'json_object' },
    user: 'u1',
  };

  it('writes the reference shape, with stream always explicit', () => {
    expect(ollamaFormat.requestFromHub(full)).toEqual({
      model: 'llama3.2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is this?', images: ['iVBORw0KGgo='] },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
        { role: 'tool', content: '{"temp_c":21}', tool_name: 'get_weather' },
      ],
      stream: false,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } }],
      format: 'json',
      options: { temperature: 0.5, top_p: 0.9, num_predict: 64, stop: ['END'], seed: 7 },
    });
    expect(ollamaFormat.requestFromHub({ model: 'm', messages: [], stream: true })).toEqual({ model: 'm', messages: [], stream: true });
  });

  it('sends a JSON schema as format, and approximates tool_choice (none: no tools; named: only that tool)', () => {
    const schema = { type: 'object', properties: { age: { type: 'integer' } } };
    const tools: HubRequest['tools'] = [
      { type: 'function', function: { name: 'a' } },
      { type: 'function', function: { name: 'b' } },
    ];
    const body = (r: Partial<HubRequest>) => ollamaFormat.requestFromHub({ model: 'm', messages: [], ...r }) as Record<string, unknown>;
    expect(body({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } }).format).toEqual(schema);
    expect(body({ tools, tool_choice: 'none' }).tools).toBeUndefined();
    expect(body({ tools, tool_choice: { type: 'function', function: { name: 'b' } } }).tools).toEqual([{ type: 'function', function: { name: 'b' } }]);
    expect(body({ tools, tool_choice: 'required' }).tools).toHaveLength(2);
    expect(body({ max_completion_tokens: 9, top_k: 40 }).options).toEqual({ num_predict: 9, top_k: 40 });
  });

  it('refuses a remote image URL (Ollama takes only inline images) with a 400 naming the part', () => {
    const req: HubRequest = { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/cat.png' } }] }] };
    expect(() => ollamaFormat.requestFromHub(req)).toThrow(ApiError);
    expect(() => ollamaFormat.requestFromHub(req)).toThrow('"messages[0].content[0].image_url.url"');
  });
});

describe('ollama provider side: /api/chat response → hub', () => {
  it('reads the reference tool call reply: minted ids, finish "tool_calls", usage from the counts', () => {
    const hub = ollamaFormat.responseToHub(
      {
        model: 'llama3.2',
        created_at: '2024-07-22T20:33:28.123648Z',
        message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } } }] },
        done_reason: 'stop',
        done: true,
        total_duration: 885095291,
        load_duration: 3753500,
        prompt_eval_count: 122,
        prompt_eval_duration: 328493000,
        eval_count: 33,
        eval_duration: 552222000,
      },
      'llama3.2',
    );
    expect(hub).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: 1721680408,
      model: 'llama3.2',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [{ id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_current_weather', arguments: '{"format":"celsius","location":"Paris, FR"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 122, completion_tokens: 33, total_tokens: 155 },
    });
  });

  it('reads text, "length" and thinking; a body carrying {"error"} raises', () => {
    const hub = ollamaFormat.responseToHub({ model: 'qwen3', message: { role: 'assistant', content: 'Once', thinking: 'Story time.' }, done: true, done_reason: 'length', eval_count: 2 }, 'qwen3');
    expect(hub.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'Once', reasoning_content: 'Story time.' }, finish_reason: 'length' });
    expect(hub.usage).toEqual({ prompt_tokens: 0, completion_tokens: 2, total_tokens: 2 });
    expect(() => ollamaFormat.responseToHub({ error: 'model "x" not found' }, 'x')).toThrow(UpstreamStreamError);
  });
});

describe('ollama provider side: NDJSON stream → hub chunks', () => {
  const reference =
    '{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","message":{"role":"assistant","content":"The","images":null},"done":false}\n' +
    '{"model":"llama3.2","created_at":"2023-08-04T08:52:19.485406455-07:00","message":{"role":"assistant","content":" sky"},"done":false}\n' +
    '{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}\n';

  function decodeBytewise(text: string): HubChunk[] {
    const dec = ollamaFormat.streamDecoder('llama3.2');
    const out: HubChunk[] = [];
    for (const ch of text) out.push(...dec.push(ch));
    return [...out, ...dec.end()];
  }

  it('reads the reference stream fed one character at a time', () => {
    const chunks = decodeBytewise(reference);
    const base = { id: chunks[0]!.id, object: 'chat.completion.chunk', created: 1691164339, model: 'llama3.2' };
    expect(chunks).toEqual([
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: 'The' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: ' sky' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 26, completion_tokens: 282, total_tokens: 308 } },
    ]);
  });

  it('reads whole tool call lines with running indexes and finishes with "tool_calls"', () => {
    const text =
      '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},"done":false}\n' +
      '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_time","arguments":{}}}]},"done":false}\n' +
      '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":9}';
    const chunks = decodeBytewise(text); // the last line has no newline: end() reads it
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { index: 1, id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(foldChunks(chunks).usage).toEqual({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 });
  });

  it('skips blank and non-JSON lines (as the Ollama client does), reads CRLF and thinking', () => {
    const text = '\r\n: keep-alive\r\n{"message":{"role":"assistant","content":"","thinking":"Hmm"},"done":false}\r\n{"message":{"content":"Hi"},"done":true,"done_reason":"stop"}\r\n';
    const folded = foldChunks(decodeBytewise(text), 'm');
    expect(folded.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'Hi', reasoning_content: 'Hmm' }, finish_reason: 'stop' });
    expect(folded.usage).toBeUndefined();
  });

  it('hands over the chunks before an error line, then raises UpstreamStreamError with its text', () => {
    const dec = ollamaFormat.streamDecoder('m');
    const out = dec.push('{"message":{"content":"Hel"},"done":false}\n{"error":"an error was encountered while running the model: unexpected EOF"}\n');
    expect(out.map((c) => c.choices[0]?.delta.content)).toEqual(['', 'Hel']);
    expect(() => dec.end()).toThrow(new UpstreamStreamError('an error was encountered while running the model: unexpected EOF'));
    expect(() => dec.push('{"message":{"content":"more"},"done":false}\n')).toThrow(UpstreamStreamError);
  });

  it('raises at once on an error line cut in pieces, and when the stream ends without its done line', () => {
    const dec = ollamaFormat.streamDecoder('m');
    expect(dec.push('{"err')).toEqual([]);
    expect(() => dec.push('or":"boom"}\n')).toThrow('boom');
    const cut = ollamaFormat.streamDecoder('m');
    cut.push('{"message":{"content":"Hel"},"done":false}\n');
    expect(() => cut.end()).toThrow(/without its final "done": true line/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('/api/generate helpers', () => {
  it('generateToHub turns system and prompt (with images) into messages; stream defaults to true', () => {
    const hub = generateToHub({
      model: 'llava',
      prompt: 'What is in this picture?',
      system: 'You are terse.',
      images: ['iVBORw0KGgo='],
      format: 'json',
      options: { seed: 123, num_predict: 10 },
      suffix: '    return result',
      raw: false,
      context: [1, 2, 3],
      keep_alive: 0,
    });
    expect(hub).toEqual({
      model: 'llava',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
      ],
      stream: true,
      stream_options: { include_usage: true },
      response_format: { type: 'json_object' },
      seed: 123,
      max_tokens: 10,
    });
    expect(generateToHub({ model: 'm', prompt: 'hi', stream: false })).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(() => generateToHub({ model: 'm', prompt: 5 })).toThrow('"prompt"');
  });

  it('generateResponseFromHub writes the reference reply with `response` and an empty context', () => {
    expect(generateResponseFromHub(hubText({ finish_reason: 'length' }), 'llama3.2')).toEqual({
      model: 'llama3.2',
      created_at: expect.stringMatching(ISO),
      response: 'Hello! How are you today?',
      done: true,
      done_reason: 'length',
      context: [],
      prompt_eval_count: 26,
      eval_count: 298,
      ...timingsShape,
    });
  });

  it('generateStreamEncoder writes `response` lines and a final done line with a context', () => {
    const enc = generateStreamEncoder('llama3.2');
    let text = '';
    for (const c of responseToChunks(hubText({ message: { role: 'assistant', content: 'The sky' } }))) text += enc.chunk(c);
    const out = lines(text + enc.end());
    expect(out).toEqual([
      { model: 'llama3.2', created_at: expect.stringMatching(ISO), response: 'The sky', done: false },
      { model: 'llama3.2', created_at: expect.stringMatching(ISO), response: '', done: true, done_reason: 'stop', context: [], prompt_eval_count: 26, eval_count: 298, ...timingsShape },
    ]);
    expect(enc.error({ status: 502, code: 'x', type: 'x', message: 'gone' })).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('the official ollama client reads what the format writes', () => {
  let server: http.Server;
  let client: Ollama;
  const toolReply = hubText({
    message: {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","units":{"temp":"C"}}' } }],
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
          res.end(JSON.stringify(ollamaFormat.errorBody({ status: 404, code: 'no_route', type: 'invalid_request_error', message: 'No route for "m".' })));
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
            const piece = { index: 0, ...(i === 0 ? { id: tc.id, type: 'function' as const } : {}), function: { ...(i === 0 ? { name: tc.function!.name } : {}), arguments: args.slice(i, i + 3) } };
            res.write(enc.chunk({ ...c, choices: [{ index: 0, delta: { tool_calls: [piece] }, finish_reason: null }] }));
          }
        }
        if (said === 'break') res.end(enc.error({ status: 502, code: 'upstream_error', type: 'upstream_error', message: 'Provider "x" failed mid-stream.' }));
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
    for await (const p of await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: true })) parts.push(p);
    expect(parts.map((p) => p.message.content).join('')).toBe('Checking.');
    expect(parts.flatMap((p) => p.message.tool_calls ?? [])).toEqual([{ function: { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } } }]);
    expect(parts.at(-1)).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 26, eval_count: 298 });
  });

  it('non-stream: the reply with its tool call', async () => {
    const reply = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(reply.message.tool_calls).toEqual([{ function: { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } } }]);
    expect(reply.model).toBe('llama3.2');
  });

  it('errors: the HTTP body shows as text (not "[object Object]"), and the error line throws its text', async () => {
    const err = (await client.chat({ model: 'm', messages: [{ role: 'user', content: 'fail' }], stream: false }).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('No route for "m".');
    const streamed = (await (async () => {
      for await (const _ of await client.chat({ model: 'm', messages: [{ role: 'user', content: 'break' }], stream: true })) void _;
    })().catch((e: unknown) => e)) as Error;
    expect(streamed.message).toBe('Provider "x" failed mid-stream.');
  });
});
