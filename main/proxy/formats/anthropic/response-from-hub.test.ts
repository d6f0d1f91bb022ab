// Client side: hub replies written as Anthropic messages (exact JSON, read by the official SDK), and error bodies.
import { describe, expect, it } from 'vitest';
import { hubReply, toolCall } from '../fixtures.test-helper.ts';
import { base, ctx, sdkAnswering, textResponse } from './fixtures.test-helper.ts';
import { anthropicFormat } from './index.ts';

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
    const calls = [
      toolCall('call_a', 'get_weather', '{"city":"Paris"}'),
      toolCall('call_b', 'get_weather', '{"city":'),
      toolCall('call_c', 'now', ''),
    ];
    // Some providers say "stop" with tool calls: Anthropic clients need tool_use to run them.
    const res = hubReply(base, { content: 'Let me check.', tool_calls: calls }, 'stop');
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
    const res = hubReply(base, { content: 'x' }, finish);
    expect((anthropicFormat.responseFromHub(res, ctx) as { stop_reason: string }).stop_reason).toBe(stop);
  });

  it('writes usage with the cache counters apart: input_tokens leaves out cache reads and writes', () => {
    const usage = {
      prompt_tokens: 1110,
      completion_tokens: 50,
      total_tokens: 1160,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 100 },
    };
    const body = anthropicFormat.responseFromHub({ ...textResponse, usage }, ctx) as Record<string, unknown>;
    expect(body.usage).toEqual({
      input_tokens: 10,
      output_tokens: 50,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 100,
    });
    const read = { ...usage, prompt_tokens_details: { cached_tokens: 1000 } };
    const readOnly = anthropicFormat.responseFromHub({ ...textResponse, usage: read }, ctx) as Record<string, unknown>;
    expect(readOnly.usage).toEqual({ input_tokens: 110, output_tokens: 50, cache_read_input_tokens: 1000 });
    expect(anthropicFormat.responseToHub(JSON.parse(JSON.stringify(body)), 'm').usage).toEqual(usage);
  });

  it('is read by the official SDK', async () => {
    const client = sdkAnswering(JSON.stringify(anthropicFormat.responseFromHub(textResponse, ctx)), 'application/json');
    const msg = await client.messages.create({
      model: 'claude-test-1',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'Hi! My name is Claude.' }]);
    expect(msg.usage.output_tokens).toBe(503);
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
    expect(anthropicFormat.errorBody({ status, code: 'x', type: 'x', message: 'Boom.' })).toEqual({
      type: 'error',
      error: { type, message: 'Boom.' },
    });
  });

  it('appends the action to the message, which is all Anthropic clients show', () => {
    const body = anthropicFormat.errorBody({
      status: 404,
      code: 'no_route',
      type: 'invalid_request_error',
      message: 'No route for model "x".',
      action: 'Add a route.',
    });
    expect(body).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'No route for model "x". Add a route.' },
    });
  });
});
