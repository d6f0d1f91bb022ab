// Prices: the mapping of our providers to the price table's (by base_url, then by type), prices the table gives
// (pinned for gpt-4o-mini, Claude Sonnet 4 and Gemini 2.0 Flash, cache reads and writes included), overrides, local
// providers, unknown models, and the fast path for flat prices against the table's own calculation.
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import type { PriceOverride } from '../../shared/usage.ts';
import { isLoopbackHost, type PriceInput, priceOf, type PricedProvider, tableProviderOf } from './prices.ts';

const M = 1_000_000;
const counts = (model: string, over: Partial<PriceInput> = {}): PriceInput => ({
  model,
  prompt_tokens: M,
  completion_tokens: M,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  ...over,
});
const openai: PricedProvider = { name: 'openai', base_url: 'https://api.openai.com/v1', type: 'openai' };
const anthropic: PricedProvider = { name: 'claude', base_url: 'https://api.anthropic.com/v1', type: 'anthropic' };
const gemini: PricedProvider = { name: 'gemini', base_url: 'https://generativelanguage.googleapis.com/v1beta' };
const close = (v: number | null) => expect.closeTo(v!, 10);

describe('the price table (@pydantic/genai-prices)', () => {
  it('gpt-4o-mini at api.openai.com: $0.15 in, $0.60 out, $0.075 a cached million', () => {
    expect(priceOf(counts('gpt-4o-mini'), openai)).toEqual({ cost_usd: close(0.75), source: 'price_table' });
    // 1M prompt tokens of which 200k read from the cache
    expect(priceOf(counts('gpt-4o-mini', { cache_read_tokens: 200_000 }), openai).cost_usd).toBeCloseTo(
      0.8 * 0.15 + 0.2 * 0.075 + 0.6,
      10,
    );
  });

  it('Claude Sonnet 4 at api.anthropic.com: $3 in, $15 out, $0.30 cache reads, $3.75 cache writes', () => {
    const r = counts('claude-sonnet-4-20250514', {
      completion_tokens: 100_000,
      cache_read_tokens: 200_000,
      cache_write_tokens: 100_000,
    });
    expect(priceOf(r, anthropic)).toEqual({
      cost_usd: close(0.7 * 3 + 0.2 * 0.3 + 0.1 * 3.75 + 0.1 * 15),
      source: 'price_table',
    });
  });

  it("prices Anthropic's 1-hour cache writes apart: $6 a million on Claude Sonnet 4 against $3.75 for 5-minute ones", () => {
    const r = counts('claude-sonnet-4-20250514', {
      completion_tokens: 100_000,
      cache_write_tokens: 100_000,
      cache_write_1h_tokens: 40_000,
    });
    const expected = 0.9 * 3 + 0.06 * 3.75 + 0.04 * 6 + 0.1 * 15;
    expect(priceOf(r, anthropic).cost_usd).toBeCloseTo(expected, 10);
    expect(priceOf(r, anthropic).cost_usd).toBeCloseTo(expected, 10); // the memo's flat prices say the same
    const table = calcPrice(
      { input_tokens: M, output_tokens: 100_000, cache_write_tokens: 100_000, cache_write_1h_tokens: 40_000 },
      'claude-sonnet-4-20250514',
      { providerId: 'anthropic' },
    );
    expect(table!.total_price).toBeCloseTo(expected, 10);
  });

  it("uses Anthropic's rule (a 1-hour write is 2x the input price) for a Claude model the table has no such price for", () => {
    const openrouter: PricedProvider = { name: 'or', base_url: 'https://openrouter.ai/api/v1' };
    const r = counts('anthropic/claude-sonnet-4', {
      completion_tokens: 100_000,
      cache_write_tokens: 100_000,
      cache_write_1h_tokens: 40_000,
    });
    const expected = 0.9 * 3 + 0.06 * 3.75 + 0.04 * 6 + 0.1 * 15;
    expect(priceOf(r, openrouter).cost_usd).toBeCloseTo(expected, 10);
    expect(priceOf(r, openrouter).cost_usd).toBeCloseTo(expected, 10);
    // Without 1-hour writes nothing changes.
    const plain = counts('anthropic/claude-sonnet-4', { completion_tokens: 100_000, cache_write_tokens: 100_000 });
    expect(priceOf(plain, openrouter).cost_usd).toBeCloseTo(0.9 * 3 + 0.1 * 3.75 + 0.1 * 15, 10);
  });

  it('prices 1-hour writes of a model with tiered prices at the tier of the request (Claude Sonnet 4.5 over 200k)', () => {
    const r = counts('claude-sonnet-4-5', { cache_write_tokens: 300_000, cache_write_1h_tokens: 300_000 });
    // Over 200k input tokens: $6 in, $12 a 1-hour write, $22.50 out.
    expect(priceOf(r, anthropic).cost_usd).toBeCloseTo(0.7 * 6 + 0.3 * 12 + 22.5, 10);
  });

  it('Gemini 2.0 Flash at Google (type inferred from the host): $0.10 in, $0.40 out', () => {
    expect(priceOf(counts('gemini-2.0-flash'), gemini).cost_usd).toBeCloseTo(0.5, 10);
  });

  it('finds the table provider by base_url, else by type; a host named in quirks.provider_hosts counts as base_url', () => {
    expect(tableProviderOf(openai)).toBe('openai');
    expect(tableProviderOf({ name: 'or', base_url: 'https://openrouter.ai/api/v1' })).toBe('openrouter');
    expect(tableProviderOf({ name: 'groq', base_url: 'https://api.groq.com/openai/v1' })).toBe('groq');
    expect(tableProviderOf({ name: 'corp', base_url: 'https://llm.corp.example/v1', type: 'anthropic' })).toBe(
      'anthropic',
    );
    expect(tableProviderOf({ name: 'corp', base_url: 'https://llm.corp.example/v1' })).toBe('openai');
    const viaProxy = { name: 'corp', base_url: 'https://llm.corp.example/v1' };
    expect(tableProviderOf(viaProxy, { corp: 'api.deepseek.com' })).toBe('deepseek');
  });

  it('OpenRouter models by their vendor-prefixed names', () => {
    const or = { name: 'or', base_url: 'https://openrouter.ai/api/v1' };
    const expected = calcPrice({ input_tokens: M, output_tokens: M }, 'anthropic/claude-3.5-sonnet', {
      providerId: 'openrouter',
    })!.total_price;
    expect(priceOf(counts('anthropic/claude-3.5-sonnet'), or).cost_usd).toBeCloseTo(expected, 10);
  });

  it('a model the table does not know is unknown (null), never guessed; with no tokens it costs 0', () => {
    expect(priceOf(counts('my-finetune-7b'), openai)).toEqual({ cost_usd: null, source: 'unknown' });
    expect(priceOf(counts('my-finetune-7b', { prompt_tokens: 0, completion_tokens: 0 }), openai)).toEqual({
      cost_usd: 0,
      source: 'unknown',
    });
    expect(priceOf(counts('gpt-4o-mini'), null)).toEqual({ cost_usd: null, source: 'unknown' });
  });

  it('the fast path for flat prices agrees with the table for every model of OpenAI, Anthropic and Google', () => {
    let checked = 0;
    for (const id of ['openai', 'anthropic', 'google']) {
      const p = findProvider({ providerId: id })!;
      const ours: PricedProvider = { name: `t-${id}`, base_url: `https://${id}.example/v1`, type: 'openai' };
      for (const m of p.models) {
        const name = m.id;
        for (const [prompt, completion, read, write] of [
          [1000, 500, 200, 0],
          [52_341, 7_777, 40_000, 3_000],
          [3, 1, 0, 0],
        ] as const) {
          const r = counts(name, {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cache_read_tokens: read,
            cache_write_tokens: write,
          });
          const table = calcPrice(
            { input_tokens: prompt, output_tokens: completion, cache_read_tokens: read, cache_write_tokens: write },
            name,
            { providerId: id },
          );
          const mine = priceOf(r, {
            ...ours,
            type: id === 'openai' ? 'openai' : id === 'anthropic' ? 'anthropic' : 'gemini',
          });
          if (table === null) expect(mine.cost_usd, name).toBeNull();
          else expect(mine.cost_usd, name).toBeCloseTo(table.total_price, 12);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
});

describe('local providers', () => {
  it('type ollama and a base_url on loopback cost 0', () => {
    expect(priceOf(counts('llama3.2'), { name: 'o', base_url: 'http://localhost:11434', type: 'ollama' })).toEqual({
      cost_usd: 0,
      source: 'local',
    });
    expect(priceOf(counts('gpt-4o-mini'), { name: 'lm', base_url: 'http://127.0.0.1:1234/v1' }).source).toBe('local');
    expect(priceOf(counts('gpt-4o-mini'), { name: 'v6', base_url: 'http://[::1]:8000/v1' }).source).toBe('local');
    expect(priceOf(counts('gpt-4o-mini'), { name: 'lan', base_url: 'http://192.168.1.20:8000/v1' }).source).toBe(
      'price_table',
    );
  });

  it('a loopback provider that quirks.provider_hosts names a vendor host for is priced as that vendor', () => {
    const proxy: PricedProvider = { name: 'corp', base_url: 'http://127.0.0.1:4000/v1' };
    const r = priceOf(counts('gpt-4o-mini'), proxy, { quirks: { provider_hosts: { corp: 'api.openai.com' } } });
    expect(r.source).toBe('price_table');
    expect(r.cost_usd).toBeGreaterThan(0);
    expect(priceOf(counts('gpt-4o-mini'), proxy).source).toBe('local');
  });

  it('loopback is localhost, 127.0.0.0/8, ::1 and IPv4-mapped loopback', () => {
    for (const h of ['localhost', 'api.localhost', '127.0.0.1', '127.8.9.10', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['10.0.0.1', '0.0.0.0', 'example.com', 'localhost.example.com'])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('overrides (config.json prices)', () => {
  const prices: PriceOverride[] = [
    { provider: 'openai', model: 'gpt-4o*', input: 1, output: 2, cache_read: 0.5 },
    { model: 'GPT-4O-MINI', input: 100, output: 100 }, // never reached for provider openai: the first that fits wins
    { provider: 'lan', free: true },
    { provider: 'o', input: 0.2, output: 0.4 }, // a price for a local provider
  ];

  it('the first that fits wins, before the price table; a model glob ignores case', () => {
    expect(priceOf(counts('gpt-4o-mini', { cache_read_tokens: M / 2 }), openai, { prices })).toEqual({
      cost_usd: close(0.5 * 1 + 0.5 * 0.5 + 2),
      source: 'override',
    });
    expect(priceOf(counts('gpt-4o-mini'), anthropic, { prices })).toEqual({ cost_usd: 200, source: 'override' });
    expect(priceOf(counts('o3'), openai, { prices }).source).toBe('price_table');
  });

  it('free is 0; cache tokens without their own price cost the input price; a local provider can be priced', () => {
    const lan = { name: 'lan', base_url: 'http://192.168.1.20/v1' };
    expect(priceOf(counts('anything'), lan, { prices })).toEqual({ cost_usd: 0, source: 'override' });
    const o = { name: 'o', base_url: 'http://localhost:11434', type: 'ollama' as const };
    expect(priceOf(counts('llama3', { cache_write_tokens: M / 2 }), o, { prices }).cost_usd).toBeCloseTo(0.6, 10);
  });

  it('prices 1-hour cache writes at cache_write_1h, else at cache_write', () => {
    const claude: PriceOverride[] = [
      { model: 'my-claude', input: 3, output: 15, cache_write: 3.75, cache_write_1h: 6 },
      { model: 'other', input: 3, output: 15, cache_write: 3.75 },
    ];
    const r = (model: string) =>
      counts(model, { completion_tokens: 0, cache_write_tokens: M / 2, cache_write_1h_tokens: M / 4 });
    expect(priceOf(r('my-claude'), anthropic, { prices: claude }).cost_usd).toBeCloseTo(
      1.5 + 0.25 * 3.75 + 0.25 * 6,
      10,
    );
    expect(priceOf(r('other'), anthropic, { prices: claude }).cost_usd).toBeCloseTo(1.5 + 0.5 * 3.75, 10);
  });
});
