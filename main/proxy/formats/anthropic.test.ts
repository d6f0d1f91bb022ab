// Golden tests for the Anthropic Messages format: exact wire JSON both ways, the stream event sequence, errors, and
// the edge cases the format leaves open (decisions listed at the top of anthropic.ts).
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.ts';
import { anthropicFormat, anthropicModelList, countTokens } from './anthropic.ts';
import { foldChunks, type HubChunk, type HubRequest, type HubResponse, UpstreamStreamError, type WireError } from './hub/index.ts';

const ctx = { model: 'claude-test-1' };
const base = { id: 'chatcmpl-1', object: 'chat.completion' as const, created: 1700000000, model: 'gpt-4o' };
const chunk = (delta: HubChunk['choices'][0]['delta'], finish: HubChunk['choices'][0]['finish_reason'] = null, usage?: HubChunk['usage']): HubChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1700000000,
  model: 'gpt-4o',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});

/** The SSE text as [event name, parsed data] pairs, checking each event's framing. */
function events(text: string): [string, unknown][] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((e) => {
      const m = /^event: (\w+)\ndata: (.*)$/s.exec(e);
      expect(m, e).not.toBeNull();
      const data = JSON.parse(m![2]!) as { type: string };
      expect(data.type).toBe(m![1]);
      return [m![1]!, data];
    });
}

function encode(chunks: HubChunk[]): string {
  const enc = anthropicFormat.streamEncoder(ctx);
  return chunks.map((c) => enc.chunk(c)).join('') + enc.end();
}

