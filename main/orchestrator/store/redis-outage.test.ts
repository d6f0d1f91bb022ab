// The Redis store when Redis is not there: every read barrier and change fails at once with 503 store_unavailable
// (no state kept on the side that would diverge), and works again when Redis is back; and what it says of the
// durability of an acknowledged change with the settings Redis runs with.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorConfig as configWith } from '../../../test/support/orchestrator.ts';
import { startRedis, type TestRedis } from '../../../test/support/redis.ts';
import { ApiError } from '../../errors.ts';
import { connectRedis } from '../../store/redis-connection.ts';
import { agent } from './contract.case.ts';
import { checkDurability, durabilityOf } from './durability.ts';
import { RedisOrchestratorStore } from './redis.ts';

describe('Redis down', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  });
  afterAll(() => redis.stop());

  it('answers 503 store_unavailable while Redis is down, and comes back with what was acknowledged before', async () => {
    const prefix = `o${randomUUID().slice(0, 8)}:`;
    const config = configWith();
    const s = new RedisOrchestratorStore(connectRedis({ kind: 'redis', url: redis.url, prefix }), {
      config: () => config,
    });
    await s.load();
    const before = agent('before');
    await s.commit({ type: 'agent.put', data: before });
    await redis.kill();
    const t0 = Date.now();
    const failed = await s.sync('acme').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ code: 'store_unavailable', status: 503 });
    expect((failed as ApiError).message).toContain(`state in Redis (${redis.url}`);
    const refused = await s.commit({ type: 'agent.put', data: agent('during') }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'store_unavailable' });
    expect(Date.now() - t0).toBeLessThan(5000); // fails at once (no offline queue), never waits for Redis
    expect(s.status().up).toBe(false);
    await redis.restart(); // with its append-only file: what was acknowledged is there
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ok = await s.sync('acme').then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('the store did not come back');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(s.agents.get(before.id)?.name).toBe('before');
    const after = agent('after');
    await s.commit({ type: 'agent.put', data: after });
    expect(s.agents.get(after.id)?.name).toBe('after');
    await s.close();
  });

  it('says what an acknowledged change survives, from the settings Redis runs with', async () => {
    const c = connectRedis({ kind: 'redis', url: redis.url, prefix: 'x:' });
    for (let i = 0; i < 100 && !c.isUp(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await checkDurability(c.client, 0)).toMatchObject({ level: 'fsync' });
    await c.client.config('SET', 'appendfsync', 'everysec');
    expect((await checkDurability(c.client, 0)).text).toContain('may lose the last second');
    await c.client.config('SET', 'appendfsync', 'always');
    await c.close();
  });
});

it('durabilityOf: every combination of settings gets a plain statement', () => {
  const base = { appendonly: 'yes', appendfsync: 'always', save: '', replicas: 0, waitReplicas: 0 };
  expect(durabilityOf(base).level).toBe('fsync');
  expect(durabilityOf({ ...base, appendfsync: 'everysec' }).level).toBe('os-crash-loses-1s');
  expect(durabilityOf({ ...base, appendfsync: 'no' }).text).toContain('~30 seconds');
  expect(durabilityOf({ ...base, appendonly: 'no', save: '3600 1' })).toMatchObject({ level: 'snapshot' });
  expect(durabilityOf({ ...base, appendonly: 'no' })).toMatchObject({ level: 'none' });
  expect(durabilityOf({ ...base, appendonly: null })).toMatchObject({ level: 'unknown' });
  const replicated = durabilityOf({ ...base, appendonly: 'no', replicas: 1, waitReplicas: 1 });
  expect(replicated.level).toBe('replica');
  expect(replicated.text).toContain('1 replica(s)');
});
