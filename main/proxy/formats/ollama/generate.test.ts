// Golden tests for /api/generate: its request, its reply and its stream.
import { describe, expect, it } from 'vitest';
import { responseToChunks } from '../conformance.case.ts';
import { hubText, ISO, lines, timingsShape } from './fixtures.test-helper.ts';
import { generateResponseFromHub, generateStreamEncoder, generateToHub } from './generate.ts';

describe('/api/generate helpers', () => {
  it('generateToHub turns system and prompt (with images) into messages; stream defaults to true', () => {
    const hub = generateToHub({
      model: 'llava',
      prompt: 'What is in this picture?',
      system: 'You are terse.',
      images: ['iVBORw0KGgo='],
      format: 'json',
      options: { seed: 123, num_predict: 10 },
      raw: false,
      context: [],
      template: '{{ .Prompt }}',
      keep_alive: 0,
    });
    expect(hub).toEqual({
      model: 'llava',
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      response_format: { type: 'json_object' },
      seed: 123,
      max_tokens: 10,
    });
    expect(generateToHub({ model: 'm', prompt: 'hi', stream: false })).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
    });
    expect(() => generateToHub({ model: 'm', prompt: 5 })).toThrow('"prompt"');
  });

  it('generateResponseFromHub writes the reference reply with `response` and an empty context', () => {
    expect(generateResponseFromHub(hubText({ finish_reason: 'length' }), 'llama3.2')).toEqual({
      model: 'llama3.2',
      created_at: expect.stringMatching(ISO),
      response: 'Hello! How are you today?',
      done: true,
      done_reason: 'length',
      context: [],
      prompt_eval_count: 26,
      eval_count: 298,
      ...timingsShape,
    });
  });

  it('generateStreamEncoder writes `response` lines and a final done line with a context', () => {
    const enc = generateStreamEncoder('llama3.2');
    let text = '';
    for (const c of responseToChunks(hubText({ message: { role: 'assistant', content: 'The sky' } })))
      text += enc.chunk(c);
    const out = lines(text + enc.end());
    expect(out).toEqual([
      { model: 'llama3.2', created_at: expect.stringMatching(ISO), response: 'The sky', done: false },
      {
        model: 'llama3.2',
        created_at: expect.stringMatching(ISO),
        response: '',
        done: true,
        done_reason: 'stop',
        context: [],
        prompt_eval_count: 26,
        eval_count: 298,
        ...timingsShape,
      },
    ]);
    expect(enc.error({ status: 502, code: 'x', type: 'x', message: 'gone' })).toBe('');
  });
});
