// Every field of /api/chat and /api/generate: translated, refused with a 400 naming it, or dropped (with its reason);
// `think` both ways; raw and fill-in-the-middle prompts kept for the door.
import { describe, expect, it } from 'vitest';
import { badRequest } from '../fixtures.test-helper.ts';
import type { HubRequest, Json } from '../hub/index.ts';
import { CHAT_FIELDS, GENERATE_FIELDS, OPTION_FIELDS } from './fields.ts';
import { generateToHub, rawPromptOf } from './generate.ts';
import { ollamaFormat } from './index.ts';

const chat = (extra: Json) =>
  ollamaFormat.requestToHub({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], ...extra }, {});
const plainChat = chat({});
const generate = (extra: Json) => generateToHub({ model: 'm', prompt: 'def f(', ...extra });

describe('think ↔ the hub reasoning fields', () => {
  it.each([
    [true, 'medium'],
    [false, 'none'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
  ])('client side: think %j is reasoning_effort %j, at /api/chat and /api/generate', (think, effort) => {
    expect(chat({ think }).reasoning_effort).toBe(effort);
    expect(generate({ think }).reasoning_effort).toBe(effort);
  });

  it.each([['max'], [1], [{}]])('client side: think %j is a 400 naming it', (think) => {
    badRequest(() => chat({ think }), '"think"');
  });

  const req = (extra: Partial<HubRequest>): HubRequest => ({ model: 'm', messages: [], ...extra });
  it.each([
    [{ reasoning_effort: 'none' }, false],
    [{ reasoning_effort: 'minimal' }, 'low'],
    [{ reasoning_effort: 'low' }, 'low'],
    [{ reasoning_effort: 'medium' }, true],
    [{ reasoning_effort: 'high' }, 'high'],
    [{ reasoning_budget: 16000 }, 'high'],
    [{ reasoning_budget: 0 }, false],
    [{}, undefined],
  ] as [Partial<HubRequest>, unknown][])('provider side: %j is think %j', (extra, think) => {
    expect((ollamaFormat.requestFromHub(req(extra)) as { think?: unknown }).think).toEqual(think);
  });
});

describe('refused: only Ollama can honour them, and leaving them out would change the answer', () => {
  it.each([
    [{ logprobs: true }, '"logprobs"'],
    [{ top_logprobs: 3 }, '"top_logprobs"'],
  ])('/api/chat %j', (extra, named) => {
    const e = badRequest(() => chat(extra), named);
    expect(e.action).toContain('Ollama provider');
  });

  it.each([
    [{ context: [1, 2, 3] }, '"context"'],
    [{ logprobs: true }, '"logprobs"'],
    [{ suffix: 'x', images: ['iVBORw0KGgo='] }, '"images"'],
    [{ raw: true, images: ['iVBORw0KGgo='] }, '"images"'],
    [{ raw: 'yes' }, '"raw"'],
  ])('/api/generate %j', (extra, named) => {
    badRequest(() => generate(extra), named);
  });
});

describe('dropped, with the reason in fields.ts', () => {
  it('every dropped option and field leaves the hub request as it was', () => {
    const options: Json = {};
    for (const [key, rule] of Object.entries(OPTION_FIELDS)) if (rule.fate === 'dropped') options[key] = 1;
    expect(chat({ options, keep_alive: '30m', logprobs: false })).toEqual(plainChat);
    expect(generate({ template: '{{ .Prompt }}', context: [], keep_alive: 1800, options })).toEqual(generate({}));
  });

  it('gives every dropped field a reason', () => {
    for (const table of [CHAT_FIELDS, GENERATE_FIELDS, OPTION_FIELDS]) {
      for (const rule of Object.values(table)) if (rule.fate === 'dropped') expect(rule.why.length).toBeGreaterThan(10);
    }
  });
});

describe('raw and fill-in-the-middle prompts', () => {
  it('keeps prompt and suffix for the door (a chat prompt too, for the log and the estimate)', () => {
    const hub = generate({ suffix: '\n    return x', raw: true, options: { num_predict: 64, temperature: 0.01 } });
    expect(rawPromptOf(hub)).toEqual({ prompt: 'def f(', suffix: '\n    return x' });
    expect(hub.messages).toEqual([{ role: 'user', content: 'def f(' }]);
    expect(hub.max_tokens).toBe(64);
  });

  it('a raw prompt without suffix is a text completion too; an empty suffix or raw false is a chat', () => {
    expect(rawPromptOf(generate({ raw: true }))).toEqual({ prompt: 'def f(' });
    expect(rawPromptOf(generate({ suffix: '' }))).toBeUndefined();
    expect(rawPromptOf(generate({ raw: false }))).toBeUndefined();
  });
});
