// Provider side: Gemini SSE streams as hub chunks: cut bytes, error events, errors outside SSE framing.
import { describe, expect, it } from 'vitest';
import { caught, chunkMaker, decodeCut } from '../fixtures.test-helper.ts';
import { foldChunks, UpstreamStreamError } from '../hub/index.ts';
import { geminiFormat } from './index.ts';

describe('provider side: Gemini SSE streams as hub chunks', () => {
  // Shapes as generativelanguage.googleapis.com sends them (alt=sse, events ended by \r\n\r\n).
  const events = [
    {
      candidates: [{ content: { parts: [{ text: 'Let me' }], role: 'model' }, index: 0 }],
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'resp-1',
    },
    {
      candidates: [
        {
          content: {
            parts: [
              { text: ' check.' },
              {
                functionCall: { name: 'get_weather', args: { city: 'Paris', when: { day: 'today' } } },
                thoughtSignature: 'CikB',
              },
              { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 14, thoughtsTokenCount: 4, totalTokenCount: 27 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'resp-1',
    },
  ];
  const wire = events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join('');

  it('emits role, text, each functionCall as one complete tool call delta, then finish with usage', () => {
    const chunks = decodeCut(geminiFormat, 'gemini-2.5-flash', wire);
    const chunk = chunkMaker({ id: 'resp-1', created: expect.any(Number), model: 'gemini-2.5-flash' });
    const minted = (index: number, name: string, args: string) => ({
      index,
      id: expect.stringMatching(/^call_/),
      type: 'function' as const,
      function: { name, arguments: args },
    });
    expect(chunks).toEqual([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Let me' }),
      chunk({ content: ' check.' }),
      chunk({ tool_calls: [minted(0, 'get_weather', '{"city":"Paris","when":{"day":"today"}}')] }),
      chunk({ tool_calls: [minted(1, 'get_weather', '{"city":"Rome"}')] }),
      chunk({}, 'tool_calls', {
        prompt_tokens: 9,
        completion_tokens: 18,
        total_tokens: 27,
        completion_tokens_details: { reasoning_tokens: 4 },
      }),
    ]);
  });

  it('loses nothing when the bytes are cut at any position', () => {
    const whole = foldChunks(decodeCut(geminiFormat, 'm', wire));
    for (let cut = 1; cut < wire.length; cut++) {
      const folded = foldChunks(decodeCut(geminiFormat, 'm', wire, [cut]));
      expect(folded.choices[0]!.message.content).toBe('Let me check.');
      expect(folded.choices[0]!.message.tool_calls?.map((c) => c.function.arguments)).toEqual([
        '{"city":"Paris","when":{"day":"today"}}',
        '{"city":"Rome"}',
      ]);
      expect(folded.choices[0]!.finish_reason).toBe(whole.choices[0]!.finish_reason);
      expect(folded.usage).toEqual(whole.usage);
    }
  });

  it('raises an error event as UpstreamStreamError with its HTTP code', () => {
    const dec = geminiFormat.streamDecoder('m');
    dec.push(`data: ${JSON.stringify(events[0])}\r\n\r\n`);
    const err = caught(() =>
      dec.push(
        'data: {"error":{"code":429,"message":"Resource has been exhausted.","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n',
      ),
    );
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect(err).toMatchObject({
      message: 'Resource has been exhausted.',
      status: 429,
      code: 'upstream_rate_limited',
    });
  });

  it('raises a pretty-printed JSON error written outside SSE framing', () => {
    const body =
      '[{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded.",\n' +
      '    "status": "UNAVAILABLE"\n  }\n}\n]';
    const dec = geminiFormat.streamDecoder('m');
    expect(() => {
      for (const ch of body) dec.push(ch);
      dec.end();
    }).toThrow('The model is overloaded.');
    const mid = geminiFormat.streamDecoder('m');
    mid.push(`data: ${JSON.stringify(events[0])}\r\n\r\n`);
    expect(() =>
      mid.push(
        '{\n  "error": {\n    "code": 500,\n    "message": "Internal error.",\n    "status": "INTERNAL"\n  }\n}\n',
      ),
    ).toThrow(UpstreamStreamError);
  });

  it('raises an empty stream, and a stream that ends cleanly before its finishReason (a cut reply)', () => {
    expect(() => geminiFormat.streamDecoder('m').end()).toThrow(UpstreamStreamError);
    const dec = geminiFormat.streamDecoder('m');
    const got = dec.push(`data: ${JSON.stringify(events[0])}\r\n\r\n`);
    expect(got.map((c) => c.choices[0]!.delta.content)).toEqual(['', 'Let me']);
    expect(() => dec.end()).toThrow(/ended before its finishReason/);
  });

  it('raises a stream cut after a whole functionCall part but before the finishReason', () => {
    const dec = geminiFormat.streamDecoder('m');
    const call = { functionCall: { name: 'Read', args: { file_path: '/home/u' } } };
    const got = dec.push(
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [call], role: 'model' } }] })}\r\n\r\n`,
    );
    expect(got.at(-1)!.choices[0]!.delta.tool_calls).toHaveLength(1);
    expect(() => dec.end()).toThrow(/ended before its finishReason/);
  });

  it('reads a blocked prompt as content_filter', () => {
    const dec = geminiFormat.streamDecoder('m');
    const folded = foldChunks([
      ...dec.push(
        'data: {"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},' +
          '"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5}}\r\n\r\n',
      ),
      ...dec.end(),
    ]);
    expect(folded.choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'content_filter' });
    expect(folded.usage?.prompt_tokens).toBe(5);
  });
});

describe('provider side: the shared SSE-JSON decoder rules', () => {
  const event = (o: unknown) => `data: ${JSON.stringify(o)}\r\n\r\n`;
  const text = (t: string, finishReason?: string) => ({
    candidates: [
      { content: { parts: [{ text: t }], role: 'model' }, index: 0, ...(finishReason ? { finishReason } : {}) },
    ],
    responseId: 'r',
  });

  it('skips empty and [DONE] events', () => {
    const dec = geminiFormat.streamDecoder('m');
    const folded = foldChunks([
      ...dec.push(`data: \r\n\r\n${event(text('a', 'STOP'))}data: [DONE]\r\n\r\n`),
      ...dec.end(),
    ]);
    expect(folded.choices[0]).toMatchObject({ message: { content: 'a' }, finish_reason: 'stop' });
  });

  it('raises on an event that is not JSON, after handing over the chunks decoded before it', () => {
    const dec = geminiFormat.streamDecoder('m');
    const got = dec.push(event(text('a')) + 'data: {not json\r\n\r\n');
    expect(got.map((c) => c.choices[0]!.delta.content)).toEqual(['', 'a']);
    expect(() => dec.end()).toThrow(/not JSON/);
  });

  it('hands over the chunks before an error event (or a JSON error outside SSE) in the same push, then raises', () => {
    const dec = geminiFormat.streamDecoder('m');
    const got = dec.push(
      event(text('a')) + event({ error: { code: 429, message: 'Quota.', status: 'RESOURCE_EXHAUSTED' } }),
    );
    expect(got).toHaveLength(2);
    expect(() => dec.push(event(text('b')))).toThrow(UpstreamStreamError);
    expect(() => dec.end()).toThrow('Quota.');

    const stray = geminiFormat.streamDecoder('m');
    const before = stray.push(event(text('a')) + '{"error": {"code": 500, "message": "Internal error."}}\n');
    expect(before).toHaveLength(2);
    expect(() => stray.end()).toThrow('Internal error.');
  });
});
