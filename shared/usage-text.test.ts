// Usage in words: money (cents, four decimals under a cent, thousands), counts, the unpriced sentence, today's line.
import { describe, expect, it } from 'vitest';
import { formatCount, formatUsd, todayLine, unpricedText } from './usage-text.ts';

describe('usage in words', () => {
  it('formats money so that a cheap request is never shown as free', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.37)).toBe('$0.37');
    expect(formatUsd(0.004929)).toBe('$0.0049');
    expect(formatUsd(0.00001)).toBe('$0.0000');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(-2)).toBe('-$2.00');
  });

  it('counts with thousands separators', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('says unpriced requests, and nothing when every request was priced', () => {
    expect(unpricedText(0)).toBeNull();
    expect(unpricedText(1)).toBe('1 request without a known price');
    expect(unpricedText(3)).toBe('3 requests without a known price');
  });

  it('puts today in one line', () => {
    expect(todayLine({ requests: 142, cost_usd: 0.37, unpriced: 0 })).toBe('142 requests · $0.37 today');
    expect(todayLine({ requests: 0, cost_usd: 0, unpriced: 0 })).toBe('No requests today');
  });
});
