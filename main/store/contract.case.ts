// The shared state's contract, one suite run against every implementation (embedded.test.ts, redis.test.ts): each
// test asks the factory for several store instances over one shared state, as several Switchboard processes would
// have (for Redis: separate connections; for embedded: several views of one process's state).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { CredentialEvent, LimitCaps, LimitVerdict, SharedCircuit, SharedState } from './types.ts';

export type StoreFactory = {
  /** `n` instances sharing one fresh state (nothing from earlier tests). */
  make(n: number): Promise<SharedState[]>;
};

const caps = (c: Partial<LimitCaps>): LimitCaps => ({ rpm: 0, tpm: 0, concurrency: 0, windowMs: 60_000, ...c });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE = 30_000;

async function eventually(check: () => Promise<boolean> | boolean, withinMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`not within ${withinMs} ms`);
    await sleep(5);
  }
}

export function storeContract(name: string, factory: StoreFactory): void {
  describe(`shared state contract: ${name}`, () => {
    let open: SharedState[] = [];
    const make = async (n: number) => {
      const made = await factory.make(n);
      open.push(...made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(open.map((s) => s.close()));
      open = [];
    });

    describe('limits', () => {
      it('RPM holds across instances admitting at once: exactly the limit is admitted, not N times it', async () => {
        const stores = await make(3);
        const verdicts = await Promise.all(
          Array.from({ length: 30 }, (_, i) => stores[i % 3]!.limits.admit('key:a', caps({ rpm: 10 }), 1, LEASE)),
        );
        expect(verdicts.filter((v) => v.ok)).toHaveLength(10);
        const refused = verdicts.filter((v) => !v.ok);
        expect(refused).toHaveLength(20);
        expect(refused.every((v) => !v.ok && v.over === 'rpm')).toBe(true);
      });

      it('property: concurrency in flight never exceeds the limit across N instances, and every slot comes back', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 1, max: 4 }),
            fc.integer({ min: 1, max: 5 }),
            fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 24 }),
            async (n, limit, callers) => {
              const stores = await make(n);
              const c = caps({ concurrency: limit });
              const verdicts = await Promise.all(callers.map((i) => stores[i % n]!.limits.admit('s', c, 0, LEASE)));
              const ok = verdicts.filter((v): v is Extract<LimitVerdict, { ok: true }> => v.ok);
              expect(ok.length).toBe(Math.min(limit, callers.length));
              for (const v of ok) expect(v.inFlight).toBeLessThanOrEqual(limit);
              // Every slot is released: the next caller gets one.
              await Promise.all(ok.map((v, i) => stores[i % n]!.limits.settle(v.lease, null)));
              const again = await stores[0]!.limits.admit('s', c, 0, LEASE);
              expect(again.ok).toBe(true);
              expect(again.inFlight).toBe(1);
            },
          ),
          { numRuns: 25 },
        );
      });

      it('TPM counts the estimate at admission and settles to the actual tokens, on any instance', async () => {
        const [a, b] = await make(2);
        const c = caps({ tpm: 150 });
        const first = await a!.limits.admit('k', c, 100, LEASE);
        expect(first.ok).toBe(true);
        const second = await b!.limits.admit('k', c, 100, LEASE);
        expect(second).toMatchObject({ ok: false, over: 'tpm', tokens: 100 });
        if (!first.ok) throw new Error('unreachable');
        await a!.limits.settle(first.lease, 10);
        const third = await b!.limits.admit('k', c, 100, LEASE);
        expect(third).toMatchObject({ ok: true, tokens: 110 });
      });

      it('a request whose estimate alone is over the TPM never fits (and counts nothing)', async () => {
        const [a] = await make(1);
        const v = await a!.limits.admit('k', caps({ tpm: 50 }), 51, LEASE);
        expect(v).toMatchObject({ ok: false, over: 'never_fits', requests: 0, tokens: 0 });
      });

      it('the window rolls over: counts start afresh', async () => {
        const [a, b] = await make(2);
        const c = caps({ rpm: 1, windowMs: 300 });
        expect((await a!.limits.admit('k', c, 0, LEASE)).ok).toBe(true);
        expect(await b!.limits.admit('k', c, 0, LEASE)).toMatchObject({ ok: false, over: 'rpm' });
        await sleep(350);
        expect(await b!.limits.admit('k', c, 0, LEASE)).toMatchObject({ ok: true, requests: 1 });
      });

      it('a slot held by a dead instance (never settled, never renewed) is reclaimed when its lease expires', async () => {
        const [dead, alive] = await make(2);
        const c = caps({ concurrency: 1 });
        expect((await dead!.limits.admit('k', c, 0, 300)).ok).toBe(true);
        await dead!.close(); // the holder is gone
        expect(await alive!.limits.admit('k', c, 0, 300)).toMatchObject({ ok: false, over: 'concurrency' });
        await sleep(400);
        expect(await alive!.limits.admit('k', c, 0, 300)).toMatchObject({ ok: true, inFlight: 1 });
      });

      it('a renewed lease keeps its slot past its first expiry; renewing an expired one says so', async () => {
        const [a, b] = await make(2);
        const c = caps({ concurrency: 1 });
        const v = await a!.limits.admit('k', c, 0, 600);
        if (!v.ok) throw new Error('not admitted');
        for (let i = 0; i < 6; i++) {
          await sleep(150);
          expect(await a!.limits.renew(v.lease, 600)).toBe(true);
        }
        expect(await b!.limits.admit('k', c, 0, 600)).toMatchObject({ ok: false, over: 'concurrency' });
        await sleep(700);
        expect(await a!.limits.renew(v.lease, 600)).toBe(false);
        expect((await b!.limits.admit('k', c, 0, 600)).ok).toBe(true);
      });

      it('settling twice, or settling a reclaimed lease, frees no one else’s slot', async () => {
        const [a, b] = await make(2);
        const c = caps({ concurrency: 1 });
        const v = await a!.limits.admit('k', c, 0, 200);
        if (!v.ok) throw new Error('not admitted');
        await sleep(250);
        const w = await b!.limits.admit('k', c, 0, LEASE);
        expect(w.ok).toBe(true);
        await a!.limits.settle(v.lease, null);
        await a!.limits.settle(v.lease, null);
        expect(await a!.limits.admit('k', c, 0, LEASE)).toMatchObject({ ok: false, over: 'concurrency' });
      });

      it('scopes are independent', async () => {
        const [a] = await make(1);
        const c = caps({ rpm: 1 });
        expect((await a!.limits.admit('key:x', c, 0, LEASE)).ok).toBe(true);
        expect((await a!.limits.admit('key:y', c, 0, LEASE)).ok).toBe(true);
      });
    });

    describe('credentials', () => {
      it('a revocation published on one instance is heard on another within a second', async () => {
        const [a, b] = await make(2);
        const heard: CredentialEvent[] = [];
        b!.credentials.subscribe((e) => heard.push(e));
        await sleep(50); // the subscription is in place
        await a!.credentials.put('hash1', '{"id":"key_1","revoked_at":"2026-01-01T00:00:00Z"}');
        const t0 = Date.now();
        await a!.credentials.publish({ kind: 'revoked', id: 'key_1' });
        await eventually(() => heard.some((e) => e.kind === 'revoked' && e.id === 'key_1'), 1000);
        expect(Date.now() - t0).toBeLessThan(1000);
        expect(await b!.credentials.get('hash1')).toContain('revoked_at');
      });

      it('records put on one instance are read on another; putIfAbsent keeps the first', async () => {
        const [a, b] = await make(2);
        await a!.credentials.put('h1', 'one');
        expect(await b!.credentials.putIfAbsent('h1', 'other')).toBe(false);
        expect(await b!.credentials.putIfAbsent('h2', 'two')).toBe(true);
        expect(Object.fromEntries(await a!.credentials.all())).toEqual({ h1: 'one', h2: 'two' });
        expect(await b!.credentials.get('nope')).toBeNull();
      });
    });

    describe('video affinity', () => {
      it('a task remembered through one instance is found through another, until its TTL', async () => {
        const [a, b] = await make(2);
        await a!.videos.remember('task-1', 'kling', 300);
        expect(await b!.videos.get('task-1')).toBe('kling');
        expect(await b!.videos.get('task-2')).toBeNull();
        await sleep(400);
        expect(await b!.videos.get('task-1')).toBeNull();
      });
    });

    describe('breakers', () => {
      it('a breaker opened by one instance is seen by the others, and closed the same way', async () => {
        const [a, b, c] = await make(3);
        const heard: [string, SharedCircuit][] = [];
        c!.breakers.subscribe((p, circuit) => heard.push([p, circuit]));
        await sleep(50);
        const until = Date.now() + 5_000;
        await a!.breakers.open('openai', until);
        expect(await b!.breakers.get('openai')).toEqual({ state: 'open', openUntil: until });
        await eventually(() => heard.length === 1, 1000);
        expect(heard[0]).toEqual(['openai', { state: 'open', openUntil: until }]);
        await b!.breakers.close('openai');
        expect(await a!.breakers.get('openai')).toEqual({ state: 'closed', openUntil: 0 });
        await eventually(() => heard.length === 2, 1000);
        expect(heard[1]![1].state).toBe('closed');
      });

      it('exactly one instance gets the half-open probe; it is free again once it expires or the breaker reopens', async () => {
        const stores = await make(3);
        await stores[0]!.breakers.open('p', Date.now());
        const claims = await Promise.all(
          stores.flatMap((s, i) => [
            s.breakers.claimProbe('p', `i${i}`, 300),
            s.breakers.claimProbe('p', `i${i}b`, 300),
          ]),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
        await sleep(350);
        expect(await stores[1]!.breakers.claimProbe('p', 'i1', 300)).toBe(true);
        await stores[2]!.breakers.open('p', Date.now()); // the probe failed: open again, the probe is free
        expect(await stores[2]!.breakers.claimProbe('p', 'i2', 300)).toBe(true);
      });
    });

    it('status names the kind and says up', async () => {
      const [a] = await make(1);
      expect(a!.status()).toMatchObject({ kind: a!.kind, up: true });
      expect(Number.isNaN(Date.parse(a!.status().since))).toBe(false);
    });
  });
}
