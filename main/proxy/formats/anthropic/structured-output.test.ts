// Provider side: structured output toward Anthropic — response_format as a forced answer tool in the request, and
// that tool's input as the assistant's text in replies and streams (a normal stop, not tool_calls).
import { describe, expect, it } from 'vitest';
import { badRequest, cutsEvery } from '../fixtures.test-helper.ts';
import { foldChunks, type HubRequest, type HubResponseFormat } from '../hub/index.ts';
import { decode } from './fixtures.test-helper.ts';
import { anthropicFormat } from './index.ts';
import type { AnthropicRequest } from './types.ts';

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temp_c: { type: 'number' } },
  required: ['city', 'temp_c'],
};
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const body = (fields: Partial<HubRequest>): AnthropicRequest =>
  anthropicFormat.requestFromHub({
    model: 'claude-sonnet-4-5',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    ...fields,
  }) as AnthropicRequest;
const jsonSchema = (s: Record<string, unknown>, name = 'response'): HubResponseFormat => ({
  type: 'json_schema',
  json_schema: { name, schema: s },
});

describe('provider side: response_format → a forced answer tool', () => {
  it('turns a json_schema into the answer tool, forced by name', () => {
    const out = body({ response_format: jsonSchema(schema, 'weather_report') });
    expect(out.tools).toEqual([
      {
        name: 'switchboard_json_answer',
        description: expect.stringContaining('The answer is a weather_report.'),
        input_schema: schema,
      },
    ]);
    expect(out.tool_choice).toEqual({ type: 'tool', name: 'switchboard_json_answer' });
  });

  it('turns json_object (Ollama "json", Gemini responseMimeType alone) into an open object schema', () => {
    const out = body({ response_format: { type: 'json_object' } });
    expect(out.tools?.[0]?.input_schema).toEqual({ type: 'object', properties: {}, additionalProperties: true });
    expect(out.tool_choice).toEqual({ type: 'tool', name: 'switchboard_json_answer' });
  });

  it('reads a root with properties and no type as an object', () => {
    const out = body({ response_format: jsonSchema({ properties: { a: { type: 'string' } } }) });
    expect(out.tools?.[0]?.input_schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('wraps a schema whose root is not an object as {"value": …}, its definitions kept at the root', () => {
    const list = { type: 'array', items: { $ref: '#/$defs/city' }, $defs: { city: { type: 'string' } } };
    const out = body({ response_format: jsonSchema(list) });
    expect(out.tools?.[0]).toMatchObject({
      name: 'switchboard_json_value',
      input_schema: {
        type: 'object',
        properties: { value: { type: 'array', items: { $ref: '#/$defs/city' } } },
        required: ['value'],
        $defs: { city: { type: 'string' } },
      },
    });
    expect(out.tool_choice).toEqual({ type: 'tool', name: 'switchboard_json_value' });
  });

  it('sends nothing for response_format text', () => {
    const out = body({ response_format: { type: 'text' } });
    expect([out.tools, out.tool_choice]).toEqual([undefined, undefined]);
  });

  it('with the client\'s tools (tool_choice auto or none given): adds the answer tool and asks for "any" tool', () => {
    for (const choice of ['auto', undefined] as const) {
      const out = body({ response_format: jsonSchema(schema), tools: [weather], tool_choice: choice });
      expect(out.tools?.map((t) => t.name)).toEqual(['get_weather', 'switchboard_json_answer']);
      expect(out.tool_choice).toEqual({ type: 'any' });
    }
    const serial = body({ response_format: jsonSchema(schema), tools: [weather], parallel_tool_calls: false });
    expect(serial.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });

  it("with tool_choice none: keeps the client's tools listed and forces the answer tool", () => {
    const out = body({ response_format: jsonSchema(schema), tools: [weather], tool_choice: 'none' });
    expect(out.tools?.map((t) => t.name)).toEqual(['get_weather', 'switchboard_json_answer']);
    expect(out.tool_choice).toEqual({ type: 'tool', name: 'switchboard_json_answer' });
  });

  it('adds nothing when the client forces its own tool (that reply is a tool call)', () => {
    const named = { type: 'function' as const, function: { name: 'get_weather' } };
    for (const choice of ['required', named] as const) {
      const out = body({ response_format: jsonSchema(schema), tools: [weather], tool_choice: choice });
      expect(out.tools?.map((t) => t.name)).toEqual(['get_weather']);
    }
  });

  it("refuses a client tool that takes an answer tool's name", () => {
    const clash = { type: 'function' as const, function: { name: 'switchboard_json_answer' } };
    badRequest(() => body({ tools: [clash] }), '"switchboard_json_answer" is reserved');
  });
});

describe("provider side: the answer tool's call → the assistant's text", () => {
  const reply = (content: object[], stop_reason = 'tool_use') =>
    anthropicFormat.responseToHub(
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content,
        stop_reason,
        usage: { input_tokens: 20, output_tokens: 12 },
      },
      'm',
    ).choices[0];

  it("reads the answer tool's input as text, and tool_use as a normal stop", () => {
    const choice = reply([
      { type: 'tool_use', id: 'toolu_1', name: 'switchboard_json_answer', input: { city: 'Paris', temp_c: 21 } },
    ]);
    expect(choice).toEqual({
      index: 0,
      message: { role: 'assistant', content: '{"city":"Paris","temp_c":21}' },
      finish_reason: 'stop',
    });
  });

  it('reads the value tool\'s "value" as the text', () => {
    const choice = reply([{ type: 'tool_use', id: 't', name: 'switchboard_json_value', input: { value: ['a', 'b'] } }]);
    expect(choice?.message.content).toBe('["a","b"]');
  });

  it("keeps the client's own calls beside it, and then ends as tool_calls", () => {
    const choice = reply([
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'toolu_2', name: 'switchboard_json_answer', input: { city: 'Paris', temp_c: 21 } },
    ]);
    expect(choice?.message.content).toBe('{"city":"Paris","temp_c":21}');
    expect(choice?.message.tool_calls?.map((c) => c.function.name)).toEqual(['get_weather']);
    expect(choice?.finish_reason).toBe('tool_calls');
  });

  it('keeps max_tokens as length', () => {
    const choice = reply([{ type: 'tool_use', id: 't', name: 'switchboard_json_answer', input: {} }], 'max_tokens');
    expect(choice?.finish_reason).toBe('length');
  });
});

const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
/** A stream whose one block is a call of `name`, its input JSON in `pieces`. */
const answerStream = (name: string, pieces: string[], startInput: object = {}) =>
  ev('message_start', {
    message: {
      id: 'msg_s',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      usage: { input_tokens: 30, output_tokens: 1 },
    },
  }) +
  ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_9', name, input: startInput } }) +
  pieces
    .map((p) => ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: p } }))
    .join('') +
  ev('content_block_stop', { index: 0 }) +
  ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 15 } }) +
  ev('message_stop', {});

