import { describe, expect, it } from 'vitest';
import { chartColours, roundStep, yTicks } from './chart-scale.ts';

describe('the y axis of a usage chart', () => {
  it('an empty chart of counts reads 0 and 1 (issue 34, bug 9: it read "1, 1, 0")', () => {
    expect(yTicks(0, true)).toEqual([0, 1]);
  });
  it('counts get whole ticks only, each label once', () => {
    for (const max of [1, 2, 3, 7, 13, 99, 1234, 100_000]) {
      const ticks = yTicks(max, true);
      expect(ticks.every(Number.isInteger), `${max}: ${ticks}`).toBe(true);
      expect(new Set(ticks).size).toBe(ticks.length);
      expect(ticks[0]).toBe(0);
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(11);
    }
    expect(yTicks(3, true)).toEqual([0, 1, 2, 3, 4]);
  });
  it('money may step in cents', () => {
    expect(yTicks(0.034, false)).toEqual([0, 0.01, 0.02, 0.03, 0.04]);
  });
  it('round steps are 1, 2 or 5 times a power of ten', () => {
    expect([0.3, 1, 1.5, 3, 7, 40].map(roundStep)).toEqual([0.5, 1, 2, 5, 10, 50]);
  });
  it('the colours come from the scheme in force', () => {
    const dark = {
      getPropertyValue: (n: string) => ({ '--chart-grid': ' #334155', '--chart-axis': '#cbd5e1' })[n] ?? '',
    };
    expect(chartColours(dark)).toEqual({ grid: '#334155', axis: '#cbd5e1' });
    expect(chartColours({ getPropertyValue: () => '' })).toEqual({ grid: '#e5e7eb', axis: '#4b5563' });
  });
});