function decode(text: string, pieces: number[] = []): HubChunk[] {
  const dec = anthropicFormat.streamDecoder('asked-model');
  const out: HubChunk[] = [];
  let at = 0;
  for (const p of [...pieces, text.length]) {
    out.push(...dec.push(text.slice(at, p)));
    at = p;
  }
  return [...out, ...dec.end()];
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('client side: Anthropic request → hub', () => {
  it('converts a full request exactly', () => {
    const body = {
      model: 'claude-test-1',
      max_tokens: 1024,
      system: [
        { type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Be brief.' },
      ],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      stream: true,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'u-42' },
      thinking: { type: 'enabled', budget_tokens: 2048 },
    };
    expect(anthropicFormat.requestToHub(body, {})).toEqual({
      model: 'claude-test-1',
      messages: [
        { role: 'system', content: 'You are a weather bot.\n\nBe brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      max_tokens: 1024,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      user: 'u-42',
    } satisfies HubRequest);
  });

  it('accepts role "system" messages inside messages, where they stand', () => {
    const hub = anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          { role: 'system', content: [{ type: 'text', text: 'Now be French.' }] },
        ],
      },
      {},
    );
    expect(hub.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Now be French.' },
    ]);
  });

  it('maps base64 images to data: URLs and url images to the URL', () => {
    const hub = anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
              { type: 'text', text: 'Compare them.' },
            ],
          },
        ],
      },
      {},
    );
    expect(hub.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'text', text: 'Compare them.' },
        ],
      },
    ]);
  });

  it('turns each tool_result into a tool message; text after the results stays a user message, in order', () => {
    const hub = anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'Weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Two cities, two calls.', signature: 'sig' },
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp_c":21}' },
              { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'timeout' }, { type: 'text', text: 'retry later' }], is_error: true },
              { type: 'text', text: 'Also, what about Oslo?' },
              { type: 'text', text: 'Thanks.' },
            ],
          },
        ],
      },
      {},
    );
    expect(hub.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '{"temp_c":21}' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: timeout\nretry later' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Also, what about Oslo?' },
          { type: 'text', text: 'Thanks.' },
        ],
      },
    ]);
  });

  it('puts tool results ahead of text that precedes them in the same turn, and keeps images in results', () => {
    const hub = anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Here:' },
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
              { type: 'tool_result', tool_use_id: 'toolu_2' },
            ],
          },
        ],
      },
      {},
    );
    expect(hub.messages).toEqual([
      { role: 'tool', tool_call_id: 'toolu_1', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
      { role: 'tool', tool_call_id: 'toolu_2', content: '' },
      { role: 'user', content: 'Here:' },
    ]);
  });

  it('gives an assistant turn of only tool calls null content', () => {
    const hub = anthropicFormat.requestToHub(
      { model: 'm', max_tokens: 10, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'now', input: {} }] }] },
      {},
    );
    expect(hub.messages).toEqual([{ role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'now', arguments: '{}' } }] }]);
  });

  it.each([
    [{ type: 'auto' }, 'auto', undefined],
    [{ type: 'any' }, 'required', undefined],
    [{ type: 'none' }, 'none', undefined],
    [{ type: 'tool', name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }, undefined],
    [{ type: 'auto', disable_parallel_tool_use: true }, 'auto', false],
  ])('maps tool_choice %j', (choice, hubChoice, parallel) => {
    const hub = anthropicFormat.requestToHub({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'get_weather', input_schema: { type: 'object' } }], tool_choice: choice }, {});
    expect(hub.tool_choice).toEqual(hubChoice);
    expect(hub.parallel_tool_calls).toBe(parallel);
  });

  it('maps plain-text documents to text, title first', () => {
    const hub = anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', title: 'Notes', source: { type: 'text', media_type: 'text/plain', data: 'The sky is blue.' } },
              { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] } },
              { type: 'text', text: 'Summarise.' },
            ],
          },
        ],
      },
      {},
    );
    expect(hub.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Notes\n\nThe sky is blue.' },
        { type: 'text', text: 'a\nb' },
        { type: 'text', text: 'Summarise.' },
      ],
    });
  });

  it.each([
    ['a body that is not an object', [1, 2], 'The request body must be a JSON object'],
    ['no messages', { model: 'm', max_tokens: 5 }, '"messages" must be a non-empty array'],
    ['a bad role', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }, '"messages[0].role" must be "user", "assistant" or "system"; got "tool"'],
    ['a text block without text', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, '"messages[0].content[0].text" must be a string'],
    [
      'a PDF document',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }] }] },
      '"messages[0].content[1]" is a document block (base64 application/pdf)',
    ],
    ['an image from the Files API', { model: 'm', messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }] }, '"messages[0].content[0]" is an image with a "file" source'],
    ['an untranslatable block', { model: 'm', messages: [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] }] }, '"messages[0].content[0]" is a "server_tool_use" block'],
    ['a built-in tool', { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, '"tools[0]" is Anthropic\'s built-in tool "web_search_20250305"'],
    ['a bad tool_choice', { model: 'm', messages: [{ role: 'user', content: 'x' }], tool_choice: { type: 'sometimes' } }, '"tool_choice.type" must be "auto", "any", "none" or "tool"; got "sometimes"'],
    ['a bad max_tokens', { model: 'm', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] }, '"max_tokens" must be a positive integer; got 0'],
    ['a bad temperature', { model: 'm', temperature: 'hot', messages: [{ role: 'user', content: 'x' }] }, '"temperature" must be a number; got "hot"'],
  ])('refuses %s with a 400 naming the field', (_name, body, message) => {
    const e = apiError(() => anthropicFormat.requestToHub(body, {}));
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_request');
    expect(e.message).toContain(message);
    expect(e.action).toBeTruthy();
  });

  it('refuses a request without a model as model_required', () => {
    const e = apiError(() => anthropicFormat.requestToHub({ max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, {}));
    expect([e.status, e.code]).toEqual([400, 'model_required']);
  });

  it('accepts what the official SDK sends', async () => {
    let sent: unknown;
    const client = new Anthropic({
      apiKey: 'x',
      maxRetries: 0,
      fetch: async (_url, init) => {
        sent = JSON.parse(String(init?.body));
        return new Response(JSON.stringify(anthropicFormat.responseFromHub(textResponse, ctx)), { headers: { 'content-type': 'application/json' } });
      },
    });
    await client.messages.create({
      model: 'claude-test-1',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '21C' }] },
      ],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    expect(anthropicFormat.requestToHub(sent, {}).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: '21C' },
    ]);
  });
});

const textResponse: HubResponse = {
  ...base,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi! My name is Claude.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 },
};

