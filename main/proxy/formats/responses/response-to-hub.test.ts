// Provider side, Response → hub: the API reference's example read exactly, calls and reasoning, finishes, errors.
import { describe, expect, it } from 'vitest';
import { toolCall } from '../fixtures.test-helper.ts';
import { parisCall } from './fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

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
    usage: {
      input_tokens: 36,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 87,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 123,
    },
    user: null,
    metadata: {},
  };

  it('reads a text response exactly', () => {
    expect(responsesFormat.responseToHub(referenceText, 'm')).toEqual({
      id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
      object: 'chat.completion',
      created: 1741476542,
      model: 'gpt-4.1-2025-04-14',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'In a peaceful grove beneath a silver moon...' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 36, completion_tokens: 87, total_tokens: 123 },
    });
  });

  it('reads cached and reasoning tokens from the usage details', () => {
    const usage = {
      input_tokens: 36,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 87,
      output_tokens_details: { reasoning_tokens: 64 },
      total_tokens: 123,
    };
    expect(responsesFormat.responseToHub({ ...referenceText, usage }, 'm').usage).toEqual({
      prompt_tokens: 36,
      completion_tokens: 87,
      total_tokens: 123,
      prompt_tokens_details: { cached_tokens: 30 },
      completion_tokens_details: { reasoning_tokens: 64 },
    });
  });

  it('reads function calls and reasoning', () => {
    const hub = responsesFormat.responseToHub(
      {
        ...referenceText,
        output: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need weather.' }] },
          parisCall,
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
        tool_calls: [toolCall('call_1', 'get_weather', '{"city":"Paris"}')],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('reads incomplete as length or content_filter, and throws on failed', () => {
    const incomplete = (reason: string) =>
      responsesFormat.responseToHub({ ...referenceText, status: 'incomplete', incomplete_details: { reason } }, 'm')
        .choices[0]?.finish_reason;
    expect(incomplete('max_output_tokens')).toBe('length');
    expect(incomplete('content_filter')).toBe('content_filter');
    expect(() =>
      responsesFormat.responseToHub(
        { ...referenceText, status: 'failed', error: { code: 'server_error', message: 'boom' } },
        'm',
      ),
    ).toThrow(expect.objectContaining({ name: 'UpstreamStreamError', message: 'boom', code: 'server_error' }));
  });

  it('reads the message of an OpenAI error body', () => {
    expect(
      responsesFormat.errorMessage({
        error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      }),
    ).toBe('Rate limit reached');
    expect(responsesFormat.errorMessage({ error: 'plain' })).toBe('plain');
    expect(responsesFormat.errorMessage('nope')).toBeUndefined();
  });
});