describe('provider side: the answer tool streamed → text deltas', () => {
  const pieces = ['', '{"city": "Par', 'is", "temp_c"', ': 21}'];

  it('streams its input_json_delta as content deltas, however the bytes are cut, and stops normally', () => {
    const text = answerStream('switchboard_json_answer', pieces);
    for (const cuts of [[], cutsEvery(text.length, 7)]) {
      const chunks = decode(text, cuts);
      expect(chunks.map((c) => c.choices[0]?.delta.content).filter(Boolean)).toEqual(pieces.slice(1));
      expect(chunks.some((c) => c.choices[0]?.delta.tool_calls)).toBe(false);
      const folded = foldChunks(chunks);
      expect(folded.choices[0]).toMatchObject({
        message: { content: '{"city": "Paris", "temp_c": 21}' },
        finish_reason: 'stop',
      });
      expect(folded.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 15 });
    }
  });

  it("sends the value tool's answer whole when its block stops", () => {
    const chunks = decode(answerStream('switchboard_json_value', ['{"value": ', '[1, 2', ', 3]}']));
    expect(chunks.map((c) => c.choices[0]?.delta.content).filter(Boolean)).toEqual(['[1,2,3]']);
    expect(foldChunks(chunks).choices[0]?.finish_reason).toBe('stop');
  });

  it('reads an input sent whole in content_block_start (some Anthropic-compatible servers)', () => {
    const chunks = decode(answerStream('switchboard_json_answer', [], { city: 'Oslo', temp_c: 3 }));
    expect(foldChunks(chunks).choices[0]?.message.content).toBe('{"city":"Oslo","temp_c":3}');
  });
});
