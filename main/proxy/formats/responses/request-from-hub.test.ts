// Provider side, hub request → Responses request: the exact body, dropped fields, the tool_choice and token limit.
import { describe, expect, it } from 'vitest';
import { toolCall } from '../fixtures.test-helper.ts';
import type { HubRequest } from '../hub/index.ts';
import { responsesFormat } from './index.ts';

describe('responses provider side: hub request → Responses request', () => {
  it('writes a full request exactly', () => {
    const req: HubRequest = {
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use metric.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://x/cat.png' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [toolCall('call_1', 'get_weather', '{"city":"Paris"}')],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'now' } },
      ],
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
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object' },
          strict: false,
        },
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
    const wire = responsesFormat.requestFromHub({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      max_completion_tokens: 500,
    }) as any;
    expect(wire.tool_choice).toEqual({ type: 'function', name: 'f' });
    expect(wire.max_output_tokens).toBe(500);
  });

  it("writes the hub reasoning effort as reasoning.effort (the budget is not Responses' own)", () => {
    const req: HubRequest = {
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'high',
      reasoning_budget: 20000,
    };
    const out = responsesFormat.requestFromHub(req) as Record<string, unknown>;
    expect(out.reasoning).toEqual({ effort: 'high' });
    expect(JSON.stringify(out)).not.toContain('20000');
    expect(responsesFormat.requestFromHub({ ...req, reasoning_effort: undefined }) as object).not.toHaveProperty(
      'reasoning',
    );
  });
});
