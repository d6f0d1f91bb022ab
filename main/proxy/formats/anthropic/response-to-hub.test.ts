// Provider side: Anthropic messages and error bodies read into the hub.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../errors.ts';
import { toolCall } from '../fixtures.test-helper.ts';
import { anthropicFormat } from './index.ts';

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
        tool_calls: [toolCall('toolu_01A', 'get_weather', '{"city":"San Francisco"}')],
      },
      finish_reason: 'tool_calls',
    });
    // Cache reads and writes count in prompt_tokens, and are said in the details too.
    expect(res.usage).toEqual({
      prompt_tokens: 1110,
      completion_tokens: 50,
      total_tokens: 1160,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 100 },
    });
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
    const res = anthropicFormat.responseToHub(
      { id: 'msg_1', type: 'message', content: [], stop_reason: stop },
      'asked',
    );
    expect(res.choices[0]!.finish_reason).toBe(finish);
    expect(res.choices[0]!.message.content).toBeNull();
    expect(res.model).toBe('asked');
  });

  it('reads tool_use input {"_raw": text} back as the text (the one tool-arguments policy)', () => {
    const content = [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { _raw: 'Rome' } }];
    const res = anthropicFormat.responseToHub({ id: 'msg_1', type: 'message', content, stop_reason: 'tool_use' }, 'm');
    expect(res.choices[0]!.message.tool_calls).toEqual([toolCall('toolu_1', 'f', 'Rome')]);
  });

  it('refuses an error body or a body that is not a message', () => {
    expect(() =>
      anthropicFormat.responseToHub({ type: 'error', error: { type: 'api_error', message: 'Internal' } }, 'm'),
    ).toThrow(/Internal/);
    expect(() => anthropicFormat.responseToHub('<html>', 'm')).toThrow(ApiError);
  });

  it('reads the message of an error body', () => {
    expect(
      anthropicFormat.errorMessage({
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
        request_id: 'req_1',
      }),
    ).toBe('Overloaded');
    expect(anthropicFormat.errorMessage({ error: 'plain' })).toBe('plain');
    expect(anthropicFormat.errorMessage('<html>')).toBeUndefined();
    expect(anthropicFormat.errorMessage({ type: 'error' })).toBeUndefined();
  });
});
