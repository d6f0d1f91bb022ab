import { describe, expect, it } from 'vitest';
import { HALF_LIFE_MS, LatencyBook, STALE_MS } from './latency.ts';

const T = 1_000_000;

describe('LatencyBook', () => {
  it('knows nothing at first; a stream gives a time to first byte and a speed', () => {
    const b = new LatencyBook();
    expect(b.estimate('m', 100, T)).toBe(-1);
    b.record('m', 200, 1200, 101, true, T); // 100 tokens after the first byte in 1 s
    expect(b.estimate('m', 100, T)).toBeCloseTo(200 + 1000);
    expect(b.snapshot('m', T)).toMatchObject({ source: 'traffic', ttfb_ms: 200, tokens_per_s: 100, samples: 1 });
  });

  it('a whole reply gives its time alone', () => {
    const b = new LatencyBook();
    b.record('m', 800, 800, 50, true, T);
    expect(b.estimate('m', 1000, T)).toBe(800);
  });

  it('weighs a new sample by the silence before it: at least MIN_WEIGHT, most of it after a half-life or more', () => {
    const b = new LatencyBook();
    b.record('m', 100, 100, null, true, T);
    b.record('m', 1100, 1100, null, true, T + 1); // right after: weight 0.3
    expect(b.estimate('m', 0, T + 1)).toBeCloseTo(400);
    const c = new LatencyBook();
    c.record('m', 100, 100, null, true, T);
    c.record('m', 1100, 1100, null, true, T + 2 * HALF_LIFE_MS); // 3/4 of the old estimate forgotten
    expect(c.estimate('m', 0, T + 2 * HALF_LIFE_MS)).toBeCloseTo(100 + 0.75 * 1000);
  });

  it('forgets an estimate without a sample for STALE_MS (the provider is measured again)', () => {
    const b = new LatencyBook();
    b.record('m', 100, 100, null, true, T);
    expect(b.estimate('m', 0, T + STALE_MS - 1)).toBe(100);
    expect(b.estimate('m', 0, T + STALE_MS)).toBe(-1);
  });

  it('a health check stands in for a model not measured yet, never for one that is', () => {
    const b = new LatencyBook();
    b.recordHealth(40, T);
    expect(b.estimate('other', 100, T)).toBe(40);
    expect(b.snapshot('other', T)).toMatchObject({ source: 'health_check', ttfb_ms: 40 });
    b.record('m', 900, 900, null, true, T);
    expect(b.estimate('m', 100, T)).toBe(900);
  });
});
