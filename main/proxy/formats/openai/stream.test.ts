// OpenAI streams both ways, and the decoder's rules (hub/sse-json.ts): chunks before an error are handed over first.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { foldChunks, type HubChunk, type HubRequest, UpstreamStreamError } from '../hub/index.ts';
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

  it('raises a stream whose bytes end cleanly before its finish_reason and [DONE] (a cut reply)', () => {
    const dec = openaiFormat.streamDecoder('m');
    expect(dec.push(event(chunk('Hel')) + event(chunk('lo')))).toHaveLength(2);
    expect(() => dec.end()).toThrow(/ended before its finish_reason and \[DONE\]/);
  });

  it('raises a stream cut inside a tool call, its partial arguments handed over but never finished', () => {
    const call = (args: string, head = false): HubChunk => ({
      ...chunk(''),
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              head
                ? { index: 0, id: 'call_1', type: 'function', function: { name: 'Read', arguments: args } }
                : { index: 0, function: { arguments: args } },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    const dec = openaiFormat.streamDecoder('m');
    const got = dec.push(event(call('', true)) + event(call('{"file_path":"/home/u')));
    expect(got.every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
    expect(() => dec.end()).toThrow(UpstreamStreamError);
  });

  it('takes a finish_reason without [DONE] as the end (some servers never send [DONE]), and [DONE] alone too', () => {
    const finished = openaiFormat.streamDecoder('m');
    finished.push(
      event(chunk('Hi')) + event({ ...chunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    );
    finished.push(
      event({ ...chunk(''), choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
    );
    expect(() => finished.end()).not.toThrow();
    const done = openaiFormat.streamDecoder('m');
    done.push(event(chunk('Hi')) + 'data: [DONE]\n\n');
    expect(() => done.end()).not.toThrow();
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

  it('shortens a user over 64 characters to its SHA-256 in hex (64 characters, stable), and keeps a short one', () => {
    // Claude Code's metadata.user_id, as in starbased-co/ccproxy examples/cc-api-req.zsh (a real request's shape).
    const long =
      'user_19f2f4ee153d47fb2ef3e7954239ff16d3bff6daddd7cac0b1e7e3794fcaae80_account_a929b7ef-d758-4a98-b88e-07166e6c8537_session_34832e57-9b65-4df6-9604-60b9fc786bcb';
    const sent = openaiFormat.requestFromHub({ model: 'm', messages: [], user: long }) as HubRequest;
    expect(sent.user).toBe(createHash('sha256').update(long).digest('hex'));
    expect(sent.user).toHaveLength(64);
    expect((openaiFormat.requestFromHub({ model: 'm', messages: [], user: long }) as HubRequest).user).toBe(sent.user);
    const short = { model: 'm', messages: [], user: 'u'.repeat(64) };
    expect(openaiFormat.requestFromHub(short)).toBe(short);
  });
});

describe('reasoning from OpenAI-compatible providers', () => {
  const delta = (d: Record<string, unknown>) => ({
    ...chunk(''),
    choices: [{ index: 0, delta: d, finish_reason: null }],
  });

  it('reads OpenRouter’s (and Ollama’s /v1) streamed `reasoning` as the hub’s reasoning_content', () => {
    // The shape OpenRouter streams: reasoning beside reasoning_details, then content with reasoning null.
    const details = [{ type: 'reasoning.text', text: 'Think', format: 'unknown', index: 0 }];
    const dec = openaiFormat.streamDecoder('m');
    const got = dec.push(
      event(delta({ role: 'assistant', content: '', reasoning: 'Think', reasoning_details: details })) +
        event(delta({ content: 'Hi', reasoning: null })),
    );
    expect(got[0]!.choices[0]!.delta).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: 'Think',
      reasoning_details: details,
    });
    expect(got[1]!.choices[0]!.delta).toEqual({ content: 'Hi', reasoning: null });
    expect(foldChunks([...got, ...dec.push('data: [DONE]\n\n'), ...dec.end()]).choices[0]!.message).toMatchObject({
      content: 'Hi',
      reasoning_content: 'Think',
    });
  });

  it('keeps DeepSeek’s and vLLM’s reasoning_content, also when a server sends both names', () => {
    const dec = openaiFormat.streamDecoder('m');
    const [a, b] = dec.push(
      event(delta({ reasoning_content: 'deep' })) + event(delta({ reasoning_content: 'both', reasoning: 'both' })),
    );
    expect(a!.choices[0]!.delta).toEqual({ reasoning_content: 'deep' });
    expect(b!.choices[0]!.delta).toEqual({ reasoning_content: 'both' });
  });

  it('reads a whole reply’s message.reasoning as reasoning_content', () => {
    const res = openaiFormat.responseToHub(
      {
        id: 'gen-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Hi', reasoning: 'Think' }, finish_reason: 'stop' },
        ],
      },
      'm',
    );
    expect(res.choices[0]!.message).toEqual({ role: 'assistant', content: 'Hi', reasoning_content: 'Think' });
  });
});
