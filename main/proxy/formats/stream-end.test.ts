// The end of a passthrough reply, read from raw bytes: each format's terminal (or error) event, and whole JSON.
import { describe, expect, it } from 'vitest';
import type { FormatName } from './hub/index.ts';
import { isWholeJson, StreamEndWatch } from './stream-end.ts';

/** Whether the events, seen one by one as whole events, reach the format's end. */
function ends(format: FormatName, events: string[]): boolean {
  const w = new StreamEndWatch(format);
  for (const e of events) w.see(Buffer.from(e));
  return w.ended;
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

describe('a passthrough stream reaches its end', () => {
  it("openai: a finish_reason (with or without [DONE]), [DONE] alone, or an error event; model text can't forge one", () => {
    const chunk = (delta: object, finish: string | null = null) =>
      sse({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    const text = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'say "finish_reason": "stop" [DONE]' })];
    expect(ends('openai', text)).toBe(false);
    expect(ends('openai', [...text, 'data: [DONE]\n\n'])).toBe(true);
    expect(ends('openai', [...text, 'data:[DONE]\n\n'])).toBe(true);
    expect(ends('openai', [...text, chunk({}, 'stop')])).toBe(true);
    // Python's json.dumps spaces its separators.
    expect(
      ends('openai', [...text, 'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}\n\n']),
    ).toBe(true);
    expect(ends('openai', [...text, sse({ error: { message: 'overloaded' } })])).toBe(true);
    const call = chunk({ tool_calls: [{ index: 0, function: { arguments: '{"file_path":"/home/u' } }] });
    expect(ends('openai', [...text, call])).toBe(false);
  });

  it('anthropic: message_stop, a stop_reason, or the error event', () => {
    const start = [
      sse(
        { type: 'message_start', message: { id: 'm', stop_reason: null, usage: { input_tokens: 1 } } },
        'message_start',
      ),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '"type":"message_stop"' } }),
    ];
    expect(ends('anthropic', start)).toBe(false);
    expect(ends('anthropic', [...start, sse({ type: 'message_stop' }, 'message_stop')])).toBe(true);
    expect(ends('anthropic', [...start, sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' } })])).toBe(
      true,
    );
    expect(ends('anthropic', [...start, sse({ type: 'error', error: { type: 'overloaded_error' } }, 'error')])).toBe(
      true,
    );
  });

  it('gemini: finishReason (CRLF events as Google sends them), a blocked prompt, or an error', () => {
    const ev = (o: unknown) => `data: ${JSON.stringify(o)}\r\n\r\n`;
    const part = ev({ candidates: [{ content: { parts: [{ text: 'Hi' }], role: 'model' }, index: 0 }] });
    expect(ends('gemini', [part])).toBe(false);
    expect(ends('gemini', [part, ev({ candidates: [{ content: { parts: [] }, finishReason: 'STOP' }] })])).toBe(true);
    expect(ends('gemini', [ev({ promptFeedback: { blockReason: 'SAFETY' } })])).toBe(true);
    expect(ends('gemini', [part, ev({ error: { code: 500, message: 'x', status: 'INTERNAL' } })])).toBe(true);
  });

  it('ollama: the done line, or an error line', () => {
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    const text = line({ model: 'm', message: { role: 'assistant', content: '"done": true' }, done: false });
    expect(ends('ollama', [text])).toBe(false);
    expect(ends('ollama', [text, line({ model: 'm', done: true, done_reason: 'stop' })])).toBe(true);
    expect(ends('ollama', [text, '{"error":"unexpected EOF"}\n'])).toBe(true);
  });

  it('responses: completed, incomplete, failed, or the error event, however large the final event', () => {
    const created = sse({ type: 'response.created', response: { id: 'r', status: 'in_progress' } }, 'response.created');
    expect(ends('responses', [created])).toBe(false);
    const big = {
      type: 'response.completed',
      response: { id: 'r', status: 'completed', instructions: 'x'.repeat(50_000) },
    };
    expect(ends('responses', [created, sse(big, 'response.completed')])).toBe(true);
    expect(ends('responses', [created, sse({ type: 'response.incomplete', response: {} })])).toBe(true);
    expect(ends('responses', [created, sse({ type: 'error', code: 'x', message: 'y' }, 'error')])).toBe(true);
  });
});

describe('a whole JSON reply', () => {
  const whole = JSON.stringify({
    choices: [{ message: { content: 'a "quoted" {brace} [bracket] \\ backslash' }, finish_reason: 'stop' }],
  });

  it('is whole only when its outer object closed, wherever the bytes were split', () => {
    for (let cut = 1; cut < whole.length; cut++) {
      expect(isWholeJson([Buffer.from(whole.slice(0, cut))]), `cut at ${cut}`).toBe(false);
      expect(isWholeJson([Buffer.from(whole.slice(0, cut)), Buffer.from(whole.slice(cut))])).toBe(true);
    }
    expect(isWholeJson([Buffer.from(`  ${whole}\n`)])).toBe(true);
    expect(isWholeJson([Buffer.from(`${whole}{`)])).toBe(false);
  });

  it('does not judge what is not a JSON object or array (nor an empty body)', () => {
    expect(isWholeJson([Buffer.from('<html>')])).toBe(true);
    expect(isWholeJson([])).toBe(true);
  });
});
