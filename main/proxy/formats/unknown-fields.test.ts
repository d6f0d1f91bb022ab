// Issue 32, item 7: a field a client's newer version sends that Switchboard does not know is never a 400 and never
// lost without a word: each front door notes it as dropped (the reply's x-switchboard-dropped when translated; a
// provider of the client's own format gets it untouched).
import { describe, expect, it } from 'vitest';
import { anthropicFormat } from './anthropic/index.ts';
import { geminiFormat } from './gemini/index.ts';
import type { ClientContext } from './hub/index.ts';
import { UNKNOWN_FIELD } from './hub/index.ts';
import { ollamaFormat } from './ollama/index.ts';
import { responsesFormat } from './responses/index.ts';

/** The dropped notes of a request read by a front door, as "field: why". */
function droppedBy(read: (body: unknown, ctx: ClientContext) => unknown, body: unknown, ctx: ClientContext = {}) {
  read(body, ctx);
  return ctx.dropped ?? [];
}

describe('a field no table knows is noted as dropped, with the reason, and the request is read', () => {
  it('Anthropic: top-level, on a message (a mid-conversation system message’s output_config), thinking.display', () => {
    const dropped = droppedBy((b, c) => anthropicFormat.requestToHub(b, c), {
      model: 'claude-sonnet-5-5',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: [], output_config: { effort: 'medium' } },
      ],
      thinking: { type: 'adaptive', display: 'omitted' },
      safeguards: [{ type: 'dangerous_tool_use' }],
    });
    expect(dropped).toEqual([
      `messages[].output_config: ${UNKNOWN_FIELD}`,
      `safeguards: ${UNKNOWN_FIELD}`,
      expect.stringMatching(/^thinking\.display: /),
    ]);
  });

  it('Gemini: top-level and in generationConfig (camelCase, as the door reads them)', () => {
    const dropped = droppedBy(
      (b, c) => geminiFormat.requestToHub(b, c),
      { contents: [{ parts: [{ text: 'x' }] }], some_future_field: 1, generationConfig: { futureKnob: true } },
      {
        pathModel: 'gemini-2.5-pro',
      },
    );
    expect(dropped).toEqual([`someFutureField: ${UNKNOWN_FIELD}`, `generationConfig.futureKnob: ${UNKNOWN_FIELD}`]);
  });

  it('Ollama: top-level and in options', () => {
    const dropped = droppedBy((b, c) => ollamaFormat.requestToHub(b, c), {
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'Hi' }],
      truncate: true,
      options: { temperature: 0.2, future_option: 1 },
    });
    expect(dropped).toEqual([`truncate: ${UNKNOWN_FIELD}`, `options.future_option: ${UNKNOWN_FIELD}`]);
  });

  it('Responses: a field newer than its table, and the two it had left out unsaid (stream_options, prompt_cache_options)', () => {
    const dropped = droppedBy((b, c) => responsesFormat.requestToHub(b, c), {
      model: 'gpt-5.4',
      input: 'Hi',
      stream: true,
      stream_options: { include_obfuscation: false },
      prompt_cache_options: { mode: 'implicit' },
      some_future_field: { x: 1 },
    });
    expect(dropped.map((d) => d.split(':')[0])).toEqual([
      'prompt_cache_options',
      'stream_options',
      'some_future_field',
    ]);
    expect(dropped.at(-1)).toBe(`some_future_field: ${UNKNOWN_FIELD}`);
  });
});
