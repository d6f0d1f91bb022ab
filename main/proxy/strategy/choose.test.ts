import { describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../../shared/config.ts';
import { ProviderPool } from '../provider-pool.ts';
import { Router } from '../routing.ts';
import { chooseOrder, expectedOutput, type PriceBook, type RequestSize } from './choose.ts';

const NOW = 5_000_000;

function setup(strategy: string | undefined, names = ['a', 'b', 'c']) {
  const r = parseConfig({
    providers: [...names, 'z'].map((name) => ({ name, base_url: `http://127.0.0.1/${name}` })),
    routing: {
      default_provider: 'z',
      rules: [{ pattern: 'm*', providers: names, ...(strategy ? { strategy } : {}) }],
    },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const config: Config = r.config;
  const pool = new ProviderPool(config);
  const route = new Router(config, '/cfg').resolve('model-1', null);
  return { config, pool, route };
}

/** USD per million tokens by provider name: [input, output]; absent: no price. */
function book(prices: Record<string, [number, number]>): PriceBook {
  return { perMillion: (p) => (prices[p.name] ? { input: prices[p.name]![0], output: prices[p.name]![1] } : null) };
}

const SIZE: RequestSize = { promptTokens: 10_000, outputTokens: 1000 };

function order(s: ReturnType<typeof setup>, prices: PriceBook | null, size = SIZE): string[] {
  const ctx = { pool: s.pool, book: prices, config: s.config, size, now: NOW };
  return chooseOrder(s.route.candidates, s.route.choice!, ctx).map((c) => c.provider);
}

describe('a route and its strategy', () => {
  it('a rule without a strategy has no choice to make (its candidates are the cached list)', () => {
    const s = setup(undefined);
    expect(s.route.choice).toBeNull();
    expect(s.route.candidates.map((c) => c.label)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("labels each candidate of a strategy's rule with it (x-switchboard-route), the default provider stays apart", () => {
    const s = setup('cheapest');
    expect(s.route.candidates.map((c) => c.label ?? c.reason)).toEqual([
      'rule:m*; strategy=cheapest',
      'rule:m*; strategy=cheapest',
      'rule:m*; strategy=cheapest',
      'default',
    ]);
    expect(s.route.choice!.groups).toEqual([{ strategy: 'cheapest', rule: 0, pattern: 'm*', from: 0, to: 3 }]);
    expect(s.route.steps[0]).toBe('rule 1 "m*" matches → a, b, c (strategy cheapest)');
  });

  it('only providers a strategy rule names are tracked (quota and speed)', () => {
    const s = setup('fastest', ['a', 'b']);
    expect(s.pool.get('a')!.quota).not.toBeNull();
    expect(s.pool.get('z')!.quota).toBeNull();
    expect(s.pool.get('z')!.latency).toBeNull();
  });
});

describe('ordered', () => {
  it('keeps the list', () => {
    expect(order(setup('ordered'), book({ c: [0, 0] }))).toEqual(['a', 'b', 'c', 'z']);
  });
});

describe('cheapest', () => {
  it("orders by the price of the request's tokens; the unpriced come last in listed order; the default stays last", () => {
    const s = setup('cheapest', ['a', 'b', 'c', 'd']);
    // 10k in + 1k out: a $0.030+0.015, b $0.005+0.020, c unpriced, d $0 (local)
    expect(order(s, book({ a: [3, 15], b: [0.5, 20], d: [0, 0] }))).toEqual(['d', 'b', 'a', 'c', 'z']);
  });

  it('weighs input against output by the request: a long prompt favours cheap input', () => {
    const s = setup('cheapest', ['a', 'b']);
    const prices = book({ a: [1, 2], b: [0.2, 10] });
    expect(order(s, prices, { promptTokens: 100_000, outputTokens: 100 })).toEqual(['b', 'a', 'z']);
    expect(order(s, prices, { promptTokens: 100, outputTokens: 4000 })).toEqual(['a', 'b', 'z']);
  });

  it('without a price book every provider is unpriced: the listed order', () => {
    expect(order(setup('cheapest'), null)).toEqual(['a', 'b', 'c', 'z']);
  });
});

describe('fastest', () => {
  it('orders by the measured time; an unmeasured provider goes first, to be measured', () => {
    const s = setup('fastest');
    s.pool.get('a')!.latency!.record('model-1', 900, 900, null, true, NOW);
    s.pool.get('b')!.latency!.record('model-1', 100, 100, null, true, NOW);
    expect(order(s, null)).toEqual(['c', 'b', 'a', 'z']);
    s.pool.get('c')!.latency!.record('model-1', 400, 400, null, true, NOW);
    expect(order(s, null)).toEqual(['b', 'c', 'a', 'z']);
  });

  it('counts the expected output at the measured speed', () => {
    const s = setup('fastest', ['a', 'b']);
    // a: quick first byte, 20 tok/s; b: slower first byte, 200 tok/s.
    s.pool.get('a')!.latency!.record('model-1', 100, 100 + 5000, 101, true, NOW);
    s.pool.get('b')!.latency!.record('model-1', 600, 600 + 500, 101, true, NOW);
    expect(order(s, null, { promptTokens: 10, outputTokens: 1000 })).toEqual(['b', 'a', 'z']);
    expect(order(s, null, { promptTokens: 10, outputTokens: 5 })).toEqual(['a', 'b', 'z']);
  });
});

describe('balanced', () => {
  it('adds cost and time, each scaled from the best (0) to the worst (1)', () => {
    const s = setup('balanced');
    const prices = book({ a: [10, 30], b: [1, 3], c: [0.5, 1.5] });
    // a: dearest (1) and fairly fast (0.1); b: cheap (0.05) and fastest (0); c: cheapest (0) and slowest (1).
    s.pool.get('a')!.latency!.record('model-1', 300, 300, null, true, NOW);
    s.pool.get('b')!.latency!.record('model-1', 100, 100, null, true, NOW);
    s.pool.get('c')!.latency!.record('model-1', 2000, 2000, null, true, NOW);
    expect(order(s, prices)).toEqual(['b', 'c', 'a', 'z']);
  });
});

describe('expectedOutput', () => {
  it("is the request's max tokens, capped; 1024 when it gives none", () => {
    expect(expectedOutput(undefined)).toBe(1024);
    expect(expectedOutput(200)).toBe(200);
    expect(expectedOutput(32_000)).toBe(4096);
  });
});
