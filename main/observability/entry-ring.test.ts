import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { AttemptLog, RequestLogEntry } from '../../shared/admin.ts';
import { EntryRing } from './entry-ring.ts';
import { isoTime } from './iso-time.ts';

/** An entry as the front door makes one (newLogEntry, recordOutcome, stampLogEntry). */
function entry(over: Partial<RequestLogEntry> = {}): RequestLogEntry {
  const t = Date.UTC(2026, 10, 27, 5, 20, 11, 7);
  return {
    id: randomUUID(),
    time: isoTime(t),
    method: 'POST',
    path: '/v1/chat/completions',
    app: null,
    app_source: null,
    requested_model: 'gpt-4o-mini',
    routed_model: 'gpt-4o-mini',
    provider: 'mock',
    route: 'rule:*',
    attempts: [{ provider: 'mock', status: 200, error: null, latency_ms: 3 }],
    status: 200,
    error_code: null,
    stream: false,
    latency_ms: 4,
    ttfb_ms: null,
    prompt_tokens: 212,
    completion_tokens: 50,
    cache_read_tokens: null,
    cache_write_tokens: null,
    reasoning_tokens: null,
    ...over,
  };
}

const copy = (e: RequestLogEntry): RequestLogEntry => JSON.parse(JSON.stringify(e)) as RequestLogEntry;

const text = fc.oneof(fc.string(), fc.constantFrom('gpt-4o-mini', 'claude-sonnet-4', '', 'é', '\u0000"\\'));
const nullable = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof(a, fc.constant(null));
const count = fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true }));
/** The times toISOString writes with a four-digit year: 0000-01-01 to 9999-12-31. */
const time = fc.integer({ min: -62167219200000, max: 253402300799999 });

/** Entries the columns hold: every value a RequestLogEntry may carry, one clean attempt or none. */
const fitting: fc.Arbitrary<{ e: RequestLogEntry; ms: number }> = fc
  .record({
    ms: time,
    method: text,
    path: text,
    app: nullable(text),
    app_source: nullable(
      fc.constantFrom('header', 'x-title', 'api-key', 'process', 'user-agent') as fc.Arbitrary<
        NonNullable<RequestLogEntry['app_source']>
      >,
    ),
    requested_model: nullable(text),
    routed_model: nullable(text),
    provider: nullable(text),
    route: nullable(text),
    attempt: fc.option(
      fc.record({ provider: text, status: nullable(fc.integer({ min: 100, max: 599 })), latency_ms: count }),
    ),
    status: fc.integer({ min: 0, max: 599 }),
    error_code: nullable(text),
    stream: fc.boolean(),
    latency_ms: count,
    ttfb_ms: nullable(count),
    prompt_tokens: nullable(count),
    completion_tokens: nullable(count),
    cache_read_tokens: fc.option(nullable(count), { nil: undefined }),
    cache_write_tokens: fc.option(nullable(count), { nil: undefined }),
    cache_write_5m_tokens: fc.option(nullable(count), { nil: undefined }),
    cache_write_1h_tokens: fc.option(nullable(count), { nil: undefined }),
    reasoning_tokens: fc.option(nullable(count), { nil: undefined }),
    session: fc.option(nullable(text), { nil: undefined }),
  })
  .map(
    ({
      ms,
      attempt,
      cache_read_tokens,
      cache_write_tokens,
      cache_write_5m_tokens,
      cache_write_1h_tokens,
      reasoning_tokens,
      session,
      ...rest
    }) => {
      const e: RequestLogEntry = {
        id: randomUUID(),
        time: isoTime(ms),
        method: rest.method,
        path: rest.path,
        app: rest.app,
        app_source: rest.app_source,
        requested_model: rest.requested_model,
        routed_model: rest.routed_model,
        provider: rest.provider,
        route: rest.route,
        attempts: attempt
          ? [{ provider: attempt.provider, status: attempt.status, error: null, latency_ms: attempt.latency_ms }]
          : [],
        status: rest.status,
        error_code: rest.error_code,
        stream: rest.stream,
        latency_ms: rest.latency_ms,
        ttfb_ms: rest.ttfb_ms,
        prompt_tokens: rest.prompt_tokens,
        completion_tokens: rest.completion_tokens,
      };
      if (cache_read_tokens !== undefined) e.cache_read_tokens = cache_read_tokens;
      if (cache_write_tokens !== undefined) e.cache_write_tokens = cache_write_tokens;
      if (cache_write_5m_tokens !== undefined) e.cache_write_5m_tokens = cache_write_5m_tokens;
      if (cache_write_1h_tokens !== undefined) e.cache_write_1h_tokens = cache_write_1h_tokens;
      if (reasoning_tokens !== undefined) e.reasoning_tokens = reasoning_tokens;
      if (session !== undefined) e.session = session;
      return { e, ms };
    },
  );

