// Redis killed mid-use: the store answers locally (admissions continue with this instance's own limits, no call
// throws), the status says down since when; Redis restarted: the status comes back up, admissions count in Redis
// again, and no concurrency slot is left held.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, SHARING_BUDGET } from '../../test/support/redis.ts';
import { openRedisState, type FailOpenState } from './fail-open.ts';
import type { LimitCaps, LimitVerdict } from './types.ts';

let redis: TestRedis;
beforeAll(async () => {
  // DEBUG SLEEP (a slow Redis) needs the debug command (Redis 7 refuses it otherwise).
  redis = await startRedis({ args: ['--save', '', '--appendonly', 'no', '--enable-debug-command', 'local'] });
});
afterAll(async () => {
  await redis.stop();
});

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const caps: LimitCaps = { rpm: 0, tpm: 0, concurrency: 1, windowMs: 60_000 };

describe('fail-open Redis store', () => {
  it('keeps admitting locally while Redis is down, says so, and converges when it is back', async () => {
    const prefix = `f${randomUUID().slice(0, 8)}:`;
    const a: FailOpenState = openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET });
    const b: FailOpenState = openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET });
    try {
      await until(() => a.status().up && b.status().up);
      expect(a.status()).toMatchObject({ kind: 'redis', up: true });
      expect(a.status().url).toContain(`127.0.0.1:${redis.port}`);
      // Shared while up: a's slot refuses b.
      const held = await a.limits.admit('key:k', caps, 0, 30_000);
      expect(held.ok).toBe(true);
      expect(await b.limits.admit('key:k', caps, 0, 30_000)).toMatchObject({ ok: false, over: 'concurrency' });

      const downSince = Date.now();
      await redis.kill();
      await until(() => !a.status().up && !b.status().up);
      expect(Date.parse(a.status().since)).toBeGreaterThanOrEqual(downSince - 1000);
      // Down: every call answers, from local state (each instance its own limits).
      if (!held.ok) throw new Error('unreachable');
      await expect(a.limits.settle(held.lease, 5)).resolves.toBeUndefined();
      const local = await b.limits.admit('key:k', caps, 0, 30_000);
      expect(local.ok).toBe(true);
      expect(await b.limits.admit('key:k', caps, 0, 30_000)).toMatchObject({ ok: false, over: 'concurrency' });
      if (!local.ok) throw new Error('unreachable');
      expect(await b.limits.renew(local.lease, 30_000)).toBe(true);
      await b.limits.settle(local.lease, null);
      expect((await b.limits.admit('key:k', caps, 0, 30_000)).ok).toBe(true); // the local slot came back
      await expect(a.videos.remember('t1', 'p', 60_000)).resolves.toBeUndefined();
      expect(await a.videos.get('t1')).toBe('p'); // from the local copy
      await expect(a.breakers.open('p', Date.now() + 1000)).resolves.toBeUndefined();
      await expect(a.credentials.publish({ kind: 'revoked', id: 'x' })).resolves.toBeUndefined();
      await expect(a.credentials.put('h', 'r')).rejects.toMatchObject({ code: 'store_unavailable', status: 503 });

      const resyncs: string[] = [];
      a.credentials.subscribe((e) => resyncs.push(e.kind));
      await redis.restart();
      await until(() => a.status().up && b.status().up);
      expect(resyncs).toContain('resync');
      // Back: counted in Redis again, shared, and nothing left held from before the outage.
      const again = await a.limits.admit('key:k', caps, 0, 30_000);
      expect(again).toMatchObject({ ok: true, inFlight: 1 });
      expect(await b.limits.admit('key:k', caps, 0, 30_000)).toMatchObject({ ok: false, over: 'concurrency' });
      if (!again.ok) throw new Error('unreachable');
      await a.limits.settle(again.lease, null);
      expect((await b.limits.admit('key:k', caps, 0, 30_000)).ok).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a slot admitted in Redis whose request ended during the outage is reclaimed by its lease', async () => {
    const prefix = `g${randomUUID().slice(0, 8)}:`;
    // Redis stays up but this instance cannot settle (as if the outage were between it and Redis only).
    const a = openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET });
    const b = openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET });
    try {
      await until(() => a.status().up && b.status().up);
      const v = await a.limits.admit('key:z', caps, 0, 300);
      expect(v.ok).toBe(true);
      await a.close(); // its settle never reaches Redis
      expect((await b.limits.admit('key:z', caps, 0, 300)).ok).toBe(false);
      await new Promise((r) => setTimeout(r, 350));
      expect((await b.limits.admit('key:z', caps, 0, 300)).ok).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('never logs or shows the password of the URL', async () => {
    const s = openRedisState({ kind: 'redis', url: 'redis://user:hunter2@127.0.0.1:1/0', prefix: 'x:' });
    try {
      expect(JSON.stringify(s.status())).not.toContain('hunter2');
      expect(s.status().url).toBe('redis://****:****@127.0.0.1:1/0');
      // Nothing listens on port 1: every call answers locally, none throws.
      expect((await s.limits.admit('k', caps, 0, 1000)).ok).toBe(true);
      expect(s.status().up).toBe(false);
    } finally {
      await s.close();
    }
  });

  it('a slow Redis (DEBUG SLEEP) costs the timeout once per trip: then every call is answered locally at once, and Redis is used again after the stall', async () => {
    const prefix = `s${randomUUID().slice(0, 8)}:`;
    const a = openRedisState({ kind: 'redis', url: redis.url, prefix, timeout_ms: 50, trip_after: 3, probe_ms: 100 });
    const other = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    other.on('error', () => {});
    // An RPM under 32 keeps every admission a round trip (no block: redis.ts's MAX_BLOCK), which is what is timed.
    const wide: LimitCaps = { rpm: 30, tpm: 0, concurrency: 100, windowMs: 60_000 };
    try {
      await until(() => a.status().up);
      expect((await a.limits.admit('key:s', wide, 0, 30_000)).ok).toBe(true);
      const stall = other.call('DEBUG', 'SLEEP', '1.5');
      await new Promise((r) => setTimeout(r, 20));
      const took: number[] = [];
      const held: LimitVerdict[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        held.push(await a.limits.admit('key:s', wide, 0, 30_000));
        took.push(performance.now() - t);
      }
      // The first calls waited for the timeout (3 in a row trip the breaker); none after them did.
      expect(took.slice(0, 3).every((ms) => ms >= 45)).toBe(true);
      expect(
        took.slice(3).every((ms) => ms < 20),
        took.map((ms) => ms.toFixed(1)).join(' '),
      ).toBe(true);
      expect(held.every((v) => v.ok)).toBe(true);
      expect(a.status()).toMatchObject({ state: 'slow', fail_open: true, up: true });
      expect(a.redis.conn.breaker.trips).toBe(1);
      await stall;
      await until(() => a.status().state === 'up', 3_000);
      // Back in Redis: its admissions are counted there again (an admission counts, Redis's own count says so).
      const back = await a.limits.admit('key:s', wide, 0, 30_000);
      expect(back.ok).toBe(true);
      // What was admitted locally settles locally, and what timed out was given back in Redis (the stall outlasted the
      // client's 1 s command timeout, so by id): the first slot and this one are the only ones held there.
      await new Promise((r) => setTimeout(r, 100));
      expect(await other.zcard(`${prefix}rl:key:s:leases`)).toBe(2);
      for (const v of held) if (v.ok) await a.limits.settle(v.lease, null);
      expect(a.redis.conn.calls.timeouts).toBeGreaterThanOrEqual(3);
    } finally {
      other.disconnect();
      await a.close();
    }
  });

  it('Redis killed with slots held: this instance counts them, so N instances never hold more than N × the limit', async () => {
    const prefix = `c${randomUUID().slice(0, 8)}:`;
    const two: LimitCaps = { rpm: 0, tpm: 0, concurrency: 2, windowMs: 60_000 };
    const a = openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET });
    const b = openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET });
    try {
      await until(() => a.status().up && b.status().up);
      // a holds both of the key's slots in Redis; its requests are still running when Redis dies.
      const h1 = await a.limits.admit('key:c', two, 0, 30_000);
      const h2 = await a.limits.admit('key:c', two, 0, 30_000);
      expect(h1.ok && h2.ok).toBe(true);
      await redis.kill();
      await until(() => !a.status().up && !b.status().up);
      // a is already at the limit (its two requests in flight); b, holding none, takes two locally: 4 = N × 2.
      expect(await a.limits.admit('key:c', two, 0, 30_000)).toMatchObject({ ok: false, over: 'concurrency' });
      expect((await b.limits.admit('key:c', two, 0, 30_000)).ok).toBe(true);
      expect((await b.limits.admit('key:c', two, 0, 30_000)).ok).toBe(true);
      expect((await b.limits.admit('key:c', two, 0, 30_000)).ok).toBe(false);
      // One of a's requests ends during the outage: its slot is free here.
      if (!h1.ok) throw new Error('unreachable');
      await a.limits.settle(h1.lease, null);
      expect((await a.limits.admit('key:c', two, 0, 30_000)).ok).toBe(true);
      expect((await a.limits.admit('key:c', two, 0, 30_000)).ok).toBe(false);
    } finally {
      await redis.restart();
      await a.close();
      await b.close();
    }
  });
});
