import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { estimateTokens, formatReset, Limiter } from './limits.ts';

const lim = (rpm: number, tpm: number, concurrency: number) => ({ rpm, tpm, concurrency, windowMs: 60_000 });

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a 429');
}

describe('Limiter', () => {
  it('counts requests per window and resets at the window end', () => {
    let now = 1_000;
    const l = new Limiter(() => now);
    l.admit('a', lim(2, 0, 0), 1).settle(null);
    const second = l.admit('a', lim(2, 0, 0), 1);
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('0');
    const e = refusal(() => l.admit('a', lim(2, 0, 0), 1));
    expect(e.status).toBe(429);
    expect(e.code).toBe('rate_limit_exceeded');
    expect(e.type).toBe('rate_limit_error');
    expect(e.headers['retry-after']).toBe('60');
    expect(e.headers['x-ratelimit-reset-requests']).toBe('1m0s');
    now += 30_000;
    expect(refusal(() => l.admit('a', lim(2, 0, 0), 1)).headers['retry-after']).toBe('30');
    l.admit('b', lim(2, 0, 0), 1); // another scope is independent
    now += 30_000;
    expect(l.admit('a', lim(2, 0, 0), 1).headers['x-ratelimit-remaining-requests']).toBe('1');
  });

  it('settles tokens with the reported usage, in the window they were admitted in', () => {
    let now = 0;
    const l = new Limiter(() => now);
    const a = l.admit('s', lim(0, 100, 0), 10);
    expect(a.headers['x-ratelimit-remaining-tokens']).toBe('90');
    a.settle(70);
    a.settle(5); // once only
    expect(l.admit('s', lim(0, 100, 0), 30).headers['x-ratelimit-remaining-tokens']).toBe('0');
    expect(refusal(() => l.admit('s', lim(0, 100, 0), 1)).message).toContain('100 tokens per minute');
    const late = l.admit('t', lim(0, 100, 0), 10);
    now = 61_000;
    l.admit('t', lim(0, 100, 0), 5);
    late.settle(90); // belongs to the old window: not counted in the new one
    expect(l.admit('t', lim(0, 100, 0), 5).headers['x-ratelimit-remaining-tokens']).toBe('90');
  });

  it('refuses a single request larger than the TPM with a message that says so', () => {
    const l = new Limiter(() => 0);
    expect(refusal(() => l.admit('s', lim(0, 100, 0), 101)).message).toContain('larger than the limit');
  });

  it('limits requests in flight and frees a slot on settle', () => {
    const l = new Limiter(() => 0);
    const a = l.admit('c', lim(0, 0, 1), 0);
    const e = refusal(() => l.admit('c', lim(0, 0, 1), 0));
    expect(e.message).toContain('concurrent requests');
    expect(e.headers['retry-after']).toBe('1');
    a.settle(null);
    l.admit('c', lim(0, 0, 1), 0);
  });

  it('0 means no limit, and no headers for that limit', () => {
    const l = new Limiter(() => 0);
    for (let i = 0; i < 1000; i++) l.admit('z', lim(0, 0, 0), 1000);
    expect(l.admit('z', lim(0, 0, 0), 0).headers).toEqual({});
  });
});

describe('helpers', () => {
  it('estimates a token per 4 bytes and formats resets like OpenAI', () => {
    expect(estimateTokens(0)).toBe(0);
    expect(estimateTokens(9)).toBe(3);
    expect(formatReset(250)).toBe('250ms');
    expect(formatReset(1500)).toBe('2s');
    expect(formatReset(61_000)).toBe('1m1s');
  });
});
