// thinkingConfig ↔ the hub's reasoning fields, both sides; reasoning back to Gemini clients as thought parts.
import { describe, expect, it } from 'vitest';
import { badRequest, chunkMaker, HUB_HEAD, hubReply, usageChunk } from '../fixtures.test-helper.ts';
import type { HubRequest } from '../hub/index.ts';
import { geminiFormat } from './index.ts';

const ctx = { pathModel: 'gemini-2.5-flash' };
const withThinking = (thinkingConfig: unknown) =>
  geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig } }, ctx);
const reasoningOf = (h: HubRequest) => ({ effort: h.reasoning_effort, budget: h.reasoning_budget });

describe('client side: thinkingConfig as the hub reasoning fields', () => {
  it.each([
    [
      { thinkingBudget: 1024, includeThoughts: true },
      { effort: 'minimal', budget: 1024 },
    ],
    [{ thinkingBudget: 8192 }, { effort: 'medium', budget: 8192 }],
    [{ thinkingBudget: '30000' }, { effort: 'high', budget: 30000 }],
    [{ thinkingBudget: 0 }, { effort: 'none', budget: 0 }],
    [
      { thinkingBudget: -1, includeThoughts: true },
      { effort: 'medium', budget: undefined },
    ],
    [
      { thinkingLevel: 'HIGH', includeThoughts: true },
      { effort: 'high', budget: undefined },
    ],
    [{ thinkingLevel: 'low' }, { effort: 'low', budget: undefined }],
    [{ thinkingLevel: 'THINKING_LEVEL_UNSPECIFIED' }, { effort: undefined, budget: undefined }],
    [{ includeThoughts: true }, { effort: undefined, budget: undefined }],
  ])('reads %j as %j', (config, expected) => {
    expect(reasoningOf(withThinking(config))).toEqual(expected);
  });

  it('reads thinking_config in snake_case too', () => {
    const hub = geminiFormat.requestToHub(
      { contents: [{ parts: [{ text: 'x' }] }], generation_config: { thinking_config: { thinking_budget: 2048 } } },
      ctx,
    );
    expect(reasoningOf(hub)).toEqual({ effort: 'low', budget: 2048 });
  });

  it.each([
    [{ thinkingBudget: 100, thinkingLevel: 'LOW' }, 'both thinkingBudget and thinkingLevel'],
    [{ thinkingBudget: -5 }, 'generationConfig.thinkingConfig.thinkingBudget'],
    [{ thinkingBudget: 1.5 }, 'generationConfig.thinkingConfig.thinkingBudget'],
    [{ thinkingLevel: 'EXTREME' }, 'generationConfig.thinkingConfig.thinkingLevel'],
    [{ includeThoughts: 'yes' }, 'generationConfig.thinkingConfig.includeThoughts'],
    [{ thinkingTokens: 5 }, 'generationConfig.thinkingConfig.thinkingTokens'],
    ['on', 'generationConfig.thinkingConfig'],
  ])('refuses %j with a 400 naming the field', (config, named) => {
    badRequest(() => withThinking(config), named);
  });
});

