// The audit of a hub request against a provider format's table: what it lists as dropped (top-level fields and the
// keys inside messages and tools that only OpenAI-compatible providers read) and what it refuses.
import { describe, expect, it } from 'vitest';
import { type AcceptedFields, auditRequest, dropped, refused, translated, TRANSLATING_DEFAULTS } from './accepted.ts';
import type { HubRequest } from './types.ts';

const TABLE: AcceptedFields = {
  label: 'a test provider',
  strictTools: 'no strict schemas here',
  reasoningHistory: 'no reasoning history here',
  fields: {
    ...TRANSLATING_DEFAULTS,
    tools: translated,
    seed: dropped('no seed here'),
    n: refused('one choice only', 'Send n: 1.', (v) => typeof v === 'number' && v > 1),
  },
};
const CARRIER: AcceptedFields = {
  label: 'a carrier',
  carriesUnknown: true,
  strictTools: 'translated',
  reasoningHistory: 'translated',
  fields: {},
};

const names = (r: HubRequest, table = TABLE) => auditRequest(table, r).dropped.map((d) => d.field);

const req = (extra: Partial<HubRequest> = {}): HubRequest => ({
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

describe('auditRequest', () => {
  it("lists an earlier turn's reasoning a format does not read back (issue 32: Gemini thought parts went unsaid)", () => {
    const turn = (reasoning_content: string): HubRequest['messages'][number] => ({
      role: 'assistant',
      content: 'Listing.',
      reasoning_content,
    });
    expect(names(req({ messages: [{ role: 'user', content: 'hi' }, turn('**Listing the folder**')] }))).toEqual([
      'messages[].reasoning_content',
    ]);
    expect(auditRequest(TABLE, req({ messages: [turn('x')] })).dropped[0]!.why).toBe('no reasoning history here');
    expect(names(req({ messages: [turn('')] }))).toEqual([]);
    expect(names(req({ messages: [turn('x')] }), { ...TABLE, reasoningHistory: 'translated' })).toEqual([]);
  });

  it('lists dropped fields in the request’s order, unknown ones included, and skips null values', () => {
    const audit = auditRequest(TABLE, req({ transforms: ['middle-out'], seed: 7, logprobs: null, store: true }));
    expect(audit.refusal).toBeNull();
    expect(audit.dropped).toEqual([
      { field: 'transforms', why: expect.stringMatching(/^not an OpenAI chat field/) },
      { field: 'seed', why: 'no seed here' },
      { field: 'store', why: expect.stringMatching(/stored completions/) },
    ]);
  });

  it('refuses a value its rule refuses, and lets the values it does not name through', () => {
    expect(auditRequest(TABLE, req({ n: 3 })).refusal).toMatchObject({ field: 'n', value: 3, fix: 'Send n: 1.' });
    expect(auditRequest(TABLE, req({ n: 1 }))).toEqual({ dropped: [], refusal: null });
    expect(auditRequest(TABLE, req({ logprobs: true })).refusal?.field).toBe('logprobs');
    expect(auditRequest(TABLE, req({ logprobs: false })).refusal).toBeNull();
    expect(auditRequest(TABLE, req({ modalities: ['text', 'audio'] })).refusal?.field).toBe('modalities');
    expect(auditRequest(TABLE, req({ modalities: ['text'] })).refusal).toBeNull();
  });

  it('lists the keys inside messages and parts it does not read (OpenRouter-style cache_control), once each', () => {
    const messages = [
      { role: 'system', content: [{ type: 'text', text: 'rules', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: 'ok', refusal: null, annotations: [], audio: null },
      { role: 'assistant', content: 'cited', annotations: [{ type: 'url_citation' }] },
    ] as unknown as HubRequest['messages'];
    expect(names(req({ messages }))).toEqual(['messages[].content[].cache_control', 'messages[].annotations']);
  });

  it('refuses a content part it cannot write, naming it by its path', () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'listen' },
          { type: 'input_audio', input_audio: {} },
        ],
      },
    ] as unknown as HubRequest['messages'];
    expect(auditRequest(TABLE, req({ messages })).refusal).toMatchObject({
      field: 'messages[0].content[1].type',
      value: 'input_audio',
    });
  });

  it('refuses a tool that is not a function, and drops strict where the format has no strict schemas', () => {
    const custom = [{ type: 'custom', custom: { name: 'apply_patch' } }] as unknown as HubRequest['tools'];
    expect(auditRequest(TABLE, req({ tools: custom })).refusal).toMatchObject({ field: 'tools[0].type' });
    const strict: HubRequest['tools'] = [{ type: 'function', function: { name: 'f', strict: true } }];
    expect(auditRequest(TABLE, req({ tools: strict })).dropped).toEqual([
      { field: 'tools[].function.strict', why: 'no strict schemas here' },
    ]);
    const loose: HubRequest['tools'] = [{ type: 'function', function: { name: 'f', strict: false } }];
    expect(names(req({ tools: loose }))).toEqual([]);
  });

  it('carries every field (and looks into no message) for a format that sends the request as it is', () => {
    const messages = [
      { role: 'user', content: [{ type: 'input_audio', input_audio: {} }] },
    ] as unknown as HubRequest['messages'];
    expect(auditRequest(CARRIER, req({ messages, transforms: ['x'], n: 4 }))).toEqual({ dropped: [], refusal: null });
  });
});
