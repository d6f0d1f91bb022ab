// Client side: hub responses as Gemini responses (read by the official client), and Gemini's error bodies.
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { hubReply, toolCall, withServer } from '../fixtures.test-helper.ts';
import { hubBase } from './fixtures.test-helper.ts';
import { geminiFormat } from './index.ts';

describe('client side: hub responses as Gemini responses', () => {
  it('writes a text reply exactly as generateContent answers', () => {
    const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
    const res = hubReply(hubBase, { content: 'Hello there' }, 'stop', usage);
    expect(geminiFormat.responseFromHub(res, { model: 'gemini-2.5-flash' })).toEqual({
      candidates: [{ content: { parts: [{ text: 'Hello there' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
      modelVersion: 'gpt-4o',
      responseId: 'chatcmpl-9',
    });
  });

  it('writes tool calls as functionCall parts with parsed args, ids, and finishReason STOP', () => {
    const calls = [
      toolCall('call_a', 'get_weather', '{"city":"Paris"}'),
      toolCall('call_b', 'get_time', ''),
      toolCall('call_c', 'broken', '{"city":"Par'),
    ];
    const res = hubReply(
      hubBase,
      { content: 'Checking.', reasoning_content: 'Need weather.', tool_calls: calls },
      'tool_calls',
    );
    expect(geminiFormat.responseFromHub(res, { model: 'gemini-2.5-flash' })).toEqual({
      candidates: [
        {
          content: {
            parts: [
              { text: 'Need weather.', thought: true },
              { text: 'Checking.' },
              { functionCall: { id: 'call_a', name: 'get_weather', args: { city: 'Paris' } } },
              { functionCall: { id: 'call_b', name: 'get_time', args: {} } },
              { functionCall: { id: 'call_c', name: 'broken', args: { _raw: '{"city":"Par' } } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      modelVersion: 'gpt-4o',
      responseId: 'chatcmpl-9',
    });
  });

  it.each([
    ['length', 'MAX_TOKENS'],
    ['content_filter', 'SAFETY'],
    ['stop', 'STOP'],
  ] as const)('maps finish_reason %s to %s', (finish, reason) => {
    const res = hubReply(hubBase, { content: null }, finish);
    const candidate = (geminiFormat.responseFromHub(res, { model: 'm' }) as { candidates: Record<string, unknown>[] })
      .candidates[0]!;
    expect(candidate.finishReason).toBe(reason);
    // A blocked reply has no content, as in Gemini; others keep an empty text part.
    expect(candidate.content).toEqual(
      finish === 'content_filter' ? undefined : { parts: [{ text: '' }], role: 'model' },
    );
  });

  it('is read by the official client (text, usage, functionCalls)', async () => {
    const res = hubReply(
      hubBase,
      { content: 'Sure.', tool_calls: [toolCall('call_a', 'get_weather', '{"city":"Oslo"}')] },
      'tool_calls',
      { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    );
    const body = JSON.stringify(geminiFormat.responseFromHub(res, { model: 'gemini-2.5-flash' }));
    await withServer(
      (_req, out) => {
        out.writeHead(200, { 'content-type': 'application/json' });
        out.end(body);
      },
      async (root) => {
        const ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: root } });
        const reply = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' });
        expect(reply.functionCalls).toEqual([{ id: 'call_a', name: 'get_weather', args: { city: 'Oslo' } }]);
        expect(reply.usageMetadata?.totalTokenCount).toBe(7);
        expect(reply.candidates?.[0]?.content?.parts?.[0]?.text).toBe('Sure.');
      },
    );
  });
});

describe('client side: error bodies', () => {
  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [402, 'RESOURCE_EXHAUSTED'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [502, 'UNAVAILABLE'],
    [503, 'UNAVAILABLE'],
    [504, 'DEADLINE_EXCEEDED'],
  ])('answers HTTP %i with status %s', (status, name) => {
    expect(geminiFormat.errorBody({ status, code: 'c', type: 't', message: 'Boom.' })).toEqual({
      error: {
        code: status,
        message: 'Boom.',
        status: name,
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'c', domain: 'switchboard' }],
      },
    });
  });

  it('puts the suggested action after the message, where Gemini clients show it', () => {
    const body = geminiFormat.errorBody({
      status: 503,
      code: 'no_healthy_provider',
      type: 'upstream_error',
      message: 'No provider is healthy.',
      action: 'Check the providers.',
    });
    expect(geminiFormat.errorMessage(body)).toBe('No provider is healthy. Check the providers.');
  });
});

describe('client side: usage through the usage map', () => {
  it('writes candidatesTokenCount without the reasoning tokens, and thoughts and cached tokens when non-zero', () => {
    const res = hubReply(hubBase, { content: 'x' }, 'stop', {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 6 },
      completion_tokens_details: { reasoning_tokens: 3 },
    });
    const body = geminiFormat.responseFromHub(res, { model: 'm' }) as { usageMetadata: unknown };
    expect(body.usageMetadata).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 2,
      totalTokenCount: 15,
      cachedContentTokenCount: 6,
      thoughtsTokenCount: 3,
    });
    const back = geminiFormat.responseToHub(body, 'm');
    expect(back.usage).toEqual(res.usage);
  });
});
