// Provider side: Anthropic SSE streams read as hub chunks, however the bytes are cut, and their failures.
import { describe, expect, it } from 'vitest';
import { caught, cutsEvery, toolCall } from '../fixtures.test-helper.ts';
import { foldChunks, UpstreamStreamError } from '../hub/index.ts';
import { decode } from './fixtures.test-helper.ts';
import { anthropicFormat } from './index.ts';

// The stream Anthropic's streaming guide shows for a tool call (text block, then a tool_use block).
const TOOL_STREAM =
  'event: message_start\n' +
  'data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message",' +
  '"role":"assistant","model":"claude-test-1","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},' +
  '"content":[],"stop_reason":null}}\n\n' +
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
  'data: {"type":"content_block_start","index":1,' +
  '"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":1,' +
  '"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}\n\n' +
  'event: content_block_delta\n' +
  'data: {"type":"content_block_delta","index":1,' +
  '"delta":{"type":"input_json_delta","partial_json":" \\"San Francisco, CA\\", \\"unit\\": \\"fahrenheit\\"}"}}\n\n' +
  'event: content_block_stop\n' +
  'data: {"type":"content_block_stop","index":1}\n\n' +
  'event: message_delta\n' +
  'data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},' +
  '"usage":{"output_tokens":89}}\n\n' +
  'event: message_stop\n' +
  'data: {"type":"message_stop"}\n\n';

const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const startToolUse = (index: number, id: string, name: string, input: object = {}) =>
  ev('content_block_start', { index, content_block: { type: 'tool_use', id, name, input } });
const inputJsonDelta = (index: number, partial_json: string) =>
  ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });

