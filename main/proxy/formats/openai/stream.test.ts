// OpenAI streams both ways, and the decoder's rules (hub/sse-json.ts): chunks before an error are handed over first.
import { describe, expect, it } from 'vitest';
import { foldChunks, type HubChunk, UpstreamStreamError } from '../hub/index.ts';
import { openaiFormat } from './index.ts';

const chunk = (content: string): HubChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});
const event = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;

describe('openai stream decoder', () => {
  it('hands over the chunks decoded in the same push as an error event, then raises the error', () => {
    const dec = openaiFormat.streamDecoder('m');
    const got = dec.push(
      event(chunk('Hel')) + event(chunk('lo')) + event({ error: { message: 'overloaded', code: 'server_error' } }),
    );
    expect(got.map((c) => c.choices[0]!.delta.content)).toEqual(['Hel', 'lo']);
    expect(() => dec.push(event(chunk('never')))).toThrow(UpstreamStreamError);
    expect(() => dec.end()).toThrow(/overloaded/);
  });

  it('skips [DONE] and empty events, and raises on an event that is not JSON (as the SDK does)', () => {
    const dec = openaiFormat.streamDecoder('m');
    expect(dec.push(`data: \n\n${event(chunk('x'))}data: [DONE]\n\n`)).toHaveLength(1);
    const bad = openaiFormat.streamDecoder('m');
    expect(bad.push(event(chunk('y')) + 'data: {not json\n\n')).toHaveLength(1);
    expect(() => bad.end()).toThrow(/not JSON/);
  });

  it('round-trips a stream through the encoder', () => {
    const enc = openaiFormat.streamEncoder({ model: 'm' });
    const text =
      enc.chunk(chunk('Hi')) +
      enc.chunk({ ...chunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
      enc.end();
    const dec = openaiFormat.streamDecoder('m');
    const folded = foldChunks([...dec.push(text), ...dec.end()]);
    expect(folded.choices[0]).toMatchObject({ message: { content: 'Hi' }, finish_reason: 'stop' });
  });
});

describe('openai provider side', () => {
  it('sends the hub request as it is, without top_k (OpenAI refuses it)', () => {
    const req = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }], temperature: 0.2, top_k: 40 };
    expect(openaiFormat.requestFromHub(req)).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.2,
    });
    const plain = { model: 'm', messages: [] };
    expect(openaiFormat.requestFromHub(plain)).toBe(plain);
  });
});
