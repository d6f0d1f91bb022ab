// Client side, request: every top-level field is translated, refused with a 400 naming it, or dropped (DECISIONS.md).
import { describe, expect, it } from 'vitest';
import { badRequest } from '../fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

const toHub = (body: Record<string, unknown>) => responsesFormat.requestToHub({ model: 'm', input: 'Hi', ...body }, {});
const expectInvalid = (body: Record<string, unknown>, ...fragments: string[]) =>
  badRequest(() => toHub(body), ...fragments);
const plain = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

describe('responses client side: request fields', () => {
  it.each([
    ['none', 'none'],
    ['minimal', 'minimal'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['xhigh', 'high'],
    ['max', 'high'],
  ])('reads reasoning.effort %s as the hub reasoning_effort %s', (effort, hubEffort) => {
    expect(toHub({ reasoning: { effort, summary: 'auto' } })).toEqual({ ...plain, reasoning_effort: hubEffort });
  });

  it('leaves reasoning_effort out when reasoning has no effort', () => {
    expect(toHub({ reasoning: { summary: 'detailed' } })).toEqual(plain);
    expect(toHub({ reasoning: null })).toEqual(plain);
  });

  it.each([
    [{ reasoning: { effort: 'extreme' } }, '"reasoning.effort" must be'],
    [{ reasoning: 'high' }, '"reasoning" must be an object'],
    [{ text: 'json' }, '"text" must be an object'],
    [{ text: { format: 'json' } }, '"text.format" must be an object'],
    [{ user: 42 }, '"user" must be a string'],
    [{ prompt: { id: 'pmpt_1' } }, '"prompt"'],
    [{ moderation: { model: 'omni-moderation-latest' } }, '"moderation"'],
  ])('refuses %j naming the field', (body, fragment) => {
    expectInvalid(body, fragment);
  });

  it('drops the fields a chat provider has no place for (Codex sends most of them), keeping the rest', () => {
    const hub = toHub({
      store: false,
      include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
      prompt_cache_key: '019d27fa-d92f-7e91-a4f1-5b910be3713a',
      prompt_cache_retention: '24h',
      prompt_cache_options: { mode: 'implicit' },
      service_tier: 'priority',
      metadata: { k: 'v' },
      truncation: 'auto',
      max_tool_calls: 3,
      top_logprobs: 2,
      stream_options: { include_obfuscation: false },
      context_management: [{ type: 'compaction', compact_threshold: 200000 }],
      text: { verbosity: 'low' },
      client_metadata: { 'x-codex-turn-metadata': '{}' },
      background: false,
    });
    expect(hub).toEqual(plain);
  });

  it('takes safety_identifier as the user when there is no user', () => {
    expect(toHub({ safety_identifier: 'sid-1' }).user).toBe('sid-1');
    expect(toHub({ safety_identifier: 'sid-1', user: 'u-1' }).user).toBe('u-1');
  });

  it('reads text.format json_schema (what codex --output-schema sends) as response_format', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    const hub = toHub({
      text: { verbosity: 'low', format: { type: 'json_schema', name: 'out', schema, strict: true } },
    });
    expect(hub.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'out', schema, strict: true } });
  });
});
