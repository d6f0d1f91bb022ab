// Golden tests for the NDJSON encoder: one line per delta, whole tool calls, a final done line, the error line.
import { describe, expect, it } from 'vitest';
import { encodeStream, responseToChunks } from '../conformance.case.ts';
import { chunkMaker, toolCall, upstreamError } from '../fixtures.test-helper.ts';
import type { HubChunk } from '../hub/index.ts';
import { ctx, hubText, ISO, lines, timingsShape } from './fixtures.test-helper.ts';
import { ollamaFormat } from './index.ts';

const delta = chunkMaker({ id: 'x', created: 1, model: 'up' });

describe('ollama client side: hub stream → NDJSON', () => {
  it('writes one line per delta and a final done line (the reference stream)', () => {
    const enc = ollamaFormat.streamEncoder(ctx);
    expect(enc.contentType).toBe('application/x-ndjson');
    let text = '';
    for (const c of responseToChunks(hubText({ message: { role: 'assistant', content: 'The' } }))) text += enc.chunk(c);
    text += enc.end();
    expect(lines(text)).toEqual([
      {
        model: 'llama3.2',
        created_at: expect.stringMatching(ISO),
        message: { role: 'assistant', content: 'The' },
        done: false,
      },
      {
        model: 'llama3.2',
        created_at: expect.stringMatching(ISO),
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: 26,
        eval_count: 298,
        ...timingsShape,
      },
    ]);
    expect(enc.end()).toBe('');
  });

  it('buffers tool call arguments streamed a character at a time and writes every call whole in one line', () => {
    const argsA = '{"city":"Paris","units":{"temp":"C"}}';
    const argsB = '{"tz":"CET"}';
    const chunks: HubChunk[] = [delta({ role: 'assistant', content: '' }), delta({ content: 'Checking.' })];
    chunks.push(
      delta({
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      }),
    );
    chunks.push(
      delta({
        tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }],
      }),
    );
    // Interleave the two calls' arguments, one character per delta.
    for (let i = 0; i < Math.max(argsA.length, argsB.length); i++) {
      if (argsA[i]) chunks.push(delta({ tool_calls: [{ index: 0, function: { arguments: argsA[i] } }] }));
      if (argsB[i]) chunks.push(delta({ tool_calls: [{ index: 1, function: { arguments: argsB[i] } }] }));
    }
    chunks.push(delta({}, 'tool_calls'));
    const out = lines(encodeStream(ollamaFormat, chunks, ctx));
    expect(out.map((l) => l.message)).toEqual([
      { role: 'assistant', content: 'Checking.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { function: { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } } },
          { function: { name: 'get_time', arguments: { tz: 'CET' } } },
        ],
      },
      { role: 'assistant', content: '' },
    ]);
    expect(out.map((l) => l.done)).toEqual([false, false, true]);
    expect(out[2]?.done_reason).toBe('stop');
  });

  it('writes thinking deltas and, without provider usage, counts one token per delta', () => {
    const res = hubText({ message: { role: 'assistant', content: 'Hi', reasoning_content: 'Greeting.' } });
    delete res.usage;
    const out = lines(encodeStream(ollamaFormat, responseToChunks(res), ctx));
    expect(out[0]?.message).toEqual({ role: 'assistant', content: '', thinking: 'Greeting.' });
    expect(out[1]?.message).toEqual({ role: 'assistant', content: 'Hi' });
    expect(out[2]).toMatchObject({ done: true, prompt_eval_count: 0, eval_count: 2 });
  });

  it("ends a failed stream with Ollama's error line, a string, and writes nothing after it", () => {
    const enc = ollamaFormat.streamEncoder(ctx);
    const text = enc.error({ ...upstreamError('Provider "x" failed mid-stream.'), action: 'Retry.' });
    expect(text).toBe('{"error":"Provider \\"x\\" failed mid-stream. Retry."}\n');
    expect(enc.end()).toBe('');
  });

  it('writes streamed tool arguments that are not a JSON object as {"_raw": text} (for strict clients)', () => {
    const call = { index: 0, ...toolCall('call_a', 'f', '{"city": "Par') };
    const out = lines(encodeStream(ollamaFormat, [delta({ tool_calls: [call] }), delta({}, 'length')], ctx));
    expect(out[0]?.message).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ function: { name: 'f', arguments: { _raw: '{"city": "Par' } } }],
    });
    expect(out[1]).toMatchObject({ done: true, done_reason: 'length' });
  });
});
