// Client side: hub streams written as Anthropic's SSE events (the exact sequence, read by the official SDK).
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { encodeStream } from '../conformance.case.ts';
import { chunkMaker, upstreamError, usageChunk } from '../fixtures.test-helper.ts';
import { foldChunks, type HubChunk, type WireError } from '../hub/index.ts';
import { base, ctx, decode, sdkAnswering } from './fixtures.test-helper.ts';
import { anthropicFormat } from './index.ts';

const chunk = chunkMaker(base);
const encode = (chunks: HubChunk[]): string => encodeStream(anthropicFormat, chunks, ctx);

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

// The content block events as events() reads them.
const blockStart = (index: number, content_block: object) => [
  'content_block_start',
  { type: 'content_block_start', index, content_block },
];
const jsonDelta = (index: number, partial_json: string) => [
  'content_block_delta',
  { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } },
];
const blockStop = (index: number) => ['content_block_stop', { type: 'content_block_stop', index }];

describe('client side: hub stream → Anthropic events', () => {
  it('writes a text reply as the exact event sequence', () => {
    const text = encode([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello' }),
      chunk({ content: '!' }),
      chunk({}, 'stop'),
      usageChunk(base, { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 }),
    ]);
    const id = /"id":"(msg_[^"]+)"/.exec(text)![1];
    expect(text).toBe(
      'event: message_start\n' +
        `data: {"type":"message_start","message":{"id":"${id}","type":"message","role":"assistant",` +
        '"model":"claude-test-1","content":[],"stop_reason":null,"stop_sequence":null,' +
        '"usage":{"input_tokens":0,"output_tokens":0}}}\n\n' +
        'event: ping\ndata: {"type":"ping"}\n\n' +
        'event: content_block_start\n' +
        'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
        'event: content_block_delta\n' +
        'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}\n\n' +
        'event: content_block_delta\n' +
        'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}\n\n' +
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
        'event: message_delta\n' +
        'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},' +
        '"usage":{"input_tokens":25,"output_tokens":15}}\n\n' +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  });

  it(
    'writes text then two tool calls: each call opens a block after the previous one closes, ' +
      'arguments as input_json_delta',
    () => {
      const text = encode([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Checking.' }),
        chunk({
          tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({
          tool_calls: [
            {
              index: 1,
              id: 'call_b',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        }),
        chunk({}, 'tool_calls', { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 }),
      ]);
      expect(events(text).slice(2)).toEqual([
        blockStart(0, { type: 'text', text: '' }),
        [
          'content_block_delta',
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
        ],
        blockStop(0),
        blockStart(1, { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} }),
        jsonDelta(1, '{"city":'),
        jsonDelta(1, '"Paris"}'),
        blockStop(1),
        blockStart(2, { type: 'tool_use', id: 'call_b', name: 'get_weather', input: {} }),
        jsonDelta(2, '{"city":"Rome"}'),
        blockStop(2),
        [
          'message_delta',
          {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use', stop_sequence: null },
            usage: { input_tokens: 20, output_tokens: 12 },
          },
        ],
        ['message_stop', { type: 'message_stop' }],
      ]);
    },
  );

  it('waits for a tool name before opening its block, holding the arguments meanwhile', () => {
    const text = encode([
      chunk({ tool_calls: [{ index: 0, id: 'call_x', function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events(text).slice(2, 5)).toEqual([
      blockStart(0, { type: 'tool_use', id: 'call_x', name: 'f', input: {} }),
      jsonDelta(0, '{"a":1}'),
      blockStop(0),
    ]);
  });

  it('never drops arguments of a call whose block is already closed (interleaved calls)', () => {
    const text = encode([
      chunk({ tool_calls: [{ index: 0, id: 'c0', function: { name: 'f', arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'c1', function: { name: 'g', arguments: '{"y":2}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events(text).filter(([e]) => e === 'content_block_delta')).toEqual([
      jsonDelta(0, '{"x":'),
      jsonDelta(1, '{"y":2}'),
      jsonDelta(0, '1}'),
    ]);
    const calls = foldChunks(decode(text)).choices[0]!.message.tool_calls!;
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ x: 1 }, { y: 2 }]);
  });

  it('writes the cache counters in message_start and message_delta usage, input_tokens without them', () => {
    const usage = {
      prompt_tokens: 1025,
      completion_tokens: 7,
      total_tokens: 1032,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 5 },
    };
    const started = events(encode([chunk({ content: 'Hi' }, 'stop', usage)]));
    expect(started[0]![1]).toMatchObject({
      message: {
        usage: { input_tokens: 20, output_tokens: 0, cache_read_input_tokens: 1000, cache_creation_input_tokens: 5 },
      },
    });
    const later = events(encode([chunk({ content: 'Hi' }), chunk({}, 'stop', usage)]));
    expect(later[0]![1]).toMatchObject({ message: { usage: { input_tokens: 0, output_tokens: 0 } } });
    expect(later.at(-2)).toEqual([
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 1000, cache_creation_input_tokens: 5 },
      },
    ]);
    expect(foldChunks(decode(encode([chunk({ content: 'Hi' }), chunk({}, 'stop', usage)]))).usage).toEqual(usage);
  });

  it('writes a complete message for an empty stream', () => {
    expect(events(encode([])).map(([e]) => e)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
  });

  it('writes a mid-stream error as an error event and nothing after it', () => {
    const enc = anthropicFormat.streamEncoder(ctx);
    enc.chunk(chunk({ content: 'Hel' }));
    const e: WireError = {
      status: 503,
      code: 'no_healthy_provider',
      type: 'upstream_error',
      message: 'Every provider failed.',
    };
    expect(enc.error(e)).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Every provider failed."}}\n\n',
    );
    expect(enc.chunk(chunk({ content: 'lo' }))).toBe('');
    expect(enc.end()).toBe('');
    expect(anthropicFormat.streamEncoder(ctx).error({ ...e, status: 502 })).toContain('"type":"api_error"');
  });

  it('is read by the official SDK: finalMessage() has the text and the parsed tool input', async () => {
    const text = encode([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Let me check.' }),
      chunk({
        tool_calls: [
          { index: 0, id: 'call_c', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo","units":{"temp"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':"C"}}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk(base, { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 }),
    ]);
    const client = sdkAnswering(text, 'text/event-stream');
    const msg = await client.messages
      .stream({ model: 'claude-test-1', max_tokens: 10, messages: [{ role: 'user', content: 'Oslo?' }] })
      .finalMessage();
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
    const text = enc.chunk(chunk({ content: 'Hel' })) + enc.error(upstreamError('Overloaded', 529));
    const client = sdkAnswering(text, 'text/event-stream');
    const err = await client.messages
      .stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).message).toContain('Overloaded');
  });
});
