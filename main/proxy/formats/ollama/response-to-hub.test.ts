// Golden tests for the provider side: a provider's /api/chat reply read into the hub.
import { describe, expect, it } from 'vitest';
import { hubReply, toolCall } from '../fixtures.test-helper.ts';
import { UpstreamStreamError } from '../hub/index.ts';
import { CALL_ID } from './fixtures.test-helper.ts';
import { ollamaFormat } from './index.ts';

describe('ollama provider side: /api/chat response → hub', () => {
  it('reads the reference tool call reply: minted ids, finish "tool_calls", usage from the counts', () => {
    const hub = ollamaFormat.responseToHub(
      {
        model: 'llama3.2',
        created_at: '2024-07-22T20:33:28.123648Z',
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [
            { function: { name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } } },
          ],
        },
        done_reason: 'stop',
        done: true,
        total_duration: 885095291,
        load_duration: 3753500,
        prompt_eval_count: 122,
        prompt_eval_duration: 328493000,
        eval_count: 33,
        eval_duration: 552222000,
      },
      'llama3.2',
    );
    const head = { id: expect.stringMatching(/^chatcmpl-/), created: 1721680408, model: 'llama3.2' };
    const call = toolCall(
      expect.stringMatching(CALL_ID),
      'get_current_weather',
      '{"format":"celsius","location":"Paris, FR"}',
    );
    const usage = { prompt_tokens: 122, completion_tokens: 33, total_tokens: 155 };
    expect(hub).toEqual(hubReply(head, { content: null, tool_calls: [call] }, 'tool_calls', usage));
  });

  it('reads text, "length" and thinking; a body carrying {"error"} raises', () => {
    const hub = ollamaFormat.responseToHub(
      {
        model: 'qwen3',
        message: { role: 'assistant', content: 'Once', thinking: 'Story time.' },
        done: true,
        done_reason: 'length',
        eval_count: 2,
      },
      'qwen3',
    );
    expect(hub.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Once', reasoning_content: 'Story time.' },
      finish_reason: 'length',
    });
    expect(hub.usage).toEqual({ prompt_tokens: 0, completion_tokens: 2, total_tokens: 2 });
    expect(() => ollamaFormat.responseToHub({ error: 'model "x" not found' }, 'x')).toThrow(UpstreamStreamError);
  });

  it('reads tool arguments {"_raw": text} back as the text, and string arguments as they came', () => {
    const calls = [
      { function: { name: 'f', arguments: { _raw: '{"city": "Par' } } },
      { function: { name: 'g', arguments: 'plain' } },
    ];
    const hub = ollamaFormat.responseToHub(
      { message: { role: 'assistant', content: '', tool_calls: calls }, done: true },
      'm',
    );
    expect(hub.choices[0]!.message.tool_calls!.map((c) => c.function.arguments)).toEqual(['{"city": "Par', 'plain']);
  });

  it('reads the message of an error body with the shared reader (hub/errors.ts)', () => {
    expect(() => ollamaFormat.responseToHub({ error: { message: 'from a proxy' } }, 'x')).toThrow('from a proxy');
    expect(() => ollamaFormat.responseToHub({ error: '' }, 'x')).toThrow('the Ollama provider reported an error');
    expect(ollamaFormat.errorMessage({ message: 'bare' })).toBe('bare');
  });
});
