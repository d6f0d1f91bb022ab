// Budgets: spent counted from the day rollup per app or globally for the local day or month, a warning and an
// exceeded notice once per period, an enforced budget refusing with 402 budget_exceeded naming it, a new period
// starting from zero.
import { afterEach, describe, expect, it } from 'vitest';
import { type Budget, NOTIFICATION_DEFAULTS, type Notification, type UsageRecord } from '../../shared/usage.ts';
import { ApiError } from '../errors.ts';
import { Budgets } from './budgets.ts';
import { Notifier } from './notifier.ts';
import { rec } from './records.test-helper.ts';
import { keyOf, Rollups } from './rollups.ts';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

const budget = (b: Partial<Budget> & Pick<Budget, 'period' | 'limit_usd'>): Budget => ({
  warn_at: 0.8,
  enforce: false,
  ...b,
});

function setup(list: Budget[], start = '2025-01-15T12:00:00Z') {
  process.env.TZ = 'UTC';
  let now = Date.parse(start);
  const rollups = new Rollups();
  const notes: Notification[] = [];
  const notifier = new Notifier(
    () => ({ ...NOTIFICATION_DEFAULTS, min_interval_ms: 0 }),
    () => now,
  );
  notifier.subscribe((n) => notes.push(n));
  let budgets = list;
  const b = new Budgets(
    rollups,
    () => budgets,
    notifier,
    () => now,
  );
  /** A request as the service records it: sync, the rollups, then the budgets. */
  const spend = (cost: number, over: Partial<UsageRecord> = {}) => {
    const r = rec({ time: new Date(now).toISOString(), cost_usd: cost, ...over });
    b.sync();
    rollups.add(r, now, keyOf(r.app, r.provider, r.model));
    b.add(r, now);
  };
  return {
    b,
    rollups,
    notes,
    spend,
    at: (iso: string) => (now = Date.parse(iso)),
    set: (next: Budget[]) => (budgets = next),
  };
}

const refusal = (fn: () => void): ApiError => {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a refusal');
};

describe('Budgets', () => {
  it('counts what was spent before it existed, from the day rollup (its app only, names matched as app rules do)', () => {
    const s = setup([]);
    s.spend(1, { app: 'Cursor.exe' });
    s.spend(2, { app: 'code' });
    s.spend(4, { app: null });
    s.set([budget({ app: 'cursor', period: 'day', limit_usd: 10 }), budget({ period: 'month', limit_usd: 10 })]);
    expect(s.b.states().map((x) => [x.app, x.spent_usd, x.state])).toEqual([
      ['cursor', 1, 'ok'],
      [null, 7, 'ok'],
    ]);
  });

  it('warns once at warn_at, says exceeded once at the limit, and refuses only when enforced', () => {
    const s = setup([budget({ app: 'cursor', period: 'day', limit_usd: 1, warn_at: 0.5, enforce: true })]);
    s.spend(0.4, { app: 'cursor' });
    expect(s.notes).toEqual([]);
    s.spend(0.2, { app: 'cursor' });
    s.spend(0.1, { app: 'cursor' });
    expect(s.notes.map((n) => n.kind)).toEqual(['budget_warning']);
    expect(s.notes[0]).toMatchObject({ app: 'cursor', title: 'Budget at 50%' });
    expect(s.notes[0]!.message).toBe('The daily budget of app "cursor" has $0.4000 left: $0.6000 of $1.00 today.');
    expect(() => s.b.check('cursor')).not.toThrow();
    s.spend(0.5, { app: 'cursor' });
    s.spend(0.5, { app: 'cursor' });
    expect(s.notes.map((n) => n.kind)).toEqual(['budget_warning', 'budget_exceeded']);
    expect(s.b.states()[0]).toMatchObject({ state: 'exceeded', spent_usd: expect.closeTo(1.7, 10) });

    const e = refusal(() => s.b.check('Cursor'));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(402);
    expect(e.code).toBe('budget_exceeded');
    expect(e.message).toBe('The daily budget of app "cursor" ($1.00) is spent: $1.70 today.');
    expect(e.action).toMatch(/local midnight, 2025-01-16T00:00:00\.000Z.*budgets\[0\] in config\.json/);
    expect(e.headers['x-should-retry']).toBe('false');
    expect(e.details).toMatchObject({
      budget: { index: 0, app: 'cursor', period: 'day', limit_usd: 1, enforce: true },
      resets_at: '2025-01-16T00:00:00.000Z',
    });
    expect(() => s.b.check('code')).not.toThrow(); // another app
    expect(() => s.b.check(null)).not.toThrow();
  });

  it('a global budget covers every request; not enforced, it notifies but refuses nothing', () => {
    const s = setup([
      budget({ period: 'month', limit_usd: 2, warn_at: 0.5 }),
      budget({ period: 'day', limit_usd: 1, enforce: true }),
    ]);
    s.spend(1.5, { app: null });
    expect(s.notes.map((n) => [n.kind, n.message])).toEqual([
      ['budget_warning', 'The global monthly budget has $0.5000 left: $1.50 of $2.00 this month.'],
      [
        'budget_exceeded',
        expect.stringMatching(/^The global daily budget is spent: \$1\.50 of \$1\.00 today\. Its requests are refused/),
      ],
    ]);
    expect(refusal(() => s.b.check('anything')).message).toMatch(/^The global daily budget/);
  });

  it('starts from zero when the period ends (local midnight), and notifies again in the new period', () => {
    const s = setup([budget({ period: 'day', limit_usd: 1, enforce: true })]);
    s.spend(2);
    expect(() => s.b.check(null)).toThrow(ApiError);
    s.at('2025-01-16T00:00:00Z');
    expect(() => s.b.check(null)).not.toThrow();
    expect(s.b.states()[0]!.spent_usd).toBe(0);
    s.spend(1);
    expect(s.notes.map((n) => n.kind)).toEqual(['budget_exceeded', 'budget_exceeded']);
  });

  it('a budget changed in config.json is recounted, silently when already crossed', () => {
    const s = setup([budget({ period: 'day', limit_usd: 100 })]);
    s.spend(5);
    s.set([budget({ period: 'day', limit_usd: 4, enforce: true })]);
    expect(() => s.b.check(null)).toThrow(ApiError);
    s.spend(1);
    expect(s.notes).toEqual([]);
  });
});
