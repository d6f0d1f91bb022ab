// Client side, request → hub: exact conversion, and every refusal names the field and says what to send.
import { describe, expect, it } from 'vitest';
import { badRequest, toolCall } from '../fixtures.test-helper.ts';
import { parisCall } from './fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

/** Expects the body refused with a 400 whose message holds each fragment and which says what to send. */
const expectInvalid = (body: unknown, ...fragments: string[]) =>
  badRequest(() => responsesFormat.requestToHub(body, {}), ...fragments);

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
          {
            type: 'message',
            id: 'msg_1',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }],
          },
          parisCall,
          { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
          { type: 'function_call_output', call_id: 'call_1', output: '{"temp_c":21}' },
          { type: 'function_call_output', call_id: 'call_2', output: '{"temp_c":25}' },
        ],
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            strict: true,
          },
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
            toolCall('call_1', 'get_weather', '{"city":"Paris"}'),
            toolCall('call_2', 'get_weather', '{"city":"Rome"}'),
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
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            strict: true,
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 300,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'weather', schema: { type: 'object' }, strict: true },
      },
      user: 'u-1',
      reasoning_effort: 'low',
    });
  });

  it('takes a string input as one user message and json_object as response_format', () => {
    expect(
      responsesFormat.requestToHub({ model: 'm', input: 'Hi', text: { format: { type: 'json_object' } } }, {}),
    ).toEqual({
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
    expect(hub.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('c1', 'a', '{}')],
    });
  });

  it('refuses previous_response_id and says to send the full input', () => {
    const e = expectInvalid(
      { model: 'm', input: 'Hi', previous_response_id: 'resp_123' },
      'previous_response_id',
      'does not store',
    );
    expect(e.code).toBe('invalid_request');
    expect(e.action).toContain('whole conversation in "input"');
  });

  it.each(['file_search', 'computer_use_preview', 'code_interpreter', 'image_generation'])(
    'refuses the built-in tool %s naming its type',
    (type) => {
      expectInvalid(
        { model: 'm', input: 'Hi', tools: [{ type }] },
        `tools[0].type "${type}"`,
        "a tool OpenAI's servers run",
      );
    },
  );

  it('refuses an image given as file_id', () => {
    expectInvalid(
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1', detail: 'auto' }] }] },
      'input[0].content[0].file_id',
    );
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

  it.each([
    ['temperature', 'hot'],
    ['top_p', '0.9'],
    ['max_output_tokens', '300'],
  ])('refuses a %s of the wrong type, naming the field (it was ignored before)', (field, value) => {
    expectInvalid({ model: 'm', input: 'Hi', [field]: value }, `"${field}" must be a number`);
  });

  it.each([0, 2.5])('refuses a max_output_tokens of %j: a whole number of at least 1', (value) => {
    expectInvalid({ model: 'm', input: 'Hi', max_output_tokens: value }, '"max_output_tokens" must be a whole number');
  });

  it('refuses a model that is not a string', () => {
    expectInvalid({ model: 42, input: 'Hi' }, '"model" must be a string');
  });

  it('asks for a model when there is none', () => {
    expect(() => responsesFormat.requestToHub({ input: 'Hi' }, {})).toThrow(
      expect.objectContaining({ code: 'model_required', status: 400 }),
    );
  });
});
