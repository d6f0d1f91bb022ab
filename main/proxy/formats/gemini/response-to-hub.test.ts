// Provider side: Gemini responses and error bodies as the hub's.
import { describe, expect, it } from 'vitest';
import { toolCall } from '../fixtures.test-helper.ts';
import { UpstreamStreamError } from '../hub/index.ts';
import { geminiFormat } from './index.ts';

describe('provider side: Gemini responses as hub responses', () => {
  it('reads text, thoughts and usage (thought tokens count as completion tokens)', () => {
    const res = geminiFormat.responseToHub(
      {
        candidates: [
          {
            content: {
              parts: [{ text: 'Thinking…', thought: true }, { text: 'Hello' }, { text: ' there' }],
              role: 'model',
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, thoughtsTokenCount: 10, totalTokenCount: 16 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'r-1',
      },
      'gemini-2.5-flash',
    );
    expect(res).toEqual({
      id: 'r-1',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there', reasoning_content: 'Thinking…' },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 4,
        completion_tokens: 12,
        total_tokens: 16,
        completion_tokens_details: { reasoning_tokens: 10 },
      },
    });
  });

  it('reads function calls as tool_calls with minted ids (or Gemini ids) and finish_reason tool_calls', () => {
    const res = geminiFormat.responseToHub(
      {
        candidates: [
          {
            content: {
              parts: [
                { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'abc' },
                { functionCall: { id: 'g-7', name: 'get_time' } },
              ],
              role: 'model',
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
      },
      'gemini-2.5-flash',
    );
    const message = res.choices[0]!.message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      toolCall(expect.stringMatching(/^call_/), 'get_weather', '{"city":"Paris"}'),
      toolCall('g-7', 'get_time', '{}'),
    ]);
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.model).toBe('gemini-2.5-flash');
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    ['OTHER', 'stop'],
  ])('maps finishReason %s to %s', (reason, finish) => {
    expect(
      geminiFormat.responseToHub({ candidates: [{ finishReason: reason, index: 0 }] }, 'm').choices[0]!.finish_reason,
    ).toBe(finish);
  });

  it('reads a blocked prompt (no candidates) as content_filter', () => {
    const res = geminiFormat.responseToHub(
      { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } },
      'm',
    );
    expect(res.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' },
    ]);
    expect(res.usage).toEqual({ prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 });
  });

  it('raises an error body given as a response', () => {
    expect(() =>
      geminiFormat.responseToHub({ error: { code: 429, message: 'Quota.', status: 'RESOURCE_EXHAUSTED' } }, 'm'),
    ).toThrow(UpstreamStreamError);
  });

  it('reads the message of Gemini error bodies: object, JSON-stream array, text', () => {
    const body = { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } };
    expect(geminiFormat.errorMessage(body)).toBe('API key not valid.');
    expect(geminiFormat.errorMessage([body])).toBe('API key not valid.');
    expect(geminiFormat.errorMessage(JSON.stringify(body, null, 2))).toBe('API key not valid.');
    expect(geminiFormat.errorMessage('<html>Bad gateway</html>')).toBeUndefined();
    expect(geminiFormat.errorMessage({ error: 'x' })).toBeUndefined();
  });
});

describe('provider side: usage through the usage map', () => {
  it('reads thoughts as reasoning tokens (inside completion) and cached content as cached prompt tokens', () => {
    const usageMetadata = {
      promptTokenCount: 10,
      cachedContentTokenCount: 6,
      candidatesTokenCount: 2,
      thoughtsTokenCount: 3,
      totalTokenCount: 15,
    };
    expect(
      geminiFormat.responseToHub({ candidates: [{ finishReason: 'STOP', index: 0 }], usageMetadata }, 'm').usage,
    ).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 6 },
      completion_tokens_details: { reasoning_tokens: 3 },
    });
  });
});
