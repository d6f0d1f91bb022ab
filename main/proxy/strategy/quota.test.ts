import { describe, expect, it } from 'vitest';
import { DEFAULT_429_MS, QuotaState, resetAt, UNDATED_READING_MS } from './quota.ts';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('resetAt', () => {
  it("reads OpenAI's durations, seconds, epoch times and dates", () => {
    expect(resetAt('1s', NOW)).toBe(NOW + 1000);
    expect(resetAt('6m0s', NOW)).toBe(NOW + 360_000);
    expect(resetAt('2m59.56s', NOW)).toBe(NOW + 179_560);
    expect(resetAt('250ms', NOW)).toBe(NOW + 250);
    expect(resetAt('1h2m', NOW)).toBe(NOW + 3_720_000);
    expect(resetAt('30', NOW)).toBe(NOW + 30_000);
    expect(resetAt(String(NOW + 5000), NOW)).toBe(NOW + 5000); // epoch ms (OpenRouter)
    expect(resetAt('2025-06-01T12:00:07Z', NOW)).toBe(NOW + 7000); // Anthropic's RFC 3339
    expect(resetAt('soon', NOW)).toBe(0);
    expect(resetAt(undefined, NOW)).toBe(0);
  });
});

describe('QuotaState', () => {
  it('knows nothing until a reply says something, and refuses nothing then', () => {
    const q = new QuotaState();
    expect(q.read({ 'content-type': 'application/json' }, 200, NOW)).toBe(false);
    expect(q.spent(1000, NOW)).toBeNull();
    expect(q.requestsLeft(NOW)).toBe(-1);
  });

  it('x-ratelimit-remaining-requests: 0 is spent until its reset, then forgotten', () => {
    const q = new QuotaState();
    q.read(
      {
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-reset-requests': '20s',
      },
      200,
      NOW,
    );
    expect(q.spent(10, NOW)).toBe('requests');
    expect(q.describe('requests', 10, NOW)).toMatch(/0 requests left of 500, until 2025-06-01T12:00:20.000Z/);
    expect(q.reopensAt('requests', NOW)).toBe(NOW + 20_000);
    expect(q.spent(10, NOW + 20_000)).toBeNull();
  });

  it('counts the requests sent since the reading, so concurrent requests do not all take the last one', () => {
    const q = new QuotaState();
    q.read({ 'x-ratelimit-remaining-requests': '2', 'x-ratelimit-reset-requests': '1m0s' }, 200, NOW);
    expect(q.spent(1, NOW)).toBeNull();
    q.sent(1);
    expect(q.requestsLeft(NOW)).toBe(1);
    q.sent(1);
    expect(q.spent(1, NOW)).toBe('requests');
    // A new reading replaces the count.
    q.read({ 'x-ratelimit-remaining-requests': '40' }, 200, NOW + 1);
    expect(q.spent(1, NOW + 1)).toBeNull();
  });

  it("a request whose tokens exceed what is left is refused; Anthropic's headers and its tighter input count", () => {
    const q = new QuotaState();
    q.read(
      {
        'anthropic-ratelimit-requests-remaining': '49',
        'anthropic-ratelimit-tokens-remaining': '90000',
        'anthropic-ratelimit-input-tokens-remaining': '3000',
        'anthropic-ratelimit-input-tokens-reset': '2025-06-01T12:00:30Z',
      },
      200,
      NOW,
    );
    expect(q.spent(2000, NOW)).toBeNull();
    expect(q.spent(5000, NOW)).toBe('tokens');
    expect(q.reopensAt('tokens', NOW)).toBe(NOW + 30_000);
  });

  it('a reading without a reset time holds for a minute', () => {
    const q = new QuotaState();
    q.read({ 'x-ratelimit-remaining-requests': '0' }, 200, NOW);
    expect(q.spent(1, NOW + UNDATED_READING_MS - 1)).toBe('requests');
    expect(q.spent(1, NOW + UNDATED_READING_MS)).toBeNull();
  });

  it('a 429 blocks until its retry-after, else the window reset, else a minute', () => {
    const a = new QuotaState();
    a.read({ 'retry-after': '7' }, 429, NOW);
    expect(a.spent(1, NOW + 6999)).toBe('retry_after');
    expect(a.spent(1, NOW + 7000)).toBeNull();
    const b = new QuotaState();
    b.read({ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '12s' }, 429, NOW);
    expect(b.reopensAt('retry_after', NOW)).toBe(NOW + 12_000);
    const c = new QuotaState();
    c.read({}, 429, NOW);
    expect(c.reopensAt(c.spent(1, NOW), NOW)).toBe(NOW + DEFAULT_429_MS);
  });

  it('says what it knows for the route tester', () => {
    const q = new QuotaState();
    expect(q.snapshot(NOW)).toBeNull();
    q.read({ 'x-ratelimit-remaining-requests': '7', 'x-ratelimit-limit-requests': '10' }, 200, NOW);
    expect(q.snapshot(NOW)).toMatchObject({ requests_left: 7, requests_limit: 10, tokens_left: -1 });
  });
});
