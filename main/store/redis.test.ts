// The shared-state contract against the Redis store: each instance its own connection (as separate processes
// would have) to one real redis-server, each test under its own key prefix.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, SHARING_BUDGET } from '../../test/support/redis.ts';
import { storeContract } from './contract.case.ts';
import { openRedisState } from './fail-open.ts';
import { BLOCK_IDLE_MS, MAX_BLOCK } from './redis.ts';
import type { LimitCaps, LimitVerdict, SharedState } from './types.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** Resolves once the store's connection is up. */
export async function upOf(s: SharedState): Promise<SharedState> {
  for (let i = 0; i < 400 && !s.status().up; i++) await new Promise((r) => setTimeout(r, 5));
  if (!s.status().up) throw new Error('Redis did not come up');
  return s;
}

storeContract('redis', {
  async make(n) {
    const prefix = `t${randomUUID().slice(0, 8)}:`;
    return Promise.all(
      Array.from({ length: n }, () =>
        upOf(openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET })),
      ),
    );
  },
});

describe('blocks (issue 36: a round trip per request was most of the Redis store cost)', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const open = async (n: number) => {
    const prefix = `b${randomUUID().slice(0, 8)}:`;
    const stores = await Promise.all(
      Array.from({ length: n }, () =>
        upOf(openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET })),
      ),
    );
    const client = new Redis(redis.url);
    return { prefix, stores, client };
  };

  it('far from its limits a scope is admitted from a block: counted in Redis when granted, used without a round trip, the rest given back once idle', async () => {
    const { prefix, stores, client } = await open(1);
    const [a] = stores;
    try {
      const caps: LimitCaps = { rpm: 10_000, tpm: 0, concurrency: 1_000, windowMs: 60_000 };
      const admitted: LimitVerdict[] = [];
      for (let i = 0; i < 5; i++) admitted.push(await a!.limits.admit('k', caps, 10, 30_000));
      expect(admitted.every((v) => v.ok)).toBe(true);
      // One block: MAX_BLOCK requests counted (at most 1/16 of what was left), MAX_BLOCK / 16 of the slots reserved.
      expect(Number(await client.hget(`${prefix}rl:k`, 'req'))).toBe(Math.min(MAX_BLOCK, 10_000 / 16));
      expect(await client.zcard(`${prefix}rl:k:leases`)).toBe(Math.floor(1_000 / 16));
      for (const v of admitted) if (v.ok) await a!.limits.settle(v.lease, 4);
      await sleep(BLOCK_IDLE_MS * 3);
      // Given back: Redis counts what was admitted (5 requests, their actual 4 tokens each), no slot is held.
      expect(await client.hmget(`${prefix}rl:k`, 'req', 'tok')).toEqual(['5', '20']);
      expect(await client.zcard(`${prefix}rl:k:leases`)).toBe(0);
    } finally {
      client.disconnect();
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('with blocks on three instances an RPM is still exact: 300 admissions at once against 200 RPM admit 200', async () => {
    const { prefix, stores, client } = await open(3);
    try {
      const caps: LimitCaps = { rpm: 200, tpm: 0, concurrency: 0, windowMs: 60_000 };
      const verdicts = await Promise.all(
        Array.from({ length: 300 }, (_, i) => stores[i % 3]!.limits.admit('k', caps, 0, 30_000)),
      );
      expect(verdicts.filter((v) => v.ok)).toHaveLength(200);
      expect(verdicts.filter((v) => !v.ok).every((v) => !v.ok && v.over === 'rpm')).toBe(true);
      await sleep(BLOCK_IDLE_MS * 3);
      expect(await client.hget(`${prefix}rl:k`, 'req')).toBe('200');
    } finally {
      client.disconnect();
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('a concurrency cap holds across instances with blocks: slots reserved by one are not given to another', async () => {
    const { stores, client } = await open(2);
    const [a, b] = stores;
    try {
      const caps: LimitCaps = { rpm: 0, tpm: 0, concurrency: 64, windowMs: 60_000 };
      const first = await Promise.all(Array.from({ length: 40 }, () => a!.limits.admit('k', caps, 0, 30_000)));
      const second = await Promise.all(Array.from({ length: 40 }, () => b!.limits.admit('k', caps, 0, 30_000)));
      const ok = [...first, ...second].filter((v) => v.ok);
      expect(ok).toHaveLength(64);
      for (const v of first) if (v.ok) await a!.limits.settle(v.lease, null);
      await sleep(BLOCK_IDLE_MS * 3);
      // a's slots went back when it went idle: b can take them.
      const more = await Promise.all(Array.from({ length: 40 }, () => b!.limits.admit('k', caps, 0, 30_000)));
      expect(more.filter((v) => v.ok)).toHaveLength(64 - (ok.length - first.filter((v) => v.ok).length));
    } finally {
      client.disconnect();
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