describe('provider side: the hub reasoning fields as thinkingConfig', () => {
  const req = (model: string, extra: Partial<HubRequest>): HubRequest => ({
    model,
    messages: [{ role: 'user', content: 'x' }],
    ...extra,
  });
  const thinkingOf = (r: HubRequest) =>
    (geminiFormat.requestFromHub(r) as { generationConfig?: { thinkingConfig?: unknown } }).generationConfig
      ?.thinkingConfig;

  it('sends the client budget as it is, asking for thoughts', () => {
    expect(thinkingOf(req('gemini-3-pro-preview', { reasoning_effort: 'low', reasoning_budget: 3000 }))).toEqual({
      thinkingBudget: 3000,
      includeThoughts: true,
    });
  });

  it('sends an effort as a budget to Gemini 2.x (below maxOutputTokens) and as a level to later models', () => {
    expect(thinkingOf(req('gemini-2.5-flash', { reasoning_effort: 'high' }))).toEqual({
      thinkingBudget: 24576,
      includeThoughts: true,
    });
    expect(thinkingOf(req('gemini-2.5-flash', { reasoning_effort: 'high', max_tokens: 4000 }))).toEqual({
      thinkingBudget: 3999,
      includeThoughts: true,
    });
    expect(thinkingOf(req('gemini-3-flash-preview', { reasoning_effort: 'medium' }))).toEqual({
      thinkingLevel: 'MEDIUM',
      includeThoughts: true,
    });
  });

  it("turns thinking off (or to Gemini 3's lowest level) for 'none', without asking for thoughts", () => {
    expect(thinkingOf(req('gemini-2.5-flash', { reasoning_effort: 'none' }))).toEqual({ thinkingBudget: 0 });
    expect(thinkingOf(req('gemini-3-flash-preview', { reasoning_effort: 'none' }))).toEqual({
      thinkingLevel: 'MINIMAL',
    });
    expect(thinkingOf(req('gemini-3-pro-preview', { reasoning_effort: 'minimal' }))).toEqual({
      thinkingLevel: 'LOW',
      includeThoughts: true,
    });
  });

  // Issue 32, item 5: gemini-2.5-pro refuses thinkingBudget 0 ("Budget 0 is invalid. This model only works in
  // thinking mode."): "no thinking" is its least budget, 128, and no thoughts are asked for.
  it('sends "no thinking" to gemini-2.5-pro as its least budget (it cannot turn thinking off), and keeps budgets in range', () => {
    expect(thinkingOf(req('gemini-2.5-pro', { reasoning_effort: 'none' }))).toEqual({ thinkingBudget: 128 });
    expect(
      thinkingOf(req('models/gemini-2.5-pro-preview-06-05', { reasoning_effort: 'none', reasoning_budget: 0 })),
    ).toEqual({
      thinkingBudget: 128,
    });
    expect(thinkingOf(req('gemini-2.5-pro', { reasoning_effort: 'minimal', reasoning_budget: 50 }))).toEqual({
      thinkingBudget: 128,
      includeThoughts: true,
    });
    expect(thinkingOf(req('gemini-2.5-pro', { reasoning_effort: 'high', reasoning_budget: 60000 }))).toEqual({
      thinkingBudget: 32768,
      includeThoughts: true,
    });
    expect(thinkingOf(req('gemini-2.5-pro', { reasoning_effort: 'medium', reasoning_budget: -1 }))).toMatchObject({
      thinkingBudget: -1,
    });
    // Flash and Flash-Lite can turn thinking off; Flash-Lite thinks at least 512 tokens when it thinks.
    expect(thinkingOf(req('gemini-2.5-flash-lite', { reasoning_effort: 'none' }))).toEqual({ thinkingBudget: 0 });
    expect(thinkingOf(req('gemini-2.5-flash-lite', { reasoning_effort: 'minimal', reasoning_budget: 100 }))).toEqual({
      thinkingBudget: 512,
      includeThoughts: true,
    });
    // Gemini 3 keeps its levels.
    expect(thinkingOf(req('gemini-3-pro-preview', { reasoning_effort: 'none' }))).toEqual({ thinkingLevel: 'LOW' });
  });

  it('sends no thinkingConfig when the hub asks for no reasoning', () => {
    expect(thinkingOf(req('gemini-2.5-flash', {}))).toBeUndefined();
  });
});

describe('client side: reasoning reaches Gemini clients as thought parts', () => {
  it('in a reply: a thought part first, and thoughtsTokenCount', () => {
    const res = hubReply(HUB_HEAD, { content: 'Answer', reasoning_content: 'Thinking…' }, 'stop', {
      prompt_tokens: 10,
      completion_tokens: 30,
      total_tokens: 40,
      completion_tokens_details: { reasoning_tokens: 20 },
    });
    const wire = geminiFormat.responseFromHub(res, { ...ctx, model: 'gemini-2.5-flash' }) as {
      candidates: { content: { parts: unknown[] } }[];
      usageMetadata: unknown;
    };
    expect(wire.candidates[0]!.content.parts).toEqual([{ text: 'Thinking…', thought: true }, { text: 'Answer' }]);
    expect(wire.usageMetadata).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 20,
      totalTokenCount: 40,
    });
  });

  it('in a stream: reasoning deltas as thought parts', () => {
    const chunk = chunkMaker(HUB_HEAD);
    const enc = geminiFormat.streamEncoder({
      ...ctx,
      model: 'gemini-2.5-flash',
      query: new URLSearchParams('alt=sse'),
    });
    const out =
      enc.chunk(chunk({ reasoning_content: 'Hmm' })) +
      enc.chunk(chunk({ content: 'Yes' })) +
      enc.chunk(chunk({}, 'stop')) +
      enc.chunk(usageChunk(HUB_HEAD, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })) +
      enc.end();
    const events = out
      .split('\r\n\r\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.slice('data: '.length)) as { candidates: { content?: { parts: unknown[] } }[] });
    expect(events[0]!.candidates[0]!.content!.parts).toEqual([{ text: 'Hmm', thought: true }]);
    expect(events[1]!.candidates[0]!.content!.parts).toEqual([{ text: 'Yes' }]);
  });
});
