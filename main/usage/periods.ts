// Time for the usage store: minute and hour buckets are UTC-aligned (the same instants in every time zone, no DST),
// days and months are the server's local calendar (what "today" and a daily budget mean to the person at the
// machine). A summary's range as its series of buckets.
import type { BUDGET_PERIODS, UsageRange } from '../../shared/usage.ts';

export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** The local calendar date of an instant, "YYYY-MM-DD". */
export function localDate(t: number): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The UTC date of an instant, "YYYY-MM-DD". */
export function utcDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** Local midnight starting the day `offset` days after the one holding t (epoch ms; 23 or 25 h apart across DST). */
export function localDayStart(t: number, offset = 0): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + offset).getTime();
}

/** Local midnight of the first day of the month holding t, `offset` months on. */
export function localMonthStart(t: number, offset = 0): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth() + offset, 1).getTime();
}

/** A budget period's key for the instant t ("YYYY-MM-DD" for a day, "YYYY-MM" for a month) and when it ends. */
export function periodOf(period: BudgetPeriod, t: number): { key: string; end: number } {
  return period === 'day'
    ? { key: localDate(t), end: localDayStart(t, 1) }
    : { key: localDate(t).slice(0, 7), end: localMonthStart(t, 1) };
}

/** One bucket of a series: [t, end), and for a day bucket its local date (the day rollup's key). */
export type Bucket = { t: number; end: number; day?: string };

export type RangeBuckets = { from: number; to: number; bucket_ms: number; buckets: Bucket[] };

/**
 * A range's buckets up to the one holding `now`: 1h = the last 60 minutes (UTC minutes), 24h = the last 24 hours (UTC
 * hours), today = the hours since local midnight, 7d = the last 7 local days, month = the local days of this month.
 */
export function rangeBuckets(range: UsageRange, now: number): RangeBuckets {
  const fixed = (size: number, count: number): RangeBuckets => {
    const last = Math.floor(now / size) * size;
    const buckets: Bucket[] = [];
    for (let i = count - 1; i >= 0; i--) buckets.push({ t: last - i * size, end: last - i * size + size });
    return { from: buckets[0]!.t, to: last + size, bucket_ms: size, buckets };
  };
  const days = (first: number): RangeBuckets => {
    const buckets: Bucket[] = [];
    for (let t = first; t <= now;) {
      const end = localDayStart(t, 1);
      buckets.push({ t, end, day: localDate(t) });
      t = end;
    }
    return { from: first, to: buckets[buckets.length - 1]!.end, bucket_ms: DAY, buckets };
  };
  switch (range) {
    case '1h':
      return fixed(MINUTE, 60);
    case '24h':
      return fixed(HOUR, 24);
    case 'today': {
      const start = localDayStart(now);
      const buckets: Bucket[] = [];
      for (let t = start; t <= now; t += HOUR) buckets.push({ t, end: t + HOUR });
      return { from: start, to: buckets[buckets.length - 1]!.end, bucket_ms: HOUR, buckets };
    }
    case '7d':
      return days(localDayStart(now, -6));
    case 'month':
      return days(localMonthStart(now));
  }
}
