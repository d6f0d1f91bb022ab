import { expect, it } from 'vitest';
import { KeyPool, LIMITED_BENCH_MS, REFUSED_BENCH_MS } from './key-pool.ts';

it('pins a session to its key, spreads new sessions round-robin, and moves a benched key’s sessions', () => {
  const pool = new KeyPool(['a', 'b', 'c']);
  const now = 1_000_000;
  expect([pool.pick('s1', now), pool.pick('s2', now), pool.pick('s3', now)]).toEqual([0, 1, 2]);
  expect(pool.pick('s2', now)).toBe(1);
  pool.bench(1, 401, 0, now);
  expect(pool.keys[1]!.benchedUntil).toBe(now + REFUSED_BENCH_MS);
  const moved = pool.pick('s2', now + 1);
  expect(moved).not.toBe(1);
  expect(pool.pick('s2', now + 2)).toBe(moved);
  expect(pool.pick('s2', now + REFUSED_BENCH_MS + 1)).toBe(moved); // back in the pool, but the session stays put
  expect(pool.pick(null, now, new Set([0, 2]))).toBe(-1);
});

it('a 429 benches for its retry-after, else a minute; a new session takes the key with most requests left', () => {
  const pool = new KeyPool(['a', 'b']);
  const now = 5_000_000;
  pool.bench(0, 429, now + 5000, now);
  expect(pool.keys[0]!.benchedUntil).toBe(now + 5000);
  pool.bench(1, 429, 0, now);
  expect(pool.keys[1]!.benchedUntil).toBe(now + LIMITED_BENCH_MS);
  expect(pool.pick('x', now)).toBe(-1);
  expect(pool.firstBack(now)).toBe(now + 5000);

  const fresh = new KeyPool(['a', 'b', 'c']);
  fresh.keys[0]!.quota.read({ 'x-ratelimit-remaining-requests': '3' }, 200, now);
  fresh.keys[1]!.quota.read({ 'x-ratelimit-remaining-requests': '90' }, 200, now);
  fresh.keys[2]!.quota.read({ 'x-ratelimit-remaining-requests': '10' }, 200, now);
  expect(fresh.pick('new', now)).toBe(1);
});

it('a reload keeps benches and pins of the keys still listed', () => {
  const pool = new KeyPool(['a', 'b', 'c']);
  const now = 1000;
  pool.pick('s1', now); // a
  pool.pick('s2', now); // b
  pool.bench(2, 403, 0, now);
  pool.update(['c', 'b']);
  expect(pool.keys.map((k) => k.ref)).toEqual(['c', 'b']);
  expect(pool.keys[0]!.benchedUntil).toBeGreaterThan(now);
  expect(pool.pick('s2', now)).toBe(1);
  expect(pool.pinnedCounts()).toEqual([0, 1]);
});
