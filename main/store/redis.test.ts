// The shared-state contract against the Redis store: each instance its own connection (as separate processes
// would have) to one real redis-server, each test under its own key prefix.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { storeContract } from './contract.case.ts';
import { openRedisState } from './fail-open.ts';
import type { SharedState } from './types.ts';

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
      Array.from({ length: n }, () => upOf(openRedisState({ kind: 'redis', url: redis.url, prefix }))),
    );
  },
});
