// Breakers shared across instances (BreakerSync over the shared state), each instance its own CircuitBreaker as in
// its own process: one opening opens all, exactly one instance gets the half-open probe, its success closes all and
// its failure reopens all. Run over the embedded store and over a real Redis (separate connections).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, SHARING_BUDGET } from '../../test/support/redis.ts';
import { CircuitBreaker } from '../proxy/breaker.ts';
import { EmbeddedBacking, EmbeddedState } from '../store/embedded.ts';
import { openRedisState } from '../store/fail-open.ts';
import type { SharedState } from '../store/types.ts';
import { BreakerSync } from './shared-breakers.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await sleep(5);
  }
}

const factories: Record<string, (n: number) => Promise<SharedState[]>> = {
  embedded: async (n) => {
    const backing = new EmbeddedBacking();
    return Array.from({ length: n }, () => new EmbeddedState(backing));
  },
  redis: async (n) => {
    const prefix = `b${randomUUID().slice(0, 8)}:`;
    const made = Array.from({ length: n }, () =>
      openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET }),
    );
    await until(() => made.every((s) => s.status().up));
    return made;
  },
};

for (const [kind, make] of Object.entries(factories)) {
  describe(`shared breakers (${kind})`, () => {
    it('one opening opens all; one probe across instances; its success closes all, its failure reopens all', async () => {
      const stores = await make(3);
      const syncs = stores.map((s, i) => new BreakerSync(s.breakers, `i${i}`));
      const breakers = stores.map(() => new CircuitBreaker({ failure_threshold: 2, cooldown_ms: 300 }));
      syncs.forEach((sync, i) => sync.attach('p', breakers[i]!));
      try {
        await sleep(50); // subscriptions in place
        breakers[0]!.failure();
        breakers[0]!.failure();
        expect(breakers[0]!.state).toBe('open');
        const opened = Date.now();
        await until(() => breakers.every((b) => b.state === 'open'), 1_000);
        expect(Date.now() - opened).toBeLessThan(1_000);
        expect(breakers.map((b) => b.allow())).toEqual([false, false, false]);

        // After the cool-down exactly one instance may send the probe, however many ask.
        await sleep(400);
        const allowed = breakers.flatMap((b) => [b.allow(), b.allow()]);
        expect(allowed.filter(Boolean)).toHaveLength(1);
        const prober = breakers.find((b) => b.state === 'half_open')!;

        // The probe fails: every instance opens again (a new cool-down), and again exactly one probe later.
        prober.failure();
        await until(() => breakers.every((b) => b.state === 'open' && b.openUntil === prober.openUntil), 1_000);
        await sleep(400);
        const second = breakers.flatMap((b) => [b.allow(), b.allow()]);
        expect(second.filter(Boolean)).toHaveLength(1);

        // Its success closes every instance's breaker.
        breakers.find((b) => b.state === 'half_open')!.success();
        await until(() => breakers.every((b) => b.state === 'closed'), 1_000);
        expect(breakers.map((b) => b.allow())).toEqual([true, true, true]);
      } finally {
        syncs.forEach((s) => s.close());
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it('an instance that starts while a breaker is open takes the open state', async () => {
      const [a, b] = await make(2);
      const syncA = new BreakerSync(a!.breakers, 'a');
      const syncB = new BreakerSync(b!.breakers, 'b');
      try {
        const ba = new CircuitBreaker({ failure_threshold: 1, cooldown_ms: 5_000 });
        syncA.attach('p', ba);
        ba.failure();
        await sleep(50);
        const late = new CircuitBreaker({ failure_threshold: 1, cooldown_ms: 5_000 });
        syncB.attach('p', late);
        await until(() => late.state === 'open', 1_000);
        expect(late.openUntil).toBe(ba.openUntil);
      } finally {
        syncA.close();
        syncB.close();
        await a!.close();
        await b!.close();
      }
    });
  });
}