describe('client side: hub response → Anthropic message', () => {
  it('writes a text reply exactly, with the model the client asked for', () => {
    const body = anthropicFormat.responseFromHub(textResponse, ctx) as { id: string };
    expect(body.id).toMatch(/^msg_/);
    expect(body).toEqual({
      id: body.id,
      type: 'message',
      role: 'assistant',
      model: 'claude-test-1',
      content: [{ type: 'text', text: 'Hi! My name is Claude.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 2095, output_tokens: 503 },
    });
  });

  it('writes tool calls as tool_use blocks with parsed input; bad JSON is kept as _raw', () => {
    const res: HubResponse = {
      ...base,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
              { id: 'call_c', type: 'function', function: { name: 'now', arguments: '' } },
            ],
          },
          // Some providers say "stop" with tool calls: Anthropic clients need tool_use to run them.
          finish_reason: 'stop',
        },
      ],
    };
    const body = anthropicFormat.responseFromHub(res, ctx) as Record<string, unknown>;
    expect(body.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_b', name: 'get_weather', input: { _raw: '{"city":' } },
      { type: 'tool_use', id: 'call_c', name: 'now', input: {} },
    ]);
    expect(body.stop_reason).toBe('tool_use');
    expect(body.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['content_filter', 'refusal'],
    [null, 'end_turn'],
  ] as const)('maps finish_reason %s to stop_reason %s', (finish, stop) => {
    const res: HubResponse = { ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: finish }] };
    expect((anthropicFormat.responseFromHub(res, ctx) as { stop_reason: string }).stop_reason).toBe(stop);
  });

  it('is read by the official SDK', async () => {
    const client = new Anthropic({
      apiKey: 'x',
      maxRetries: 0,
      fetch: async () => new Response(JSON.stringify(anthropicFormat.responseFromHub(textResponse, ctx)), { headers: { 'content-type': 'application/json' } }),
    });
    const msg = await client.messages.create({ model: 'claude-test-1', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    expect(msg.content).toEqual([{ type: 'text', text: 'Hi! My name is Claude.' }]);
    expect(msg.usage.output_tokens).toBe(503);
  });
});

