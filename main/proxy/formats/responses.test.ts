// Golden tests for the OpenAI Responses format: exact wire JSON both ways, the SSE event sequence, refusals,
// decoder edge cases (cut anywhere, events that only arrive at the end, errors), and the official openai client.
import http from 'node:http';
import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.ts';
import { foldChunks, type HubChunk, type HubRequest, type HubResponse, UpstreamStreamError } from './hub/index.ts';
import { responseToChunks } from './conformance.case.ts';
import { responsesFormat } from './responses.ts';

const ctx = { model: 'gpt-4.1' };

/** Replaces generated ids (resp_, msg_, fc_, rs_, call_) with stable names in order of appearance. */
function stableIds(text: string): string {
  const seen = new Map<string, string>();
  return text.replace(/\b(resp|msg|fc|rs|call)_[a-z0-9]{8,}\b/g, (id, prefix: string) => {
    if (!seen.has(id)) seen.set(id, `${prefix}_${[...seen.keys()].filter((k) => k.startsWith(prefix + '_')).length + 1}`);
    return seen.get(id)!;
  });
}

/** SSE text as [event name, payload] pairs, checking that each event line names its payload's type. */
function events(text: string): [string, any][] {
  const out: [string, any][] = [];
  const parser = createParser({ onEvent: (e) => out.push([e.event ?? '', JSON.parse(e.data)]) });
  parser.feed(stableIds(text));
  for (const [name, data] of out) expect(data.type).toBe(name);
  return out;
}

function encode(chunks: HubChunk[]): string {
  const enc = responsesFormat.streamEncoder(ctx);
  return chunks.map((c) => enc.chunk(c)).join('') + enc.end();
}

function decode(text: string, pieceSize = 0): HubChunk[] {
  const dec = responsesFormat.streamDecoder('m');
  const out: HubChunk[] = [];
  if (pieceSize <= 0) out.push(...dec.push(text));
  else for (let i = 0; i < text.length; i += pieceSize) out.push(...dec.push(text.slice(i, i + pieceSize)));
  out.push(...dec.end());
  return out;
}

function sse(...payloads: Record<string, unknown>[]): string {
  return payloads.map((p, i) => `event: ${String(p.type)}\ndata: ${JSON.stringify({ ...p, sequence_number: i })}\n\n`).join('');
}

function expectInvalid(body: unknown, ...fragments: string[]): void {
  let err: unknown;
  try {
    responsesFormat.requestToHub(body, {});
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ApiError);
  const api = err as ApiError;
  expect(api.status).toBe(400);
  expect(api.action).toBeTruthy();
  for (const f of fragments) expect(api.message).toContain(f);
}

const base = { id: 'chatcmpl-1', object: 'chat.completion' as const, created: 1700000000, model: 'provider-model' };
const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
const responsesUsage = {
  input_tokens: 5,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 7,
};
const echoed = {
  instructions: null,
  max_output_tokens: null,
  parallel_tool_calls: true,
  previous_response_id: null,
  store: false,
  temperature: null,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [],
  top_p: null,
  metadata: {},
};

