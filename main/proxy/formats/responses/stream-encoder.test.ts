// Client side, hub chunks → SSE events: the exact event sequence, calls whose arguments arrive in pieces, finishes.
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { encodeStream, responseToChunks } from '../conformance.case.ts';
import { chunkMaker, hubReply, upstreamError, usageChunk } from '../fixtures.test-helper.ts';
import type { HubChunk } from '../hub/index.ts';
import { base, ctx, echoed, responsesUsage, stableIds, usage } from './fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

/** SSE text as [event name, payload] pairs, checking that each event line names its payload's type. */
function events(text: string): [string, any][] {
  const out: [string, any][] = [];
  const parser = createParser({ onEvent: (e) => out.push([e.event ?? '', JSON.parse(e.data)]) });
  parser.feed(stableIds(text));
  for (const [name, data] of out) expect(data.type).toBe(name);
  return out;
}

const encode = (chunks: HubChunk[]): string => encodeStream(responsesFormat, chunks, ctx);

describe('responses client side: hub chunks → SSE events', () => {
  it('writes the exact event sequence for a text reply', () => {
    const text = encode(responseToChunks(hubReply(base, { content: 'Hello there' }, 'stop', usage)));
    expect(text.startsWith('event: response.created\ndata: {"type":"response.created","sequence_number":0,')).toBe(
      true,
    );
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    const inProgress = {
      id: 'resp_1',
      object: 'response',
      created_at: 1700000000,
      status: 'in_progress',
      error: null,
      incomplete_details: null,
      model: 'gpt-4.1',
      output: [],
      usage: null,
      ...echoed,
    };
    const message = {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }],
    };
    expect(events(text)).toEqual([
      ['response.created', { type: 'response.created', sequence_number: 0, response: inProgress }],
      ['response.in_progress', { type: 'response.in_progress', sequence_number: 1, response: inProgress }],
      [
        'response.output_item.added',
        {
          type: 'response.output_item.added',
          sequence_number: 2,
          output_index: 0,
          item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] },
        },
      ],
      [
        'response.content_part.added',
        {
          type: 'response.content_part.added',
          sequence_number: 3,
          ...at,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        },
      ],
      [
        'response.output_text.delta',
        { type: 'response.output_text.delta', sequence_number: 4, ...at, delta: 'Hello there', logprobs: [] },
      ],
      [
        'response.output_text.done',
        { type: 'response.output_text.done', sequence_number: 5, ...at, text: 'Hello there', logprobs: [] },
      ],
      [
        'response.content_part.done',
        {
          type: 'response.content_part.done',
          sequence_number: 6,
          ...at,
          part: { type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] },
        },
      ],
      [
        'response.output_item.done',
        { type: 'response.output_item.done', sequence_number: 7, output_index: 0, item: message },
      ],
      [
        'response.completed',
        {
          type: 'response.completed',
          sequence_number: 8,
          response: { ...inProgress, status: 'completed', output: [message], usage: responsesUsage },
        },
      ],
    ]);
  });

  it('writes function calls as items whose arguments arrive in deltas, one item at a time, keeping every piece', () => {
    const h = { id: 'c', created: 1700000000, model: 'x' };
    const chunk = chunkMaker(h);
    const chunks = [
      chunk({ role: 'assistant', content: 'Checking.' }),
      chunk({
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({
        tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz"' } }],
      }),
      // Interleaved: more arguments for the first call after the second one started.
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':"CET"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk(h, usage),
    ];
    const list = events(encode(chunks));
    expect(list.map(([t]) => t)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      // The second call waits while the first is open (its late piece still streams): one item at a time.
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(list[8]![1]).toEqual({
      type: 'response.output_item.added',
      sequence_number: 8,
      output_index: 1,
      item: {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_a',
        name: 'get_weather',
        arguments: '',
        status: 'in_progress',
      },
    });
    expect(list[11]![1]).toEqual({
      type: 'response.function_call_arguments.done',
      sequence_number: 11,
      item_id: 'fc_1',
      output_index: 1,
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    const byItem = (id: string) =>
      list
        .filter(([t, d]) => t === 'response.function_call_arguments.delta' && d.item_id === id)
        .map(([, d]) => d.delta)
        .join('');
    expect(byItem('fc_1')).toBe('{"city":"Paris"}');
    expect(byItem('fc_2')).toBe('{"tz":"CET"}');
    const final = list.at(-1)![1].response;
    expect(final.output.map((o: any) => [o.type, o.arguments ?? o.content[0].text])).toEqual([
      ['message', 'Checking.'],
      ['function_call', '{"city":"Paris"}'],
      ['function_call', '{"tz":"CET"}'],
    ]);
    expect(final.usage).toEqual(responsesUsage);
    expect(list.map(([, d]) => d.sequence_number)).toEqual(list.map((_, i) => i));
  });

  it("closes each call's item before the next call's item is added (issue 32: Codex reads item by item)", () => {
    const chunk = chunkMaker({ id: 'c', created: 1, model: 'x' });
    const call = (index: number, name: string, args: string[]) => [
      chunk({ tool_calls: [{ index, id: `call_${name}`, type: 'function', function: { name, arguments: '' } }] }),
      ...args.map((a) => chunk({ tool_calls: [{ index, function: { arguments: a } }] })),
    ];
    const list = events(
      encode([
        ...call(0, 'Read', ['{"file_path":', '"/a"}']),
        ...call(1, 'Grep', ['{"pattern":', '"x"}']),
        chunk({}, 'tool_calls'),
      ]),
    );
    const items = list
      .filter(([t]) => t === 'response.output_item.added' || t === 'response.output_item.done')
      .map(([t, d]) => `${t.slice('response.output_item.'.length)} ${d.item.name}`);
    expect(items).toEqual(['added Read', 'done Read', 'added Grep', 'done Grep']);
    const done = list.filter(([t]) => t === 'response.output_item.done').map(([, d]) => d.item);
    expect(done.map((i: any) => [i.arguments, i.status])).toEqual([
      ['{"file_path":"/a"}', 'completed'],
      ['{"pattern":"x"}', 'completed'],
    ]);
  });

  it('never marks a call still open when the stream fails completed: no done event, incomplete in response.failed', () => {
    const chunk = chunkMaker({ id: 'c', created: 1, model: 'x' });
    const enc = responsesFormat.streamEncoder(ctx);
    let text = enc.chunk(
      chunk({ tool_calls: [{ index: 0, id: 'call_r', type: 'function', function: { name: 'Read', arguments: '' } }] }),
    );
    text += enc.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"file_path":"/home/u' } }] }));
    text += enc.error(upstreamError('Provider "x" failed mid-stream: cut.'));
    const list = events(text);
    expect(list.some(([t]) => t === 'response.output_item.done' || t === 'response.function_call_arguments.done')).toBe(
      false,
    );
    const failed = list.at(-1)!;
    expect(failed[0]).toBe('response.failed');
    expect(failed[1].response.output).toEqual([
      expect.objectContaining({ type: 'function_call', arguments: '{"file_path":"/home/u', status: 'incomplete' }),
    ]);
  });

  it('holds a call until its name arrives, then sends the arguments that came first', () => {
    const chunk = chunkMaker({ id: 'c', created: 1, model: 'x' });
    const list = events(
      encode([
        chunk({ tool_calls: [{ index: 0, id: 'call_x', function: { arguments: '{"a"' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: ':1}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    const deltas = list.filter(([t]) => t === 'response.function_call_arguments.delta').map(([, d]) => d.delta);
    expect(deltas.join('')).toBe('{"a":1}');
    expect(list.find(([t]) => t === 'response.output_item.added')![1].item.name).toBe('f');
  });

  it('ends a length-limited stream with response.incomplete', () => {
    const res = hubReply(base, { content: 'Once upon' }, 'length', usage);
    const last = events(encode(responseToChunks(res))).at(-1)!;
    expect(last[0]).toBe('response.incomplete');
    expect(last[1].response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });

  it('writes reasoning as a reasoning item before the message', () => {
    const res = hubReply(base, { content: 'Yes.', reasoning_content: 'Think.' }, 'stop');
    const list = events(encode(responseToChunks(res)));
    expect(list.find(([t]) => t === 'response.reasoning_text.delta')![1]).toMatchObject({
      item_id: 'rs_1',
      output_index: 0,
      delta: 'Think.',
    });
    expect(list.at(-1)![1].response.output.map((o: any) => o.type)).toEqual(['reasoning', 'message']);
    expect(list.at(-1)![1].response.usage).toBeNull();
  });

  it('ends a failed stream with an error event, then response.failed', () => {
    const enc = responsesFormat.streamEncoder(ctx);
    const first = responseToChunks(hubReply(base, { content: 'Hi' }, 'stop'));
    const text =
      enc.chunk(first[0]!) + enc.chunk(first[1]!) + enc.error(upstreamError('Provider "x" failed mid-stream.'));
    const list = events(text);
    expect(list.at(-2)).toEqual([
      'error',
      {
        type: 'error',
        sequence_number: 5,
        code: 'upstream_error',
        message: 'Provider "x" failed mid-stream.',
        param: null,
        error: {
          type: 'upstream_error',
          code: 'upstream_error',
          message: 'Provider "x" failed mid-stream.',
          param: null,
        },
      },
    ]);
    expect(list.at(-1)![1].response).toMatchObject({
      status: 'failed',
      error: { code: 'upstream_error', message: 'Provider "x" failed mid-stream.' },
    });
    expect(list.at(-1)![1].response.output).toEqual([
      {
        type: 'message',
        id: 'msg_1',
        status: 'incomplete',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }],
      },
    ]);
    expect(enc.end()).toBe('');
  });

  it('answers an empty upstream stream with created, in_progress and completed', () => {
    expect(events(encode([])).map(([t]) => t)).toEqual([
      'response.created',
      'response.in_progress',
      'response.completed',
    ]);
  });
});