describe('client side: hub stream → Anthropic events', () => {
  it('writes a text reply as the exact event sequence', () => {
    const text = encode([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello' }),
      chunk({ content: '!' }),
      chunk({}, 'stop'),
      { ...chunk({}), choices: [], usage: { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 } },
    ]);
    const id = /"id":"(msg_[^"]+)"/.exec(text)![1];
    expect(text).toBe(
      'event: message_start\n' +
        `data: {"type":"message_start","message":{"id":"${id}","type":"message","role":"assistant","model":"claude-test-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}\n\n` +
        'event: ping\ndata: {"type":"ping"}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}\n\n' +
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}\n\n' +
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":25,"output_tokens":15}}\n\n' +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  });

  it('writes text then two tool calls: each call opens a block after the previous one closes, arguments as input_json_delta', () => {
    const text = encode([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Checking.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] }),
      chunk({}, 'tool_calls', { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 }),
    ]);
    expect(events(text).slice(2)).toEqual([
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_b', name: 'get_weather', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":"Rome"}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 2 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 20, output_tokens: 12 } }],
      ['message_stop', { type: 'message_stop' }],
    ]);
  });

  it('waits for a tool name before opening its block, holding the arguments meanwhile', () => {
    const text = encode([
      chunk({ tool_calls: [{ index: 0, id: 'call_x', function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events(text).slice(2, 5)).toEqual([
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call_x', name: 'f', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ]);
  });

  it('never drops arguments of a call whose block is already closed (interleaved calls)', () => {
    const text = encode([
      chunk({ tool_calls: [{ index: 0, id: 'c0', function: { name: 'f', arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'c1', function: { name: 'g', arguments: '{"y":2}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const deltas = events(text).filter(([e]) => e === 'content_block_delta').map(([, d]) => d);
    expect(deltas).toEqual([
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"x":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"y":2}' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '1}' } },
    ]);
    const calls = foldChunks(decode(text)).choices[0]!.message.tool_calls!;
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ x: 1 }, { y: 2 }]);
  });

  it('writes a complete message for an empty stream', () => {
    expect(events(encode([])).map(([e]) => e)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
  });

  it('writes a mid-stream error as an error event and nothing after it', () => {
    const enc = anthropicFormat.streamEncoder(ctx);
    enc.chunk(chunk({ content: 'Hel' }));
    const e: WireError = { status: 503, code: 'no_healthy_provider', type: 'upstream_error', message: 'Every provider failed.' };
    expect(enc.error(e)).toBe('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Every provider failed."}}\n\n');
    expect(enc.chunk(chunk({ content: 'lo' }))).toBe('');
    expect(enc.end()).toBe('');
    expect(anthropicFormat.streamEncoder(ctx).error({ ...e, status: 502 })).toContain('"type":"api_error"');
  });

  it('is read by the official SDK: finalMessage() has the text and the parsed tool input', async () => {
    const text = encode([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Let me check.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_c', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo","units":{"temp"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':"C"}}' } }] }),
      chunk({}, 'tool_calls'),
      { ...chunk({}), choices: [], usage: { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 } },
    ]);
    const client = new Anthropic({
      apiKey: 'x',
      maxRetries: 0,
      fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const msg = await client.messages.stream({ model: 'claude-test-1', max_tokens: 10, messages: [{ role: 'user', content: 'Oslo?' }] }).finalMessage();
    expect(msg.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_c', name: 'get_weather', input: { city: 'Oslo', units: { temp: 'C' } } },
    ]);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.model).toBe('claude-test-1');
    expect(msg.usage).toMatchObject({ input_tokens: 20, output_tokens: 12 });
  });

  it('makes the official SDK raise an error event as an APIError', async () => {
    const enc = anthropicFormat.streamEncoder(ctx);
    const text = enc.chunk(chunk({ content: 'Hel' })) + enc.error({ status: 529, code: 'upstream_error', type: 'upstream_error', message: 'Overloaded' });
    const client = new Anthropic({ apiKey: 'x', maxRetries: 0, fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }) });
    const err = await client.messages.stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).message).toContain('Overloaded');
  });
});

describe('client side: error bodies', () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [405, 'invalid_request_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'overloaded_error'],
    [504, 'api_error'],
    [529, 'overloaded_error'],
  ])('answers status %i with type %s', (status, type) => {
    expect(anthropicFormat.errorBody({ status, code: 'x', type: 'x', message: 'Boom.' })).toEqual({ type: 'error', error: { type, message: 'Boom.' } });
  });

  it('appends the action to the message, which is all Anthropic clients show', () => {
    const body = anthropicFormat.errorBody({ status: 404, code: 'no_route', type: 'invalid_request_error', message: 'No route for model "x".', action: 'Add a route.' });
    expect(body).toEqual({ type: 'error', error: { type: 'not_found_error', message: 'No route for model "x". Add a route.' } });
  });
});

describe('provider side: hub request → Anthropic body', () => {
  it('converts a full request exactly', () => {
    const hub: HubRequest = {
      model: 'claude-test-1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What are these?' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
            { type: 'image_url', image_url: { url: 'https://example.com/b.png' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          reasoning_content: 'hmm',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'functions.get_weather:1', type: 'function', function: { name: 'get_weather', arguments: 'Rome' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
        { role: 'tool', tool_call_id: 'functions.get_weather:1', content: [{ type: 'text', text: '19' }] },
        { role: 'user', content: 'And Oslo?' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'Hello?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 1.5,
      top_p: 0.9,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      user: 'u-1',
      seed: 7,
    };
    expect(anthropicFormat.requestFromHub(hub)).toEqual({
      model: 'claude-test-1',
      max_tokens: 4096,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use metric units.' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What are these?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/b.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'functions_get_weather_1', name: 'get_weather', input: { _raw: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '{"temp_c":21}' },
            { type: 'tool_result', tool_use_id: 'functions_get_weather_1', content: [{ type: 'text', text: '19' }] },
            { type: 'text', text: 'And Oslo?' },
          ],
        },
        { role: 'user', content: 'Hello?' },
      ],
      stream: true,
      temperature: 1,
      stop_sequences: ['END'],
      tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'u-1' },
    });
  });

  it('keeps max_tokens (or max_completion_tokens), a single system string and top_p without temperature', () => {
    const body = anthropicFormat.requestFromHub({ model: 'm', messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'Hi' }], max_completion_tokens: 99, top_p: 0.5 });
    expect(body).toEqual({ model: 'm', max_tokens: 99, system: 'S', messages: [{ role: 'user', content: 'Hi' }], top_p: 0.5 });
    expect(anthropicFormat.requestFromHub({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 })).toMatchObject({ max_tokens: 5 });
  });

  it('sends tool_choice only with tools, and a tool without parameters gets an empty object schema', () => {
    expect(anthropicFormat.requestFromHub({ model: 'm', messages: [{ role: 'user', content: 'x' }], tool_choice: 'none' })).not.toHaveProperty('tool_choice');
    const body = anthropicFormat.requestFromHub({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'now' } }],
      tool_choice: { type: 'function', function: { name: 'now' } },
    });
    expect(body).toMatchObject({ tools: [{ name: 'now', input_schema: { type: 'object', properties: {} } }], tool_choice: { type: 'tool', name: 'now' } });
  });
});