describe('provider side: Anthropic stream → hub chunks', () => {
  it("decodes the guide's tool stream into exact chunks", () => {
    const chunks = decode(TOOL_STREAM);
    const head = {
      id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
      object: 'chat.completion.chunk',
      created: chunks[0]!.created,
      model: 'claude-test-1',
    };
    const c = (delta: object, finish_reason: string | null = null, extra: object = {}) => ({
      ...head,
      choices: [{ index: 0, delta, finish_reason }],
      ...extra,
    });
    expect(chunks).toEqual([
      c({ role: 'assistant', content: '' }),
      c({ content: "Okay, let's check" }),
      c({ content: ' the weather:' }),
      c({
        tool_calls: [
          {
            index: 0,
            id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      c({ tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }),
      c({ tool_calls: [{ index: 0, function: { arguments: ' "San Francisco, CA", "unit": "fahrenheit"}' } }] }),
      c({}, 'tool_calls', { usage: { prompt_tokens: 472, completion_tokens: 89, total_tokens: 561 } }),
    ]);
  });

  it('gives the same result however the bytes are cut (every single cut point, and one byte at a time)', () => {
    const whole = foldChunks(decode(TOOL_STREAM));
    const { created: _c, ...expected } = whole;
    expect(JSON.parse(whole.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual({
      location: 'San Francisco, CA',
      unit: 'fahrenheit',
    });
    for (let cut = 1; cut < TOOL_STREAM.length; cut++) {
      const { created: _x, ...got } = foldChunks(decode(TOOL_STREAM, [cut]));
      expect(got).toEqual(expected);
    }
    const { created: _y, ...got } = foldChunks(decode(TOOL_STREAM, cutsEvery(TOOL_STREAM.length, 1)));
    expect(got).toEqual(expected);
  });

  it('keeps each tool call at its own index with two tool_use blocks, and reads thinking', () => {
    const text =
      ev('message_start', {
        message: {
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          model: 'claude',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      }) +
      ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }) +
      ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Two calls.' } }) +
      ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }) +
      ev('content_block_stop', { index: 0 }) +
      startToolUse(1, 'toolu_a', 'f') +
      inputJsonDelta(1, '{"n":') +
      inputJsonDelta(1, '1}') +
      ev('content_block_stop', { index: 1 }) +
      startToolUse(2, 'toolu_b', 'g') +
      inputJsonDelta(2, '{"m":2}') +
      ev('content_block_stop', { index: 2 }) +
      // A server that sends the whole input up front and no deltas.
      startToolUse(3, 'toolu_c', 'h', { k: 3 }) +
      ev('content_block_stop', { index: 3 }) +
      ev('message_delta', {
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 30 },
      }) +
      ev('message_stop', {});
    const res = foldChunks(decode(text));
    expect(res.choices[0]!.message).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: 'Two calls.',
      tool_calls: [
        toolCall('toolu_a', 'f', '{"n":1}'),
        toolCall('toolu_b', 'g', '{"m":2}'),
        toolCall('toolu_c', 'h', '{"k":3}'),
      ],
    });
    expect(res.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 30,
      total_tokens: 42,
      prompt_tokens_details: { cached_tokens: 7 },
    });
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('raises an error event as UpstreamStreamError, after handing over the chunks before it', () => {
    const text =
      TOOL_STREAM.split('event: content_block_stop')[0] +
      'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';
    const dec = anthropicFormat.streamDecoder('m');
    const got = dec.push(text);
    expect(foldChunks(got).choices[0]!.message.content).toBe("Okay, let's check the weather:");
    const err = caught(() => dec.end());
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect(err).toMatchObject({ message: 'Overloaded', code: 'upstream_error', status: 503 });

    const rate = anthropicFormat.streamDecoder('m');
    expect(() =>
      rate.push('event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}\n\n'),
    ).toThrow(expect.objectContaining({ code: 'upstream_rate_limited', status: 429 }));
  });

  it('raises a stream cut before message_stop, but accepts one that only misses message_stop', () => {
    const cut = TOOL_STREAM.split('event: content_block_stop\ndata: {"type":"content_block_stop","index":1}')[0]!;
    expect(() => decode(cut)).toThrow(/ended before message_stop/);
    expect(() => decode('')).toThrow(UpstreamStreamError);
    const noStop = TOOL_STREAM.replace('event: message_stop\ndata: {"type":"message_stop"}\n\n', '');
    expect(foldChunks(decode(noStop)).choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('raises on an event whose data is not JSON, after handing over the chunks before it', () => {
    const dec = anthropicFormat.streamDecoder('m');
    const start = TOOL_STREAM.split('event: content_block_start')[0]!;
    const got = dec.push(start + 'event: content_block_delta\ndata: {"type": "content_block_delta", "index"\n\n');
    expect(got).toHaveLength(1);
    expect(got[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(() => dec.push(ev('message_stop', {}))).toThrow(UpstreamStreamError);
    expect(() => dec.end()).toThrow(/not JSON/);
  });

  it('never loses chunks before a cut: push hands them over, end() raises with error.chunks empty', () => {
    const dec = anthropicFormat.streamDecoder('m');
    const got = dec.push(TOOL_STREAM.split('event: content_block_stop')[0]!);
    expect(foldChunks(got).choices[0]!.message.content).toBe("Okay, let's check the weather:");
    const err = caught(() => dec.end());
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect(err).toMatchObject({ message: expect.stringMatching(/ended before message_stop/), chunks: [] });
  });

  it('reads a whole tool input {"_raw": text} sent in content_block_start as the text', () => {
    const text =
      ev('message_start', { message: { id: 'msg_3', model: 'claude', usage: { input_tokens: 1, output_tokens: 1 } } }) +
      startToolUse(0, 'toolu_r', 'f', { _raw: 'Rome' }) +
      ev('content_block_stop', { index: 0 }) +
      ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } }) +
      ev('message_stop', {});
    const res = foldChunks(decode(text));
    expect(res.choices[0]!.message.tool_calls).toEqual([toolCall('toolu_r', 'f', 'Rome')]);
    expect(res.usage).toEqual({ prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 });
  });
});
