// Range bucketing: minutes and hours on UTC boundaries whatever the time zone, days and months on the local calendar
// (a half-hour zone, and a DST change), every bucket from `from` to `to`.
import { afterEach, describe, expect, it } from 'vitest';
import { DAY, HOUR, localDate, MINUTE, periodOf, rangeBuckets } from './periods.ts';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

const iso = (t: number) => new Date(t).toISOString();

describe('rangeBuckets', () => {
  it('1h: the last 60 UTC minutes, the current one last', () => {
    process.env.TZ = 'Asia/Kolkata';
    const now = Date.parse('2025-01-15T12:34:56.789Z');
    const r = rangeBuckets('1h', now);
    expect(r.bucket_ms).toBe(MINUTE);
    expect(r.buckets).toHaveLength(60);
    expect(iso(r.from)).toBe('2025-01-15T11:35:00.000Z');
    expect(iso(r.to)).toBe('2025-01-15T12:35:00.000Z');
    expect(r.buckets.every((b, i) => b.t === r.from + i * MINUTE && b.end === b.t + MINUTE)).toBe(true);
  });

  it('24h: the last 24 UTC hours, on whole hours even in a half-hour time zone', () => {
    process.env.TZ = 'Asia/Kolkata';
    const now = Date.parse('2025-01-15T12:34:56Z');
    const r = rangeBuckets('24h', now);
    expect(r.bucket_ms).toBe(HOUR);
    expect(r.buckets).toHaveLength(24);
    expect(iso(r.from)).toBe('2025-01-14T13:00:00.000Z');
    expect(iso(r.to)).toBe('2025-01-15T13:00:00.000Z');
  });

  it('today: hours from local midnight (18:30 UTC in Kolkata) to the one holding now', () => {
    process.env.TZ = 'Asia/Kolkata';
    const now = Date.parse('2025-01-15T12:34:56Z'); // 18:04 local
    const r = rangeBuckets('today', now);
    expect(iso(r.from)).toBe('2025-01-14T18:30:00.000Z');
    expect(r.buckets).toHaveLength(19); // 00:00 … 18:00 local
    expect(iso(r.buckets[18]!.t)).toBe('2025-01-15T12:30:00.000Z');
    expect(iso(r.to)).toBe('2025-01-15T13:30:00.000Z');
  });

  it('7d: seven local days, one of 23 hours across the spring DST change', () => {
    process.env.TZ = 'America/New_York';
    const now = Date.parse('2025-03-12T15:00:00Z');
    const r = rangeBuckets('7d', now);
    expect(r.bucket_ms).toBe(DAY);
    expect(r.buckets.map((b) => b.day)).toEqual([
      '2025-03-06',
      '2025-03-07',
      '2025-03-08',
      '2025-03-09',
      '2025-03-10',
      '2025-03-11',
      '2025-03-12',
    ]);
    expect(iso(r.from)).toBe('2025-03-06T05:00:00.000Z'); // EST midnight
    expect(r.buckets[3]!.end - r.buckets[3]!.t).toBe(23 * HOUR); // March 9th: clocks go forward
    expect(iso(r.to)).toBe('2025-03-13T04:00:00.000Z'); // EDT midnight
    expect(r.buckets.every((b, i) => i === 0 || b.t === r.buckets[i - 1]!.end)).toBe(true);
  });

  it('month: the local days from the 1st to today', () => {
    process.env.TZ = 'Europe/Berlin';
    const now = Date.parse('2025-02-03T23:30:00Z'); // Feb 4th, 00:30 in Berlin
    const r = rangeBuckets('month', now);
    expect(r.buckets.map((b) => b.day)).toEqual(['2025-02-01', '2025-02-02', '2025-02-03', '2025-02-04']);
    expect(iso(r.from)).toBe('2025-01-31T23:00:00.000Z');
  });
});

describe('local calendar', () => {
  it('dates and budget periods follow the server time zone', () => {
    process.env.TZ = 'Pacific/Auckland';
    const t = Date.parse('2025-06-30T20:00:00Z'); // July 1st, 08:00 in Auckland
    expect(localDate(t)).toBe('2025-07-01');
    expect(periodOf('day', t)).toEqual({ key: '2025-07-01', end: Date.parse('2025-07-01T12:00:00Z') });
    expect(periodOf('month', t)).toEqual({ key: '2025-07', end: Date.parse('2025-07-31T12:00:00Z') });
  });
});