describe('provider side: Anthropic response → hub', () => {
  it('reads a text message exactly', () => {
    const body = {
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi! My name is Claude.' }],
      model: 'claude-test-1-20250929',
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 2095, output_tokens: 503 },
    };
    const res = anthropicFormat.responseToHub(body, 'asked');
    expect(res).toEqual({
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      object: 'chat.completion',
      created: res.created,
      model: 'claude-test-1-20250929',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi! My name is Claude.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 },
    });
    expect(Math.abs(res.created - Date.now() / 1000)).toBeLessThan(5);
  });

  it('reads thinking, tool_use and cached usage', () => {
    const res = anthropicFormat.responseToHub(
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test-1',
        content: [
          { type: 'thinking', thinking: 'Need the weather.', signature: 'abc' },
          { type: 'text', text: 'I will check.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'San Francisco' } },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 50 },
      },
      'asked',
    );
    expect(res.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: 'I will check.',
        reasoning_content: 'Need the weather.',
        tool_calls: [{ id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"San Francisco"}' } }],
      },
      finish_reason: 'tool_calls',
    });
    expect(res.usage).toEqual({ prompt_tokens: 1110, completion_tokens: 50, total_tokens: 1160 });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('maps stop_reason %s to %s', (stop, finish) => {
    const res = anthropicFormat.responseToHub({ id: 'msg_1', type: 'message', content: [], stop_reason: stop }, 'asked');
    expect(res.choices[0]!.finish_reason).toBe(finish);
    expect(res.choices[0]!.message.content).toBeNull();
    expect(res.model).toBe('asked');
  });

  it('refuses an error body or a body that is not a message', () => {
    expect(() => anthropicFormat.responseToHub({ type: 'error', error: { type: 'api_error', message: 'Internal' } }, 'm')).toThrow(/Internal/);
    expect(() => anthropicFormat.responseToHub('<html>', 'm')).toThrow(ApiError);
  });

  it('reads the message of an error body', () => {
    expect(anthropicFormat.errorMessage({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' })).toBe('Overloaded');
    expect(anthropicFormat.errorMessage({ error: 'plain' })).toBe('plain');
    expect(anthropicFormat.errorMessage('<html>')).toBeUndefined();
    expect(anthropicFormat.errorMessage({ type: 'error' })).toBeUndefined();
  });
});

// The stream Anthropic's streaming guide shows for a tool call (text block, then a tool_use block).
const TOOL_STREAM =
  'event: message_start\n' +
  'data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-test-1","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}\n\n' +
  'event: content_block_start\n' +
  'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
  'event: ping\n' +
  'data: {"type": "ping"}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay, let\'s check"}}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" the weather:"}}\n\n' +
  'event: content_block_stop\n' +
  'data: {"type":"content_block_stop","index":0}\n\n' +
  'event: content_block_start\n' +
  'data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \\"San Francisco, CA\\", \\"unit\\": \\"fahrenheit\\"}"}}\n\n' +
  'event: content_block_stop\n' +
  'data: {"type":"content_block_stop","index":1}\n\n' +
  'event: message_delta\n' +
  'data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}\n\n' +
  'event: message_stop\n' +
  'data: {"type":"message_stop"}\n\n';

describe('provider side: Anthropic stream → hub chunks', () => {
  it('decodes the guide\'s tool stream into exact chunks', () => {
    const chunks = decode(TOOL_STREAM);
    const head = { id: 'msg_014p7gG3wDgGV9EUtLvnow3U', object: 'chat.completion.chunk', created: chunks[0]!.created, model: 'claude-test-1' };
    const c = (delta: object, finish_reason: string | null = null, extra: object = {}) => ({ ...head, choices: [{ index: 0, delta, finish_reason }], ...extra });
    expect(chunks).toEqual([
      c({ role: 'assistant', content: '' }),
      c({ content: "Okay, let's check" }),
      c({ content: ' the weather:' }),
      c({ tool_calls: [{ index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      c({ tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }),
      c({ tool_calls: [{ index: 0, function: { arguments: ' "San Francisco, CA", "unit": "fahrenheit"}' } }] }),
      c({}, 'tool_calls', { usage: { prompt_tokens: 472, completion_tokens: 89, total_tokens: 561 } }),
    ]);
  });

  it('gives the same result however the bytes are cut (every single cut point, and one byte at a time)', () => {
    const whole = foldChunks(decode(TOOL_STREAM));
    const { created: _c, ...expected } = whole;
    expect(JSON.parse(whole.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual({ location: 'San Francisco, CA', unit: 'fahrenheit' });
    for (let cut = 1; cut < TOOL_STREAM.length; cut++) {
      const { created: _x, ...got } = foldChunks(decode(TOOL_STREAM, [cut]));
      expect(got).toEqual(expected);
    }
    const bytewise = [...Array(TOOL_STREAM.length).keys()].slice(1);
    const { created: _y, ...got } = foldChunks(decode(TOOL_STREAM, bytewise));
    expect(got).toEqual(expected);
  });

  it('keeps each tool call at its own index with two tool_use blocks, and reads thinking', () => {
    const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const text =
      ev('message_start', { message: { id: 'msg_2', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } }) +
      ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }) +
      ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Two calls.' } }) +
      ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }) +
      ev('content_block_stop', { index: 0 }) +
      ev('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_a', name: 'f', input: {} } }) +
      ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"n":' } }) +
      ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } }) +
      ev('content_block_stop', { index: 1 }) +
      ev('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'toolu_b', name: 'g', input: {} } }) +
      ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"m":2}' } }) +
      ev('content_block_stop', { index: 2 }) +
      // A server that sends the whole input up front and no deltas.
      ev('content_block_start', { index: 3, content_block: { type: 'tool_use', id: 'toolu_c', name: 'h', input: { k: 3 } } }) +
      ev('content_block_stop', { index: 3 }) +
      ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 30 } }) +
      ev('message_stop', {});
    const res = foldChunks(decode(text));
    expect(res.choices[0]!.message).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: 'Two calls.',
      tool_calls: [
        { id: 'toolu_a', type: 'function', function: { name: 'f', arguments: '{"n":1}' } },
        { id: 'toolu_b', type: 'function', function: { name: 'g', arguments: '{"m":2}' } },
        { id: 'toolu_c', type: 'function', function: { name: 'h', arguments: '{"k":3}' } },
      ],
    });
    expect(res.usage).toEqual({ prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 });
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('raises an error event as UpstreamStreamError, after handing over the chunks before it', () => {
    const text =
      TOOL_STREAM.split('event: content_block_stop')[0] +
      'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';
    const dec = anthropicFormat.streamDecoder('m');
    const got = dec.push(text);
    expect(foldChunks(got).choices[0]!.message.content).toBe("Okay, let's check the weather:");
    let err: unknown;
    try {
      dec.end();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect(err).toMatchObject({ message: 'Overloaded', code: 'upstream_error', status: 503 });

    const rate = anthropicFormat.streamDecoder('m');
    expect(() => rate.push('event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}\n\n')).toThrow(
      expect.objectContaining({ code: 'upstream_rate_limited', status: 429 }),
    );
  });

  it('raises a stream cut before message_stop, but accepts one that only misses message_stop', () => {
    const cut = TOOL_STREAM.split('event: content_block_stop\ndata: {"type":"content_block_stop","index":1}')[0]!;
    expect(() => decode(cut)).toThrow(/ended before message_stop/);
    expect(() => decode('')).toThrow(UpstreamStreamError);
    const noStop = TOOL_STREAM.replace('event: message_stop\ndata: {"type":"message_stop"}\n\n', '');
    expect(foldChunks(decode(noStop)).choices[0]!.finish_reason).toBe('tool_calls');
  });
});