describe('EntryRing', () => {
  it('gives back every entry it kept in columns equal to what was pushed, field for field and in order', () => {
    fc.assert(
      fc.property(fc.array(fitting, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 8 }), (items, cap) => {
        const ring = new EntryRing(cap);
        const expected = items.map(({ e }) => copy(e));
        for (const { e } of items) ring.push(e);
        const got = ring.recent();
        const want = expected.slice(-cap);
        expect(JSON.stringify(got)).toBe(JSON.stringify(want)); // same keys in the same order
        expect(got).toStrictEqual(items.slice(-cap).map(({ e }) => e)); // -0, absent fields: what JSON cannot say
        got.forEach((g, i) => expect(g).not.toBe(items.slice(-cap)[i]!.e)); // rebuilt, not the object kept
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the entry as it was when pushed', () => {
    const ring = new EntryRing(4);
    const e = entry();
    const before = copy(e);
    ring.push(e);
    e.status = 500;
    e.attempts[0]!.status = 502;
    expect(ring.recent()).toEqual([before]);
  });

  it('keeps as they are the entries the columns cannot hold, and their order among the others', () => {
    const ring = new EntryRing(20);
    const odd: RequestLogEntry[] = [
      entry({ id: '1' }), // the tests' ids, a team instance's
      entry({ id: randomUUID().toUpperCase() }),
      entry({ time: new Date(0).toString() }),
      entry({ time: '2026-11-27T05:20:11.7Z' }),
      entry({ time: '2026-11-27T05:20:11.007+00:00'.slice(0, 24) }),
      entry({ attempts: [{ provider: 'a', status: null, error: 'connect ECONNREFUSED', latency_ms: 0 }] }),
      entry({
        attempts: [
          { provider: 'a', status: 503, error: null, latency_ms: 1 },
          { provider: 'b', status: 200, error: null, latency_ms: 2 },
        ],
      }),
      entry({
        attempts: [{ provider: 'a', status: 200, error: null, latency_ms: 1, dropped: ['seed=1: unsupported'] }],
      }),
      entry({ latency_ms: Number.NaN }),
      entry({ prompt_tokens: Number.POSITIVE_INFINITY }),
      entry({ status: null as unknown as number }),
      entry({ stream: 'yes' as unknown as boolean }),
      entry({ app: 7 as unknown as string }),
      entry({ attempts: [{ provider: 'a', status: 200, error: null, latency_ms: -Infinity } as AttemptLog] }),
    ];
    const plain = entry();
    const plainCopy = copy(plain);
    const all = [plain, ...odd, entry()];
    const last = copy(all.at(-1)!);
    for (const e of all) ring.push(e);
    const got = ring.recent();
    expect(got).toHaveLength(all.length);
    expect(got[0]).toEqual(plainCopy);
    expect(got[0]).not.toBe(plain);
    odd.forEach((e, i) => expect(got[i + 1]).toBe(e));
    expect(got.at(-1)).toEqual(last);
  });

  it('gives the newest n, oldest first, across the wrap', () => {
    const ring = new EntryRing(3);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const e = entry(i % 3 === 0 ? { id: `odd-${i}` } : {});
      ids.push(e.id);
      ring.push(e);
    }
    expect(ring.size).toBe(3);
    expect(ring.recent().map((e) => e.id)).toEqual(ids.slice(-3));
    expect(ring.recent(2).map((e) => e.id)).toEqual(ids.slice(-2));
    expect(ring.recent(0)).toEqual([]);
    expect(new EntryRing(5).recent()).toEqual([]);
  });

  it('keeps every distinct string right past its table of shared ones', () => {
    const ring = new EntryRing(10_000);
    const models = Array.from({ length: 9_000 }, (_, i) => `model-${i}`);
    models.forEach((m, i) => ring.push(entry({ requested_model: m, routed_model: i % 2 ? m : 'same' })));
    const got = ring.recent();
    expect(got.map((e) => e.requested_model)).toEqual(models);
    expect(got.map((e) => e.routed_model)).toEqual(models.map((m, i) => (i % 2 ? m : 'same')));
  });

  it('does not hold on to the entry object it was given (it can die young)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const ring = new EntryRing(8);
    let e: RequestLogEntry | null = entry({ requested_model: `m-${randomUUID()}` });
    const attempts = new WeakRef(e.attempts);
    const object = new WeakRef(e);
    ring.push(e);
    e = null;
    await new Promise((r) => setImmediate(r)); // a WeakRef keeps its target until the job that made it ends
    gc();
    expect(object.deref()).toBeUndefined();
    expect(attempts.deref()).toBeUndefined();
    expect(ring.recent()).toHaveLength(1);
  });
});
