// Client side, hub response → Response object: exact output items, incomplete finishes, the error body.
import { describe, expect, it } from 'vitest';
import { hubReply, toolCall } from '../fixtures.test-helper.ts';
import { base, ctx, echoed, responsesUsage, stableIds, usage } from './fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

describe('responses client side: hub response → response object', () => {
  it('writes a text response exactly', () => {
    const res = hubReply(base, { content: 'Hello there' }, 'stop', usage);
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
        {
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }],
        },
      ],
      usage: responsesUsage,
      ...echoed,
    });
  });

  it('writes text, a function call and reasoning as separate output items', () => {
    const message = {
      content: 'Let me check.',
      reasoning_content: 'The user wants weather.',
      tool_calls: [toolCall('call_abc', 'get_weather', '{"city":"Paris"}')],
    };
    const res = hubReply(base, message, 'tool_calls', usage);
    const wire = JSON.parse(stableIds(JSON.stringify(responsesFormat.responseFromHub(res, ctx))));
    expect(wire.status).toBe('completed');
    expect(wire.output).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        status: 'completed',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'The user wants weather.' }],
      },
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Let me check.', annotations: [], logprobs: [] }],
      },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_abc',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
    ]);
  });

  it('reports a length finish as incomplete with reason max_output_tokens', () => {
    const res = hubReply(base, { content: 'Once upon' }, 'length', usage);
    const wire = responsesFormat.responseFromHub(res, ctx) as any;
    expect(wire.status).toBe('incomplete');
    expect(wire.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(wire.output[0].status).toBe('incomplete');
  });

  it('writes cached and reasoning tokens into the usage details (zeros when there are none)', () => {
    const detailed = {
      prompt_tokens: 10,
      completion_tokens: 6,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 2 },
    };
    const res = hubReply(base, { content: 'Hi' }, 'stop', detailed);
    expect((responsesFormat.responseFromHub(res, ctx) as any).usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 6,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 16,
    });
    expect((responsesFormat.responseFromHub({ ...res, usage }, ctx) as any).usage).toEqual(responsesUsage);
  });

  it('writes the OpenAI error body and reads its message back', () => {
    const body = responsesFormat.errorBody({
      status: 400,
      code: 'invalid_request',
      type: 'invalid_request_error',
      message: 'Bad "tools".',
      action: 'Fix it.',
    });
    expect(body).toEqual({
      error: {
        message: 'Bad "tools".',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request',
        action: 'Fix it.',
      },
    });
    expect(responsesFormat.errorMessage(body)).toBe('Bad "tools".');
  });
});
