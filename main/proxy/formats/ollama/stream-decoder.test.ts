// Golden tests for the NDJSON decoder: streams cut anywhere, whole tool call lines, skipped lines, error lines.
import { describe, expect, it } from 'vitest';
import { caught, chunkMaker, cutsEvery, decodeCut } from '../fixtures.test-helper.ts';
import { foldChunks, type HubChunk, UpstreamStreamError } from '../hub/index.ts';
import { CALL_ID } from './fixtures.test-helper.ts';
import { ollamaFormat } from './index.ts';

describe('ollama provider side: NDJSON stream → hub chunks', () => {
  const reference =
    '{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00",' +
    '"message":{"role":"assistant","content":"The","images":null},"done":false}\n' +
    '{"model":"llama3.2","created_at":"2023-08-04T08:52:19.485406455-07:00",' +
    '"message":{"role":"assistant","content":" sky"},"done":false}\n' +
    '{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z",' +
    '"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",' +
    '"total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,' +
    '"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}\n';

  const decodeBytewise = (text: string): HubChunk[] =>
    decodeCut(ollamaFormat, 'llama3.2', text, cutsEvery(text.length, 1));

  it('reads the reference stream fed one character at a time', () => {
    const chunks = decodeBytewise(reference);
    const chunk = chunkMaker({ id: chunks[0]!.id, created: 1691164339, model: 'llama3.2' });
    expect(chunks).toEqual([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'The' }),
      chunk({ content: ' sky' }),
      chunk({}, 'stop', { prompt_tokens: 26, completion_tokens: 282, total_tokens: 308 }),
    ]);
  });

  it('reads whole tool call lines with running indexes and finishes with "tool_calls"', () => {
    const text =
      '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"",' +
      '"tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},"done":false}\n' +
      '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"",' +
      '"tool_calls":[{"function":{"name":"get_time","arguments":{}}}]},"done":false}\n' +
      '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},' +
      '"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":9}';
    const chunks = decodeBytewise(text); // the last line has no newline: end() reads it
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: expect.stringMatching(CALL_ID),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      {
        index: 1,
        id: expect.stringMatching(CALL_ID),
        type: 'function',
        function: { name: 'get_time', arguments: '{}' },
      },
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(foldChunks(chunks).usage).toEqual({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 });
  });

  it('raises a line that is not JSON (issue 32: it was skipped without a word), after the chunks before it', () => {
    const dec = ollamaFormat.streamDecoder('m');
    const out = dec.push('{"message":{"content":"Hel"},"done":false}\n<html>502 Bad Gateway</html>\n');
    expect(out.map((c) => c.choices[0]?.delta.content)).toEqual(['', 'Hel']);
    expect(() => dec.end()).toThrow(/not JSON: <html>502 Bad Gateway/);
  });

  it('skips blank lines and keep-alive comments, reads CRLF and thinking', () => {
    const text =
      '\r\n: keep-alive\r\n{"message":{"role":"assistant","content":"","thinking":"Hmm"},"done":false}\r\n' +
      '{"message":{"content":"Hi"},"done":true,"done_reason":"stop"}\r\n';
    const folded = foldChunks(decodeBytewise(text), 'm');
    expect(folded.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Hi', reasoning_content: 'Hmm' },
      finish_reason: 'stop',
    });
    expect(folded.usage).toBeUndefined();
  });

  it('hands over the chunks before an error line, then raises UpstreamStreamError with its text', () => {
    const dec = ollamaFormat.streamDecoder('m');
    const out = dec.push(
      '{"message":{"content":"Hel"},"done":false}\n' +
        '{"error":"an error was encountered while running the model: unexpected EOF"}\n',
    );
    expect(out.map((c) => c.choices[0]?.delta.content)).toEqual(['', 'Hel']);
    expect(() => dec.end()).toThrow(
      new UpstreamStreamError('an error was encountered while running the model: unexpected EOF'),
    );
    expect(() => dec.push('{"message":{"content":"more"},"done":false}\n')).toThrow(UpstreamStreamError);
  });

  it('raises at once on an error line cut in pieces, and when the stream ends without its done line', () => {
    const dec = ollamaFormat.streamDecoder('m');
    expect(dec.push('{"err')).toEqual([]);
    expect(() => dec.push('or":"boom"}\n')).toThrow('boom');
    const cut = ollamaFormat.streamDecoder('m');
    cut.push('{"message":{"content":"Hel"},"done":false}\n');
    expect(() => cut.end()).toThrow(/without its final "done": true line/);
  });

  it('at end(), attaches the chunks it decoded to the error (they were dropped), none handed over twice', () => {
    const cut = ollamaFormat.streamDecoder('m');
    expect(cut.push('{"message":{"content":"Hel"},"done":false}')).toEqual([]); // no newline yet: buffered
    const err = caught(() => cut.end());
    expect(err).toBeInstanceOf(UpstreamStreamError);
    expect((err as UpstreamStreamError).chunks.map((c) => c.choices[0]?.delta.content)).toEqual(['', 'Hel']);

    const failed = ollamaFormat.streamDecoder('m');
    expect(failed.push('{"message":{"content":"Hi"},"done":false}\n{"error":"boom"}\n')).toHaveLength(2);
    const failure = caught(() => failed.end());
    expect(failure).toBeInstanceOf(UpstreamStreamError);
    expect((failure as UpstreamStreamError).message).toBe('boom');
    expect((failure as UpstreamStreamError).chunks).toEqual([]);
  });
});