describe('responses client side: request → hub', () => {
  it('converts a full request (instructions, items, tools, text format) exactly', () => {
    const hub = responsesFormat.requestToHub(
      {
        model: 'gpt-4.1',
        instructions: 'Be brief.',
        input: [
          { role: 'developer', content: 'Answer in French.' },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'Weather here?' },
              { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
            ],
          },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
          { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
          { type: 'function_call_output', call_id: 'call_1', output: '{"temp_c":21}' },
          { type: 'function_call_output', call_id: 'call_2', output: '{"temp_c":25}' },
        ],
        tools: [
          { type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true },
        ],
        tool_choice: { type: 'function', name: 'get_weather' },
        parallel_tool_calls: false,
        temperature: 0.2,
        top_p: 0.9,
        max_output_tokens: 300,
        text: { format: { type: 'json_schema', name: 'weather', schema: { type: 'object' }, strict: true } },
        user: 'u-1',
        store: true,
        reasoning: { effort: 'low' },
        metadata: { k: 'v' },
        truncation: 'auto',
        stream: true,
      },
      {},
    );
    expect(hub).toEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Answer in French.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
        { role: 'tool', tool_call_id: 'call_2', content: '{"temp_c":25}' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 300,
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: { type: 'object' }, strict: true } },
      user: 'u-1',
    });
  });

  it('takes a string input as one user message and json_object as response_format', () => {
    expect(responsesFormat.requestToHub({ model: 'm', input: 'Hi', text: { format: { type: 'json_object' } } }, {})).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      response_format: { type: 'json_object' },
    });
  });

  it('starts a new assistant message for a function call that follows a tool result', () => {
    const hub = responsesFormat.requestToHub(
      {
        model: 'm',
        input: [
          { role: 'user', content: 'go' },
          { type: 'function_call', call_id: 'c1', name: 'a', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'ok' },
          { type: 'function_call', call_id: 'c2', name: 'b', arguments: '{}' },
        ],
      },
      {},
    );
    expect(hub.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(hub.messages[1]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'a', arguments: '{}' } }] });
  });

  it('refuses previous_response_id and says to send the full input', () => {
    expectInvalid({ model: 'm', input: 'Hi', previous_response_id: 'resp_123' }, 'previous_response_id', 'does not store');
    try {
      responsesFormat.requestToHub({ model: 'm', input: 'Hi', previous_response_id: 'resp_123' }, {});
    } catch (e) {
      expect((e as ApiError).code).toBe('invalid_request');
      expect((e as ApiError).action).toContain('whole conversation in "input"');
    }
  });

  it.each(['web_search', 'web_search_preview', 'file_search', 'computer_use_preview', 'code_interpreter'])('refuses the built-in tool %s naming its type', (type) => {
    expectInvalid({ model: 'm', input: 'Hi', tools: [{ type }] }, `tools[0].type "${type}"`, 'cannot run built-in tools');
  });

  it('refuses an image given as file_id', () => {
    expectInvalid({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1', detail: 'auto' }] }] }, 'input[0].content[0].file_id');
  });

  it.each([
    [{ model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] }, 'item_reference'],
    [{ model: 'm', input: [{ type: 'computer_call_output', call_id: 'c' }] }, 'input[0].type "computer_call_output"'],
    [{ model: 'm', input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    [{ model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }, '"input_file"'],
    [{ model: 'm', input: 'Hi', tool_choice: { type: 'web_search_preview' } }, 'tool_choice'],
    [{ model: 'm', input: 'Hi', conversation: 'conv_1' }, 'conversation'],
    [{ model: 'm', input: 'Hi', background: true }, 'background'],
    [{ model: 'm' }, '"input"'],
    [{ model: 'm', input: 42 }, '"input"'],
    ['nonsense', 'JSON object'],
  ])('refuses %j', (body, fragment) => {
    expectInvalid(body, fragment);
  });

  it('asks for a model when there is none', () => {
    expect(() => responsesFormat.requestToHub({ input: 'Hi' }, {})).toThrow(expect.objectContaining({ code: 'model_required', status: 400 }));
  });
});

describe('responses client side: hub response → response object', () => {
  it('writes a text response exactly', () => {
    const res: HubResponse = { ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }], usage };
    const wire = JSON.parse(stableIds(JSON.stringify(responsesFormat.responseFromHub(res, ctx))));
    expect(wire).toEqual({
      id: 'resp_1',
      object: 'response',
      created_at: 1700000000,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'gpt-4.1',
      output: [
        { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }] },
      ],
      usage: responsesUsage,
      ...echoed,
    });
  });

  it('writes text, a function call and reasoning as separate output items', () => {
    const res: HubResponse = {
      ...base,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            reasoning_content: 'The user wants weather.',
            tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage,
    };
    const wire = JSON.parse(stableIds(JSON.stringify(responsesFormat.responseFromHub(res, ctx))));
    expect(wire.status).toBe('completed');
    expect(wire.output).toEqual([
      { type: 'reasoning', id: 'rs_1', status: 'completed', summary: [], content: [{ type: 'reasoning_text', text: 'The user wants weather.' }] },
      { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [], logprobs: [] }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
    ]);
  });

  it('reports a length finish as incomplete with reason max_output_tokens', () => {
    const res: HubResponse = { ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'Once upon' }, finish_reason: 'length' }], usage };
    const wire = responsesFormat.responseFromHub(res, ctx) as any;
    expect(wire.status).toBe('incomplete');
    expect(wire.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(wire.output[0].status).toBe('incomplete');
  });

  it('writes the OpenAI error body and reads its message back', () => {
    const body = responsesFormat.errorBody({ status: 400, code: 'invalid_request', type: 'invalid_request_error', message: 'Bad "tools".', action: 'Fix it.' });
    expect(body).toEqual({ error: { message: 'Bad "tools".', type: 'invalid_request_error', param: null, code: 'invalid_request', action: 'Fix it.' } });
    expect(responsesFormat.errorMessage(body)).toBe('Bad "tools".');
  });
});

