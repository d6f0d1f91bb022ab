// Golden tests for the client side of /api/chat replies: exact wire JSON as Ollama's API reference shows it.
import { describe, expect, it } from 'vitest';
import { toolCall } from '../fixtures.test-helper.ts';
import { ctx, hubText, ISO, timingsShape } from './fixtures.test-helper.ts';
import { ollamaFormat } from './index.ts';

describe('ollama client side: hub response → /api/chat response', () => {
  it("writes the reference non-stream reply, with the client's model and nanosecond timings", () => {
    const body = ollamaFormat.responseFromHub(hubText(), ctx);
    expect(body).toEqual({
      model: 'llama3.2',
      created_at: expect.stringMatching(ISO),
      message: { role: 'assistant', content: 'Hello! How are you today?' },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 26,
      eval_count: 298,
      ...timingsShape,
    });
  });

  it("measures the durations from the response's creation, split between prompt and reply by tokens", () => {
    const res = hubText({}, { prompt_tokens: 100, completion_tokens: 300, total_tokens: 400 });
    res.created = Math.floor(Date.now() / 1000) - 2;
    const body = ollamaFormat.responseFromHub(res, ctx) as Record<string, number>;
    for (const k of ['total_duration', 'prompt_eval_duration', 'eval_duration'])
      expect(Number.isInteger(body[k])).toBe(true);
    expect(body.total_duration).toBeGreaterThanOrEqual(1e9);
    expect(body.total_duration).toBeLessThan(4e9);
    expect(body.prompt_eval_duration! + body.eval_duration!).toBe(body.total_duration);
    expect(body.prompt_eval_duration! / body.total_duration!).toBeCloseTo(0.25, 2);
  });

  it('writes tool calls with object arguments and done_reason "stop", as Ollama does', () => {
    const res = hubText({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          toolCall('call_a', 'get_current_weather', '{"format":"celsius","location":"Paris, FR"}'),
          toolCall('call_b', 'get_time', ''),
        ],
      },
      finish_reason: 'tool_calls',
    });
    const body = ollamaFormat.responseFromHub(res, ctx) as Record<string, unknown>;
    expect(body.message).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } } },
        { function: { name: 'get_time', arguments: {} } },
      ],
    });
    expect(body.done_reason).toBe('stop');
  });

  it('writes a cut reply as "length", reasoning as thinking, and keeps unparseable arguments as {"_raw": text}', () => {
    const res = hubText({
      message: {
        role: 'assistant',
        content: 'Once',
        reasoning_content: 'hmm',
        tool_calls: [toolCall('c', 'f', '{"city":"Par')],
      },
      finish_reason: 'length',
    });
    const body = ollamaFormat.responseFromHub(res, ctx) as { message: unknown; done_reason: string };
    expect(body.done_reason).toBe('length');
    expect(body.message).toEqual({
      role: 'assistant',
      content: 'Once',
      thinking: 'hmm',
      tool_calls: [{ function: { name: 'f', arguments: { _raw: '{"city":"Par' } } }],
    });
  });
});
