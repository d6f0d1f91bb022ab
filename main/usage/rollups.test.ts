// The rollups' arithmetic, their buckets, which rollup answers a bucket of a series, retention and snapshots.
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../shared/usage.ts';
import { HOUR, MINUTE } from './periods.ts';
import { rec } from './records.test-helper.ts';
import {
  addRecord,
  type Cells,
  emptyTotals,
  keyOf,
  MAX_SESSIONS_PER_DAY,
  OTHER_SESSION,
  partsOf,
  Rollups,
  sessionKeyOf,
  sessionPartsOf,
} from './rollups.ts';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

function add(r: Rollups, time: string, over: Partial<UsageRecord> = {}) {
  const x = rec({ time, ...over });
  r.add(x, Date.parse(time), keyOf(x.app, x.provider, x.model));
  return x;
}

const sum = (cells: Cells[]) => {
  const t = emptyTotals();
  for (const c of cells) for (const v of c.values()) for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += v[k];
  return t;
};

describe('totals', () => {
  it('count requests, errors (400 and up), every token kind, cost, the unpriced and latency', () => {
    const t = emptyTotals();
    addRecord(t, rec({ time: 'x', prompt_tokens: 100, completion_tokens: 20, cache_read_tokens: 30, cost_usd: 0.5 }));
    addRecord(
      t,
      rec({
        time: 'x',
        status: 502,
        cache_write_tokens: 7,
        cache_write_5m_tokens: 2,
        cache_write_1h_tokens: 5,
        reasoning_tokens: 9,
        cost_usd: null,
        latency_ms: 50,
      }),
    );
    addRecord(t, rec({ time: 'x', status: 402, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }));
    expect(t).toEqual({
      failed_attempts: 0,
      requests: 3,
      errors: 2,
      prompt_tokens: 110,
      completion_tokens: 25,
      cache_read_tokens: 30,
      cache_write_tokens: 7,
      cache_write_5m_tokens: 2,
      cache_write_1h_tokens: 5,
      reasoning_tokens: 9,
      cost_usd: 0.5,
      unpriced: 1,
      latency_ms_sum: 250,
    });
  });

  it('keys keep app, provider, model and credential apart, with none as null; without a credential, three parts', () => {
    expect(partsOf(keyOf('cursor', 'openai', 'gpt-4o'))).toEqual({
      app: 'cursor',
      provider: 'openai',
      model: 'gpt-4o',
      key: null,
    });
    expect(partsOf(keyOf(null, null, 'm'))).toEqual({ app: null, provider: null, model: 'm', key: null });
    // A key of a rollup written before credentials were counted (three parts) reads the same.
    expect(keyOf('a', 'p', 'm')).toBe('a\u0001p\u0001m');
    expect(partsOf(keyOf('a', 'p', 'm', 'alice'))).toEqual({ app: 'a', provider: 'p', model: 'm', key: 'alice' });
  });
});

