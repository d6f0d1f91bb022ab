import { describe, expect, it } from 'vitest';
import { type ConfigInput, parseConfig } from '../../shared/config.ts';
import { draftFromPrice, EMPTY_PRICE, priceFromDraft, priceWords, providerPriceText, putPrice } from './price-text.ts';

describe('prices in the UI', () => {
  it('a draft becomes a prices[] entry the schema takes, and back', () => {
    const entry = priceFromDraft({
      ...EMPTY_PRICE,
      provider: 'openai',
      input: '2.5',
      output: '10',
      cache_read: '1.25',
    });
    expect(entry).toEqual({ provider: 'openai', input: 2.5, output: 10, cache_read: 1.25 });
    expect(draftFromPrice(entry)).toEqual({
      ...EMPTY_PRICE,
      provider: 'openai',
      input: '2.5',
      output: '10',
      cache_read: '1.25',
    });
    const cfg: ConfigInput = {
      providers: [{ name: 'openai', base_url: 'https://api.openai.com/v1' }],
      prices: [entry],
    };
    expect(parseConfig(cfg).ok).toBe(true);
    expect(priceFromDraft({ ...EMPTY_PRICE, model: 'llama*', free: true })).toEqual({ model: 'llama*', free: true });
    // What is not a number stays text, for the schema to name.
    const bad = parseConfig({ prices: [priceFromDraft({ ...EMPTY_PRICE, model: 'x', input: 'cheap', output: '1' })] });
    expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toContain('prices[0].input');
  });
  it('a price for a model goes before the provider-wide ones (the first that fits wins); one for a provider last', () => {
    const wide = { provider: 'openai', input: 1, output: 2 };
    const model = { provider: 'openai', model: 'gpt-4o*', input: 3, output: 4 };
    expect(putPrice([wide], model, -1)).toEqual([model, wide]);
    expect(putPrice([model], wide, -1)).toEqual([model, wide]);
    expect(putPrice([model, wide], { ...wide, input: 9 }, 1)).toEqual([model, { ...wide, input: 9 }]);
  });
  it("a provider's price in words", () => {
    expect(priceWords({ provider: 'a', input: 2.5, output: 10 })).toBe('$2.50 in, $10.00 out per million tokens');
    expect(providerPriceText('a', [{ provider: 'a', input: 2.5, output: 10 }], false)).toEqual({
      text: '$2.50 in, $10.00 out per million tokens (your price)',
      index: 0,
    });
    expect(providerPriceText('local', [], true).text).toBe('free (on this machine)');
    expect(providerPriceText('b', [{ provider: 'b', model: 'x*', free: true }], false).text).toBe(
      "the price table's, per model; your price for 1 of its model patterns",
    );
  });
});