describe('responses client side: hub chunks → SSE events', () => {
  it('writes the exact event sequence for a text reply', () => {
    const res: HubResponse = { ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }], usage };
    const text = encode(responseToChunks(res));
    expect(text.startsWith('event: response.created\ndata: {"type":"response.created","sequence_number":0,')).toBe(true);
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    const inProgress = { id: 'resp_1', object: 'response', created_at: 1700000000, status: 'in_progress', error: null, incomplete_details: null, model: 'gpt-4.1', output: [], usage: null, ...echoed };
    const message = { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }] };
    expect(events(text)).toEqual([
      ['response.created', { type: 'response.created', sequence_number: 0, response: inProgress }],
      ['response.in_progress', { type: 'response.in_progress', sequence_number: 1, response: inProgress }],
      ['response.output_item.added', { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] } }],
      ['response.content_part.added', { type: 'response.content_part.added', sequence_number: 3, ...at, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }],
      ['response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 4, ...at, delta: 'Hello there', logprobs: [] }],
      ['response.output_text.done', { type: 'response.output_text.done', sequence_number: 5, ...at, text: 'Hello there', logprobs: [] }],
      ['response.content_part.done', { type: 'response.content_part.done', sequence_number: 6, ...at, part: { type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] } }],
      ['response.output_item.done', { type: 'response.output_item.done', sequence_number: 7, output_index: 0, item: message }],
      ['response.completed', { type: 'response.completed', sequence_number: 8, response: { ...inProgress, status: 'completed', output: [message], usage: responsesUsage } }],
    ]);
  });

  it('writes function calls as items whose arguments arrive in deltas, keeping every piece', () => {
    const h = { id: 'c', object: 'chat.completion.chunk' as const, created: 1700000000, model: 'x' };
    const chunks: HubChunk[] = [
      { ...h, choices: [{ index: 0, delta: { role: 'assistant', content: 'Checking.' }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz"' } }] }, finish_reason: null }] },
      // Interleaved: more arguments for the first call after the second one started.
      { ...h, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: ':"CET"}' } }] }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { ...h, choices: [], usage },
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
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(list[8]![1]).toEqual({
      type: 'response.output_item.added',
      sequence_number: 8,
      output_index: 1,
      item: { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '', status: 'in_progress' },
    });
    expect(list[14]![1]).toEqual({ type: 'response.function_call_arguments.done', sequence_number: 14, item_id: 'fc_1', output_index: 1, name: 'get_weather', arguments: '{"city":"Paris"}' });
    const byItem = (id: string) => list.filter(([t, d]) => t === 'response.function_call_arguments.delta' && d.item_id === id).map(([, d]) => d.delta).join('');
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

  it('holds a call until its name arrives, then sends the arguments that came first', () => {
    const h = { id: 'c', object: 'chat.completion.chunk' as const, created: 1, model: 'x' };
    const list = events(
      encode([
        { ...h, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_x', function: { arguments: '{"a"' } }] }, finish_reason: null }] },
        { ...h, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: ':1}' } }] }, finish_reason: null }] },
        { ...h, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      ]),
    );
    const deltas = list.filter(([t]) => t === 'response.function_call_arguments.delta').map(([, d]) => d.delta);
    expect(deltas.join('')).toBe('{"a":1}');
    expect(list.find(([t]) => t === 'response.output_item.added')![1].item.name).toBe('f');
  });

  it('ends a length-limited stream with response.incomplete', () => {
    const res: HubResponse = { ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'Once upon' }, finish_reason: 'length' }], usage };
    const last = events(encode(responseToChunks(res))).at(-1)!;
    expect(last[0]).toBe('response.incomplete');
    expect(last[1].response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('writes reasoning as a reasoning item before the message', () => {
    const res: HubResponse = { ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'Yes.', reasoning_content: 'Think.' }, finish_reason: 'stop' }] };
    const list = events(encode(responseToChunks(res)));
    expect(list.find(([t]) => t === 'response.reasoning_text.delta')![1]).toMatchObject({ item_id: 'rs_1', output_index: 0, delta: 'Think.' });
    expect(list.at(-1)![1].response.output.map((o: any) => o.type)).toEqual(['reasoning', 'message']);
    expect(list.at(-1)![1].response.usage).toBeNull();
  });

  it('ends a failed stream with an error event, then response.failed', () => {
    const enc = responsesFormat.streamEncoder(ctx);
    const first = responseToChunks({ ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }] });
    const text = enc.chunk(first[0]!) + enc.chunk(first[1]!) + enc.error({ status: 502, code: 'upstream_error', type: 'upstream_error', message: 'Provider "x" failed mid-stream.' });
    const list = events(text);
    expect(list.at(-2)).toEqual([
      'error',
      {
        type: 'error',
        sequence_number: 5,
        code: 'upstream_error',
        message: 'Provider "x" failed mid-stream.',
        param: null,
        error: { type: 'upstream_error', code: 'upstream_error', message: 'Provider "x" failed mid-stream.', param: null },
      },
    ]);
    expect(list.at(-1)![1].response).toMatchObject({ status: 'failed', error: { code: 'upstream_error', message: 'Provider "x" failed mid-stream.' } });
    expect(list.at(-1)![1].response.output).toEqual([
      { type: 'message', id: 'msg_1', status: 'incomplete', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }] },
    ]);
    expect(enc.end()).toBe('');
  });

  it('answers an empty upstream stream with created, in_progress and completed', () => {
    expect(events(encode([])).map(([t]) => t)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
  });
});