describe('Rollups', () => {
  it('adds a record to its UTC minute, UTC hour and local day', () => {
    process.env.TZ = 'Asia/Kolkata';
    const r = new Rollups();
    add(r, '2025-01-15T18:45:10Z', { cost_usd: 0.25 }); // Jan 16th, 00:15 in Kolkata
    expect([...r.minute.buckets.keys()]).toEqual([Date.parse('2025-01-15T18:45:00Z') / MINUTE]);
    expect([...r.hour.buckets.keys()]).toEqual([Date.parse('2025-01-15T18:00:00Z') / HOUR]);
    expect([...r.day.buckets.keys()]).toEqual(['2025-01-16']);
    expect(r.day.buckets.get('2025-01-16')!.get(keyOf('app-a', 'openai', 'gpt-4o-mini'))!.cost_usd).toBe(0.25);
  });

  it('answers an hour on whole UTC hours from the hour rollup, else from the minutes', () => {
    process.env.TZ = 'Asia/Kolkata';
    const r = new Rollups();
    add(r, '2025-01-15T18:10:00Z');
    add(r, '2025-01-15T18:40:00Z');
    add(r, '2025-01-15T19:20:00Z');
    const whole: Cells[] = [];
    r.cellsOf({ t: Date.parse('2025-01-15T18:00:00Z'), end: Date.parse('2025-01-15T19:00:00Z') }, whole);
    expect(whole).toHaveLength(1); // one hour cell
    expect(sum(whole).requests).toBe(2);
    const local: Cells[] = []; // 00:00-01:00 in Kolkata = 18:30-19:30 UTC
    r.cellsOf({ t: Date.parse('2025-01-15T18:30:00Z'), end: Date.parse('2025-01-15T19:30:00Z') }, local);
    expect(sum(local).requests).toBe(2); // 18:40 and 19:20, from the minutes
    const day: Cells[] = [];
    r.cellsOf({ t: 0, end: 0, day: '2025-01-16' }, day);
    expect(sum(day).requests).toBe(2);
  });

  it('drops minutes after 2 days, hours after 60 days, days after rollup_days', () => {
    process.env.TZ = 'UTC';
    const r = new Rollups();
    add(r, '2025-01-01T00:00:00Z');
    add(r, '2025-03-01T00:00:00Z');
    add(r, '2025-03-09T12:00:00Z');
    r.prune(Date.parse('2025-03-10T00:00:00Z'), 30);
    expect(r.minute.buckets.size).toBe(1);
    expect(r.hour.buckets.size).toBe(2);
    expect([...r.day.buckets.keys()]).toEqual(['2025-03-01', '2025-03-09']);
  });

  it("counts a session's requests per local day under app × session; requests without one are not in it", () => {
    process.env.TZ = 'Asia/Kolkata';
    const r = new Rollups();
    add(r, '2025-01-15T18:45:10Z', { app: 'claude-code', session: 's-1', cost_usd: 0.25 }); // Jan 16th local
    add(r, '2025-01-15T19:00:00Z', { app: 'claude-code', session: 's-1', cost_usd: 0.5 });
    add(r, '2025-01-15T19:00:00Z', { app: 'codex', session: 's-1', cost_usd: 1 });
    add(r, '2025-01-15T19:00:00Z', { app: 'codex', session: null });
    add(r, '2025-01-15T19:00:00Z', { app: 'codex' }); // a record from before sessions were kept
    const cells = r.session.buckets.get('2025-01-16')!;
    expect([...cells.keys()]).toEqual([sessionKeyOf('claude-code', 's-1'), sessionKeyOf('codex', 's-1')]);
    expect(cells.get(sessionKeyOf('claude-code', 's-1'))).toMatchObject({ requests: 2, cost_usd: 0.75 });
    expect(sessionPartsOf(sessionKeyOf(null, 'a\u0001b'))).toEqual({ app: null, session: 'a\u0001b' });
  });

  it("counts a day's sessions past 500 as their app's (other), and keeps sessions 60 days", () => {
    process.env.TZ = 'UTC';
    const r = new Rollups();
    for (let i = 0; i < MAX_SESSIONS_PER_DAY + 3; i++)
      add(r, '2025-03-09T10:00:00Z', { app: i % 2 ? 'a' : 'b', session: `s-${i}` });
    add(r, '2025-03-09T11:00:00Z', { app: 'b', session: 's-0' }); // a session seen before the cap: still its own
    const day = r.session.buckets.get('2025-03-09')!;
    expect(day.get(sessionKeyOf('b', 's-0'))!.requests).toBe(2);
    expect(day.get(sessionKeyOf('a', OTHER_SESSION))!.requests).toBe(1); // s-501
    expect(day.get(sessionKeyOf('b', OTHER_SESSION))!.requests).toBe(2); // s-500, s-502
    expect(day.size).toBe(MAX_SESSIONS_PER_DAY + 2);
    add(r, '2025-01-08T10:00:00Z', { session: 'old' });
    add(r, '2025-01-09T10:00:00Z', { session: 'kept' });
    r.prune(Date.parse('2025-03-09T12:00:00Z'), 400);
    expect([...r.session.buckets.keys()].sort()).toEqual(['2025-01-09', '2025-03-09']);
  });

  it('reads a snapshot row written before the 5-minute / 1-hour split was kept (ten values: the split 0)', () => {
    process.env.TZ = 'UTC';
    const r = new Rollups();
    const loaded = r.load('day', {
      keys: ['a\u0001p\u0001m'],
      cells: [['2025-01-15', 0, 3, 0, 30, 6, 0, 4, 0, 0.5, 0, 90]],
    });
    expect(loaded).toBe(1);
    expect(r.day.buckets.get('2025-01-15')!.get('a\u0001p\u0001m')).toMatchObject({
      requests: 3,
      cache_write_tokens: 4,
      cache_write_5m_tokens: 0,
      cache_write_1h_tokens: 0,
      latency_ms_sum: 90,
    });
  });

  it("counts a failed attempt for the provider that failed, apart from the request's own (issue 34)", () => {
    process.env.TZ = 'UTC';
    const r = new Rollups();
    add(r, '2025-01-15T10:00:00Z', { provider: 'alpha', model: 'm', failed_over: ['broken', 'broken'] });
    const cells = r.minute.buckets.get(Math.floor(Date.parse('2025-01-15T10:00:00Z') / 60_000))!;
    expect(cells.get(keyOf('app-a', 'broken', 'm'))).toMatchObject({ requests: 0, errors: 0, failed_attempts: 2 });
    expect(cells.get(keyOf('app-a', 'alpha', 'm'))).toMatchObject({ requests: 1, errors: 0, failed_attempts: 0 });
    const back = new Rollups();
    back.load('day', JSON.parse(JSON.stringify(r.json('day'))));
    expect(back.day.buckets).toEqual(r.day.buckets);
    // A row written before failed_attempts (12 values) still loads, with 0.
    const old = { keys: ['k'], cells: [['2025-01-15', 0, ...new Array(12).fill(1)]] };
    expect(back.load('day', old)).toBe(1);
    expect(back.day.buckets.get('2025-01-15')!.get('k')!.failed_attempts).toBe(0);
  });

  it('round-trips through its snapshot form, skipping malformed cells', () => {
    process.env.TZ = 'UTC';
    const r = new Rollups();
    add(r, '2025-01-15T10:00:00Z', { app: null, cost_usd: null });
    add(r, '2025-01-15T10:00:30Z', { provider: 'claude', model: 'claude-sonnet-4', session: 's' });
    add(r, '2025-01-15T10:00:40Z', { provider: 'claude', model: 'claude-sonnet-4', session: 't' });
    const back = new Rollups();
    for (const g of ['minute', 'hour', 'day', 'session'] as const) {
      const json = JSON.parse(JSON.stringify(r.json(g)));
      json.cells.push(['bad', 0, 1], [1, 99, ...new Array(12).fill(1)], [1, 0, ...new Array(11).fill(1)]);
      expect(back.load(g, json)).toBe(2);
      expect(back[g].buckets).toEqual(r[g].buckets);
    }
  });
});