describe('count_tokens and the models list', () => {
  it('estimates input tokens as characters / 4 rounded up, plus 1,600 per image', () => {
    const body = {
      model: 'm',
      system: 'abcd',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'abcdefgh' }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
      ],
      tools: [{ name: 'f', description: 'd', input_schema: {} }],
    };
    // 4 (system) + 8 (text) + 1 + 2 (tool_use name and "{}") + 1 + 1 + 2 (tool name, description, "{}") = 19 → 5
    expect(countTokens(body)).toEqual({ input_tokens: 5 + 1600 });
    expect(() => countTokens({ model: 'm' })).toThrow(ApiError);
  });

  it('builds GET /v1/models in Anthropic\'s shape', () => {
    expect(anthropicModelList(['claude-a', 'claude-b'])).toEqual({
      data: [
        { type: 'model', id: 'claude-a', display_name: 'claude-a', created_at: '1970-01-01T00:00:00Z' },
        { type: 'model', id: 'claude-b', display_name: 'claude-b', created_at: '1970-01-01T00:00:00Z' },
      ],
      has_more: false,
      first_id: 'claude-a',
      last_id: 'claude-b',
    });
    expect(anthropicModelList([])).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it('is read by the official SDK\'s models.list()', async () => {
    const client = new Anthropic({ apiKey: 'x', maxRetries: 0, fetch: async () => new Response(JSON.stringify(anthropicModelList(['claude-a'])), { headers: { 'content-type': 'application/json' } }) });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['claude-a']);
  });
});