describe('responses provider side: hub request → Responses request', () => {
  it('writes a full request exactly', () => {
    const req: HubRequest = {
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use metric.' },
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://x/cat.png' } }] },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } }, { type: 'function', function: { name: 'now' } }],
      tool_choice: 'required',
      parallel_tool_calls: true,
      temperature: 0.5,
      top_p: 0.9,
      max_tokens: 1,
      stop: ['END'],
      seed: 7,
      n: 1,
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      user: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
    };
    expect(responsesFormat.requestFromHub(req)).toEqual({
      model: 'gpt-4.1',
      input: [
        { type: 'message', role: 'system', content: 'Be brief.' },
        { type: 'message', role: 'developer', content: 'Use metric.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'https://x/cat.png', detail: 'auto' },
          ],
        },
        { type: 'message', role: 'assistant', content: 'Checking.' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp_c":21}' },
      ],
      tools: [
        { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: false },
        { type: 'function', name: 'now', parameters: null, strict: false },
      ],
      tool_choice: 'required',
      parallel_tool_calls: true,
      temperature: 0.5,
      top_p: 0.9,
      max_output_tokens: 16,
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      user: 'u-1',
      store: false,
      stream: true,
    });
  });

  it('names a function in tool_choice the Responses way', () => {
    const wire = responsesFormat.requestFromHub({ model: 'm', messages: [{ role: 'user', content: 'x' }], tool_choice: { type: 'function', function: { name: 'f' } }, max_completion_tokens: 500 }) as any;
    expect(wire.tool_choice).toEqual({ type: 'function', name: 'f' });
    expect(wire.max_output_tokens).toBe(500);
  });
});

