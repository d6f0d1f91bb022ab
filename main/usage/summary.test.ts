// A summary from the rollups: totals, every bucket (empty ones as zeros), the top groups with an "(other)" row.
import { afterEach, describe, expect, it } from 'vitest';
import { UsageSummarySchema } from '../../shared/usage.ts';
import type { UsageRecord } from '../../shared/usage.ts';
import { rec } from './records.test-helper.ts';
import { emptyTotals, keyOf, Rollups } from './rollups.ts';
import { OTHER_KEY, summarize, topRows } from './summary.ts';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

function rollupsOf(records: UsageRecord[]): Rollups {
  const r = new Rollups();
  for (const x of records) r.add(x, Date.parse(x.time), keyOf(x.app, x.provider, x.model));
  return r;
}

describe('summarize', () => {
  it("by_session: the sessions of the range's local days, each with its app, most expensive first", () => {
    process.env.TZ = 'UTC';
    const now = Date.parse('2025-01-15T12:00:00Z');
    const records = [
      rec({ time: '2025-01-14T23:00:00Z', app: 'claude-code', session: 'yesterday', cost_usd: 9 }),
      rec({ time: '2025-01-15T01:00:00Z', app: 'claude-code', session: 'cc-1', cost_usd: 0.5 }),
      rec({ time: '2025-01-15T11:00:00Z', app: 'claude-code', session: 'cc-1', cost_usd: 0.25 }),
      rec({ time: '2025-01-15T11:30:00Z', app: 'codex', session: 'cx-1', cost_usd: 1 }),
      rec({ time: '2025-01-15T11:40:00Z', app: 'aider', cost_usd: 5 }), // no session: not a row
    ];
    const today = summarize(rollupsOf(records), 'today', now, []);
    expect(UsageSummarySchema.parse(today)).toEqual(today);
    expect(today.by_session.map((g) => [g.key, g.app, g.requests, g.cost_usd])).toEqual([
      ['cx-1', 'codex', 1, 1],
      ['cc-1', 'claude-code', 2, 0.75],
    ]);
    const week = summarize(rollupsOf(records), '7d', now, []);
    expect(week.by_session.map((g) => g.key)).toEqual(['yesterday', 'cx-1', 'cc-1']);
  });

  it('today in a half-hour time zone: local-hour buckets from the minutes, totals, groups and budgets', () => {
    process.env.TZ = 'Asia/Kolkata';
    const now = Date.parse('2025-01-15T12:34:00Z'); // 18:04 local
    const records = [
      rec({ time: '2025-01-14T18:29:59Z', cost_usd: 5 }), // 23:59 the day before: not today
      rec({ time: '2025-01-14T18:30:00Z', cost_usd: 0.5, prompt_tokens: 100 }), // 00:00 local
      rec({ time: '2025-01-15T12:10:00Z', app: 'cursor', cost_usd: 0.25, completion_tokens: 7 }), // 17:40 local
      rec({ time: '2025-01-15T12:31:00Z', app: null, provider: null, model: null, status: 404, cost_usd: 0 }),
    ];
    const s = summarize(rollupsOf(records), 'today', now, []);
    expect(UsageSummarySchema.parse(s)).toEqual(s);
    expect(s.from).toBe('2025-01-14T18:30:00.000Z');
    expect(s.series).toHaveLength(19);
    expect(s.series[0]).toMatchObject({ t: Date.parse('2025-01-14T18:30:00Z'), requests: 1, prompt_tokens: 100 });
    expect(s.series[17]).toMatchObject({ requests: 1, completion_tokens: 7 }); // 17:00-18:00 local
    expect(s.series[18]).toMatchObject({ requests: 1, errors: 1 });
    expect(s.series.slice(1, 17).every((p) => p.requests === 0 && p.cost_usd === 0)).toBe(true);
    expect(s.totals).toMatchObject({ requests: 3, errors: 1, cost_usd: 0.75, prompt_tokens: 120 });
    expect(s.by_app.map((g) => [g.key, g.requests])).toEqual([
      ['app-a', 1],
      ['cursor', 1],
      ['(none)', 1],
    ]);
    expect(s.by_provider.map((g) => g.key)).toEqual(['openai', '(none)']);
  });

  it('7d: one bucket per local day from the day rollup', () => {
    process.env.TZ = 'America/New_York';
    const now = Date.parse('2025-03-12T15:00:00Z');
    const records = [
      rec({ time: '2025-03-06T05:00:00Z', cost_usd: 1 }), // first local day
      rec({ time: '2025-03-06T04:59:59Z', cost_usd: 100 }), // the day before: out of range
      rec({ time: '2025-03-10T03:59:00Z', cost_usd: 2 }), // 23:59 EDT on the 9th
      rec({ time: '2025-03-12T14:00:00Z', cost_usd: 3 }),
    ];
    const s = summarize(rollupsOf(records), '7d', now, []);
    expect(s.series.map((p) => p.cost_usd)).toEqual([1, 0, 0, 2, 0, 0, 3]);
    expect(s.totals.cost_usd).toBe(6);
    expect(s.bucket_ms).toBe(86_400_000);
  });

  it('1h and 24h on UTC minutes and hours', () => {
    process.env.TZ = 'UTC';
    const now = Date.parse('2025-01-15T12:34:56Z');
    const records = [
      rec({ time: '2025-01-15T11:34:59Z' }), // just before the hour's first minute
      rec({ time: '2025-01-15T11:35:00Z' }),
      rec({ time: '2025-01-15T12:34:00Z' }),
      rec({ time: '2025-01-14T13:00:00Z' }),
    ];
    const r = rollupsOf(records);
    const hour = summarize(r, '1h', now, []);
    expect(hour.series).toHaveLength(60);
    expect(hour.totals.requests).toBe(2);
    expect(hour.series[0]!.requests).toBe(1);
    expect(hour.series[59]!.requests).toBe(1);
    expect(summarize(r, '24h', now, []).totals.requests).toBe(4);
  });
});

describe('topRows', () => {
  it('sorts by cost then requests, keeps 20 and adds the rest up as "(other)"', () => {
    const groups = new Map(
      Array.from({ length: 25 }, (_, i) => [`app${i}`, { ...emptyTotals(), requests: i, cost_usd: i < 5 ? 1 : 0 }]),
    );
    const rows = topRows(groups);
    expect(rows).toHaveLength(21);
    expect(rows.slice(0, 6).map((r) => r.key)).toEqual(['app4', 'app3', 'app2', 'app1', 'app0', 'app24']);
    expect(rows[20]).toMatchObject({ key: OTHER_KEY, requests: 5 + 6 + 7 + 8 + 9 });
  });
});
