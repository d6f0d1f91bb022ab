// The limiter on the shared store answers as the embedded Limiter does (same verdicts, headers and refusal texts,
// checked as a property on random request sequences), holds its concurrency slot as a renewed lease while the
// request is open, releases it on settle (once), and across instances on one real Redis counts one RPM.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LimitsConfigSchema } from '../../shared/config.ts';
import { startRedis, type TestRedis, SHARING_BUDGET } from '../../test/support/redis.ts';
import { ApiError } from '../errors.ts';
import { type Admission, type EffectiveLimits, effectiveLimits, Limiter } from '../proxy/limits.ts';
import { EmbeddedLimits } from '../store/embedded.ts';
import { openRedisState } from '../store/fail-open.ts';
import { SharedLimiter } from './shared-limiter.ts';

const FILES = { config: 'config.json', keys: 'gateway-keys.json' };
function lim(rpm: number, tpm: number, concurrency: number): EffectiveLimits {
  const cfg = LimitsConfigSchema.parse({ rpm, tpm, concurrency });
  const l = effectiveLimits(cfg, 'gateway', { kind: 'credential', scope: 'key:ci', name: 'ci', own: {} }, FILES);
  if (!l) throw new Error('no limit in force');
  return l;
}

type Outcome = { ok: boolean; headers: Record<string, string>; code?: string; message?: string; action?: string };
const outcomeOf = (a: Admission | null, err: unknown): Outcome =>
  a
    ? { ok: true, headers: a.headers }
    : {
        ok: false,
        headers: (err as ApiError).headers,
        code: (err as ApiError).code,
        message: (err as ApiError).message,
        action: (err as ApiError).action,
      };

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe('SharedLimiter', () => {
  it('property: answers every sequence of admissions and settlements as the embedded Limiter does', async () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('admit' as const), tokens: fc.nat({ max: 120 }) }),
      fc.record({ op: fc.constant('settle' as const), which: fc.nat(), actual: fc.option(fc.nat({ max: 80 })) }),
      fc.record({ op: fc.constant('tick' as const), ms: fc.nat({ max: 40_000 }) }),
    );
    const seen = { admitted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 6 }),
        fc.nat({ max: 300 }),
        fc.nat({ max: 4 }),
        fc.array(step, { maxLength: 40 }),
        async (rpm, tpm, concurrency, steps) => {
          if (rpm + tpm + concurrency === 0) return;
          const l = lim(rpm, tpm, concurrency);
          let now = 1_000_000;
          const clock = () => now;
          const plain = new Limiter(clock);
          const shared = new SharedLimiter(new EmbeddedLimits(clock), 3_600_000);
          const open: [Admission, Admission][] = [];
          for (const s of steps) {
            if (s.op === 'tick') now += s.ms;
            else if (s.op === 'settle') {
              if (open.length === 0) continue;
              const [a, b] = open.splice(s.which % open.length, 1)[0]!;
              a.settle(s.actual);
              b.settle(s.actual);
              await Promise.resolve();
            } else {
              let a: Admission | null = null;
              let b: Admission | null = null;
              let ea: unknown;
              let eb: unknown;
              try {
                a = plain.admit(l, s.tokens);
              } catch (err) {
                ea = err;
              }
              try {
                b = await shared.admit(l, s.tokens);
              } catch (err) {
                eb = err;
              }
              expect(outcomeOf(b, eb)).toEqual(outcomeOf(a, ea));
              seen[a ? 'admitted' : 'refused']++;
              if (a && b) open.push([a, b]);
            }
          }
          for (const [a, b] of open) {
            a.settle(null);
            b.settle(null);
          }
        },
      ),
      { numRuns: 200 },
    );
    // Both kinds of answer were compared, many times.
    expect(seen.admitted).toBeGreaterThan(100);
    expect(seen.refused).toBeGreaterThan(100);
  });

  it('renews the slot while the request is open, and releases it once on settle', async () => {
    const store = new EmbeddedLimits();
    const limiter = new SharedLimiter(store, 400);
    const one = lim(0, 0, 1);
    const held = await limiter.admit(one, 0);
    await new Promise((r) => setTimeout(r, 1_300)); // three lease lengths: kept alive by renewal
    await expect(limiter.admit(one, 0)).rejects.toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    held.settle(5);
    held.settle(5); // once only
    await new Promise((r) => setTimeout(r, 10));
    const next = await limiter.admit(one, 0);
    await expect(limiter.admit(one, 0)).rejects.toMatchObject({
      details: expect.objectContaining({ limit: 'concurrency' }),
    });
    next.settle(null);
  });

  it('on one Redis, three instances share one RPM and one concurrency', async () => {
    const prefix = `l${randomUUID().slice(0, 8)}:`;
    const stores = Array.from({ length: 3 }, () =>
      openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET }),
    );
    try {
      for (let i = 0; i < 200 && !stores.every((s) => s.status().up); i++) await new Promise((r) => setTimeout(r, 5));
      const limiters = stores.map((s) => new SharedLimiter(s.limits));
      const rpm = lim(12, 0, 0);
      const results = await Promise.allSettled(Array.from({ length: 36 }, (_, i) => limiters[i % 3]!.admit(rpm, 1)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(12);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused.every((r) => r.reason instanceof ApiError && r.reason.status === 429)).toBe(true);
      expect((refused[0]!.reason as ApiError).headers['retry-after']).toMatch(/^\d+$/);
      for (const r of results) if (r.status === 'fulfilled') r.value.settle(null);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