describe('responses provider side: response → hub', () => {
  // The shape of OpenAI's API reference example for POST /v1/responses.
  const referenceText = {
    id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
    object: 'response',
    created_at: 1741476542,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: 'gpt-4.1-2025-04-14',
    output: [
      {
        type: 'message',
        id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'In a peaceful grove beneath a silver moon...', annotations: [] }],
      },
    ],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1.0,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1.0,
    truncation: 'disabled',
    usage: { input_tokens: 36, input_tokens_details: { cached_tokens: 0 }, output_tokens: 87, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 123 },
    user: null,
    metadata: {},
  };

  it('reads a text response exactly', () => {
    expect(responsesFormat.responseToHub(referenceText, 'm')).toEqual({
      id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
      object: 'chat.completion',
      created: 1741476542,
      model: 'gpt-4.1-2025-04-14',
      choices: [{ index: 0, message: { role: 'assistant', content: 'In a peaceful grove beneath a silver moon...' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 36, completion_tokens: 87, total_tokens: 123 },
    });
  });

  it('reads function calls and reasoning', () => {
    const hub = responsesFormat.responseToHub(
      {
        ...referenceText,
        output: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need weather.' }] },
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
        ],
      },
      'm',
    );
    expect(hub.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        reasoning_content: 'Need weather.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('reads incomplete as length or content_filter, and throws on failed', () => {
    const incomplete = (reason: string) => responsesFormat.responseToHub({ ...referenceText, status: 'incomplete', incomplete_details: { reason } }, 'm').choices[0]?.finish_reason;
    expect(incomplete('max_output_tokens')).toBe('length');
    expect(incomplete('content_filter')).toBe('content_filter');
    expect(() => responsesFormat.responseToHub({ ...referenceText, status: 'failed', error: { code: 'server_error', message: 'boom' } }, 'm')).toThrow(
      expect.objectContaining({ name: 'UpstreamStreamError', message: 'boom', code: 'server_error' }),
    );
  });

  it('reads the message of an OpenAI error body', () => {
    expect(responsesFormat.errorMessage({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } })).toBe('Rate limit reached');
    expect(responsesFormat.errorMessage({ error: 'plain' })).toBe('plain');
    expect(responsesFormat.errorMessage('nope')).toBeUndefined();
  });
});

