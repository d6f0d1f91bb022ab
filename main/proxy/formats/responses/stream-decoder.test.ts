// Provider side, SSE → hub chunks: exact chunks, cuts anywhere, events that only arrive at the end, errors.
import { describe, expect, it } from 'vitest';
import { caught, chunkMaker, cutsEvery, decodeCut } from '../fixtures.test-helper.ts';
import { foldChunks, type HubChunk, UpstreamStreamError } from '../hub/index.ts';
import { responsesFormat } from './index.ts';

/** The stream decoded whole, or in pieces of `pieceSize` characters. */
const decode = (text: string, pieceSize = 0): HubChunk[] =>
  decodeCut(responsesFormat, 'm', text, pieceSize > 0 ? cutsEvery(text.length, pieceSize) : []);

function sse(...payloads: Record<string, unknown>[]): string {
  return payloads
    .map((p, i) => `event: ${String(p.type)}\ndata: ${JSON.stringify({ ...p, sequence_number: i })}\n\n`)
    .join('');
}

describe('responses provider side: SSE → hub chunks', () => {
  const created = {
    type: 'response.created',
    response: {
      id: 'resp_1',
      object: 'response',
      created_at: 1741290958,
      status: 'in_progress',
      model: 'gpt-4.1',
      output: [],
    },
  };
  const textStream = sse(
    created,
    { type: 'response.in_progress', response: created.response },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    },
    {
      type: 'response.content_part.added',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    },
    {
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'Hi',
      logprobs: [],
    },
    {
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: ' there',
      logprobs: [],
    },
    {
      type: 'response.output_text.done',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      text: 'Hi there',
      logprobs: [],
    },
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hi there', annotations: [] }],
      },
    },
    {
      type: 'response.completed',
      response: {
        ...created.response,
        status: 'completed',
        usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
        output: [
          {
            id: 'msg_1',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Hi there', annotations: [] }],
          },
        ],
      },
    },
  );

  it('reads a text stream into the exact hub chunks', () => {
    const chunk = chunkMaker({ id: 'resp_1', created: 1741290958, model: 'gpt-4.1' });
    expect(decode(textStream)).toEqual([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hi' }),
      chunk({ content: ' there' }),
      chunk({}, 'stop', { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }),
    ]);
  });

  it('gives the same chunks whatever the cut, down to one character at a time', () => {
    const whole = decode(textStream);
    for (const size of [1, 2, 3, 7, 64]) expect(decode(textStream, size)).toEqual(whole);
  });

  const call = {
    id: 'fc_1',
    type: 'function_call',
    status: 'in_progress',
    arguments: '',
    call_id: 'call_1',
    name: 'get_weather',
  };
  const callStream = (middle: Record<string, unknown>[]) =>
    sse(created, { type: 'response.output_item.added', output_index: 0, item: call }, ...middle, {
      type: 'response.completed',
      response: {
        ...created.response,
        status: 'completed',
        output: [{ ...call, status: 'completed', arguments: '{"city":"Paris"}' }],
      },
    });

  it('reads function call deltas as tool call deltas with one index per call', () => {
    const chunks = decode(
      callStream([
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"city":' },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '"Paris"}' },
        {
          type: 'response.function_call_arguments.done',
          item_id: 'fc_1',
          output_index: 0,
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
        {
          type: 'response.output_item.done',
          output_index: 0,
          item: { ...call, status: 'completed', arguments: '{"city":"Paris"}' },
        },
      ]),
    );
    expect(chunks.map((c) => c.choices[0]?.delta.tool_calls?.[0])).toEqual([
      undefined,
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"city":' } },
      { index: 0, function: { arguments: '"Paris"}' } },
      undefined,
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('never loses arguments a server sends only in the done events or the final response', () => {
    for (const middle of [
      [
        {
          type: 'response.function_call_arguments.done',
          item_id: 'fc_1',
          output_index: 0,
          arguments: '{"city":"Paris"}',
        },
      ],
      [
        {
          type: 'response.output_item.done',
          output_index: 0,
          item: { ...call, status: 'completed', arguments: '{"city":"Paris"}' },
        },
      ],
      [{ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"city":' }],
      [],
    ]) {
      const folded = foldChunks(decode(callStream(middle)));
      expect(folded.choices[0]?.message.tool_calls).toEqual([
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ]);
    }
  });

  it('fills in text a server sends only in the final response, without repeating streamed text', () => {
    const onlyFinal = sse(created, {
      type: 'response.completed',
      response: {
        ...created.response,
        status: 'completed',
        output: [{ id: 'msg_9', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Late' }] }],
      },
    });
    expect(foldChunks(decode(onlyFinal)).choices[0]?.message.content).toBe('Late');
    expect(foldChunks(decode(textStream)).choices[0]?.message.content).toBe('Hi there');
  });

  it('reads events without an event: line, and ignores a trailing [DONE]', () => {
    const bare = textStream.replace(/^event: .*\n/gm, '') + 'data: [DONE]\n\n';
    expect(foldChunks(decode(bare)).choices[0]?.message.content).toBe('Hi there');
  });

  it('reads an incomplete response as a length finish', () => {
    const text = sse(created, {
      type: 'response.incomplete',
      response: {
        ...created.response,
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [],
      },
    });
    expect(decode(text).at(-1)?.choices[0]?.finish_reason).toBe('length');
  });

  it.each([
    ['the documented error event', { type: 'error', code: 'server_error', message: 'boom', param: null }],
    [
      'the live API error event (nested)',
      { type: 'error', error: { type: 'server_error', code: 'server_error', message: 'boom', param: null } },
    ],
    [
      'response.failed',
      {
        type: 'response.failed',
        response: { ...created.response, status: 'failed', error: { code: 'server_error', message: 'boom' } },
      },
    ],
  ])('raises UpstreamStreamError on %s', (_, event) => {
    const dec = responsesFormat.streamDecoder('m');
    dec.push(sse(created).slice(0, 40));
    // The shared decoder rules (hub/sse-json.ts): the chunks decoded before the error are handed over first...
    const before = dec.push(sse(created).slice(40) + sse(event).replace('"sequence_number":0', '"sequence_number":1'));
    expect(before.map((c) => c.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }]);
    // ...and the error is raised at the next call.
    const err = caught(() => dec.push(''));
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect(err).toMatchObject({ message: 'boom', code: 'server_error' });
  });

  it('raises when the stream ends before response.completed, or carries data that is not JSON', () => {
    const dec = responsesFormat.streamDecoder('m');
    dec.push(sse(created));
    expect(() => dec.end()).toThrow(UpstreamStreamError);
    expect(() => decode('data: {oops\n\n')).toThrow(/not JSON/);
  });

  it('skips empty events, and hands over the chunks before data that is not JSON, then raises', () => {
    const dec = responsesFormat.streamDecoder('m');
    const got = dec.push(sse(created) + 'data: \n\n' + 'data: {oops\n\n');
    expect(got.map((c) => c.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }]);
    expect(() => dec.push('')).toThrow(/not JSON/);
    expect(() => dec.end()).toThrow(UpstreamStreamError);
  });

  it('hands over every chunk of a stream cut before response.completed, then raises at end() with none left', () => {
    const dec = responsesFormat.streamDecoder('m');
    const delta = {
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'Hi',
    };
    const got = dec.push(sse(created, delta));
    expect(got.map((c) => c.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'Hi' }]);
    const err = caught(() => dec.end());
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect((err as UpstreamStreamError).message).toContain('ended before "response.completed"');
    expect((err as UpstreamStreamError).chunks).toEqual([]);
  });

  it('reads cached and reasoning tokens from the usage details of response.completed', () => {
    const details = {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 6,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 16,
    };
    const text = sse(created, {
      type: 'response.completed',
      response: { ...created.response, status: 'completed', usage: details },
    });
    expect(decode(text).at(-1)?.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 6,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 2 },
    });
  });
});