describe('responses provider side: SSE → hub chunks', () => {
  const created = { type: 'response.created', response: { id: 'resp_1', object: 'response', created_at: 1741290958, status: 'in_progress', model: 'gpt-4.1', output: [] } };
  const textStream = sse(
    created,
    { type: 'response.in_progress', response: created.response },
    { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
    { type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi', logprobs: [] },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: ' there', logprobs: [] },
    { type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hi there', logprobs: [] },
    { type: 'response.output_item.done', output_index: 0, item: { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi there', annotations: [] }] } },
    {
      type: 'response.completed',
      response: { ...created.response, status: 'completed', usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 }, output: [{ id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi there', annotations: [] }] }] },
    },
  );

  it('reads a text stream into the exact hub chunks', () => {
    const h = { id: 'resp_1', object: 'chat.completion.chunk', created: 1741290958, model: 'gpt-4.1' };
    expect(decode(textStream)).toEqual([
      { ...h, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: { content: ' there' }, finish_reason: null }] },
      { ...h, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
    ]);
  });

  it('gives the same chunks whatever the cut, down to one character at a time', () => {
    const whole = decode(textStream);
    for (const size of [1, 2, 3, 7, 64]) expect(decode(textStream, size)).toEqual(whole);
  });

  const call = { id: 'fc_1', type: 'function_call', status: 'in_progress', arguments: '', call_id: 'call_1', name: 'get_weather' };
  const callStream = (middle: Record<string, unknown>[]) =>
    sse(created, { type: 'response.output_item.added', output_index: 0, item: call }, ...middle, {
      type: 'response.completed',
      response: { ...created.response, status: 'completed', output: [{ ...call, status: 'completed', arguments: '{"city":"Paris"}' }] },
    });

  it('reads function call deltas as tool call deltas with one index per call', () => {
    const chunks = decode(
      callStream([
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"city":' },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '"Paris"}' },
        { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 0, name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'response.output_item.done', output_index: 0, item: { ...call, status: 'completed', arguments: '{"city":"Paris"}' } },
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
      [{ type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 0, arguments: '{"city":"Paris"}' }],
      [{ type: 'response.output_item.done', output_index: 0, item: { ...call, status: 'completed', arguments: '{"city":"Paris"}' } }],
      [{ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"city":' }],
      [],
    ]) {
      const folded = foldChunks(decode(callStream(middle)));
      expect(folded.choices[0]?.message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    }
  });

  it('fills in text a server sends only in the final response, without repeating streamed text', () => {
    const onlyFinal = sse(created, {
      type: 'response.completed',
      response: { ...created.response, status: 'completed', output: [{ id: 'msg_9', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Late' }] }] },
    });
    expect(foldChunks(decode(onlyFinal)).choices[0]?.message.content).toBe('Late');
    expect(foldChunks(decode(textStream)).choices[0]?.message.content).toBe('Hi there');
  });

  it('reads events without an event: line, and ignores a trailing [DONE]', () => {
    const bare = textStream.replace(/^event: .*\n/gm, '') + 'data: [DONE]\n\n';
    expect(foldChunks(decode(bare)).choices[0]?.message.content).toBe('Hi there');
  });

  it('reads an incomplete response as a length finish', () => {
    const text = sse(created, { type: 'response.incomplete', response: { ...created.response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [] } });
    expect(decode(text).at(-1)?.choices[0]?.finish_reason).toBe('length');
  });

  it.each([
    ['the documented error event', { type: 'error', code: 'server_error', message: 'boom', param: null }],
    ['the live API error event (nested)', { type: 'error', error: { type: 'server_error', code: 'server_error', message: 'boom', param: null } }],
    ['response.failed', { type: 'response.failed', response: { ...created.response, status: 'failed', error: { code: 'server_error', message: 'boom' } } }],
  ])('raises UpstreamStreamError on %s', (_, event) => {
    const dec = responsesFormat.streamDecoder('m');
    dec.push(sse(created).slice(0, 40));
    let err: unknown;
    try {
      dec.push(sse(created).slice(40) + sse(event).replace('"sequence_number":0', '"sequence_number":1'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect(err).toMatchObject({ message: 'boom', code: 'server_error' });
  });

  it('raises when the stream ends before response.completed, or carries data that is not JSON', () => {
    const dec = responsesFormat.streamDecoder('m');
    dec.push(sse(created));
    expect(() => dec.end()).toThrow(UpstreamStreamError);
    expect(() => decode('data: {oops\n\n')).toThrow(/not JSON/);
  });
});

describe('responses client side: the official openai client reads what Switchboard writes', () => {
  let server: http.Server;
  let client: OpenAI;
  let reply: 'text' | 'tool' | 'fail' = 'text';
  const toolRes: HubResponse = {
    ...base,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","units":"C"}' } }] },
        finish_reason: 'tool_calls',
      },
    ],
    usage,
  };
  const textRes: HubResponse = { ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from switchboard' }, finish_reason: 'stop' }], usage };

  /** Splits every argument and text delta in two, as providers stream them. */
  const splitDeltas = (chunks: HubChunk[]): HubChunk[] =>
    chunks.flatMap((c) => {
      const d = c.choices[0]?.delta;
      const tc = d?.tool_calls?.[0];
      if (tc?.function?.arguments && tc.function.arguments.length > 4) {
        const a = tc.function.arguments;
        return [
          { ...c, choices: [{ index: 0, delta: { tool_calls: [{ ...tc, function: { name: tc.function.name, arguments: a.slice(0, 4) } }] }, finish_reason: null }] },
          { ...c, choices: [{ index: 0, delta: { tool_calls: [{ index: tc.index, function: { arguments: a.slice(4) } }] }, finish_reason: null }] },
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
          return res.end(JSON.stringify(responsesFormat.errorBody({ status: err.status, code: err.code, type: err.type, message: err.message, action: err.action })));
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
          return res.end(enc.error({ status: 502, code: 'upstream_error', type: 'upstream_error', message: 'Provider "p" failed mid-stream.' }));
        }
        for (const c of chunks) res.write(enc.chunk(c));
        res.end(enc.end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new OpenAI({ baseURL: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, apiKey: 'x', maxRetries: 0 });
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
    const tool = await client.responses.create({ model: 'gpt-4.1', input: 'weather?', tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: false }] });
    const call = tool.output[0];
    expect(call?.type === 'function_call' && [call.call_id, call.name, JSON.parse(call.arguments)]).toEqual(['call_w', 'get_weather', { city: 'Paris', units: 'C' }]);
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
    const err = await client.responses.create({ model: 'gpt-4.1', input: 'hi', previous_response_id: 'resp_1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_request');
  });
});
