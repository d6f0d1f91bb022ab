import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime, isoTimeExactMs, isoTimeMs } from './iso-time.ts';

describe('isoTime', () => {
  it('is toISOString, for times in any order (the cached second is replaced when it changes)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: -62167219200000, max: 253402300799999 }),
            // around now and around second boundaries, where the cache is reused or replaced
            fc.integer({ min: 1_790_000_000_000, max: 1_790_000_003_000 }),
            fc.integer({ min: -2_000, max: 2_000 }),
          ),
          { minLength: 1, maxLength: 50 },
        ),
        (times) => {
          for (const t of times) expect(isoTime(t)).toBe(new Date(t).toISOString());
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('falls back to toISOString outside four-digit years and for fractions; throws as it does for NaN', () => {
    for (const t of [-62167219200001, 253402300800000, 8.64e15, -8.64e15, 1_790_000_000_000.5, -0])
      expect(isoTime(t)).toBe(new Date(t).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});

describe('isoTimeMs', () => {
  const time = fc.oneof(
    fc.integer({ min: -62167219200000, max: 253402300799999 }),
    fc.integer({ min: 1_790_000_000_000, max: 1_790_000_003_000 }),
  );
  /** A text near isoTime's: one character of it replaced, cut, or another format of the same time. */
  const text = fc.oneof(
    time.map((t) => isoTime(t)),
    fc
      .tuple(time, fc.nat(23), fc.constantFrom('a', '9', '0', ' ', '+', 'Z', 'z', '.', ':', '-', '\u00e9'))
      .map(([t, i, c]) => {
        const s = isoTime(t);
        return s.slice(0, i) + c + s.slice(i + 1);
      }),
    time.map((t) => isoTime(t).slice(0, 23)),
    time.map((t) => isoTime(t).replace('Z', '+00:00')),
    time.map((t) => new Date(t).toUTCString()),
    fc.string({ maxLength: 30 }),
  );

  it('is Date.parse, for any text in any order (the cached second is replaced when it changes)', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 40 }), (texts) => {
        for (const s of texts) {
          expect(Object.is(isoTimeMs(s), Date.parse(s))).toBe(true);
          // Exact: the time only for a text isoTime writes back, whatever was read before it.
          const ms = Date.parse(s);
          const exact = Number.isInteger(ms) && Math.abs(ms) < 8.64e15 && isoTime(ms) === s;
          expect(Object.is(isoTimeExactMs(s), exact ? ms : Number.NaN)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the milliseconds of a cached second from the text', () => {
    const base = Date.UTC(2026, 10, 27, 5, 30, 1);
    expect(isoTimeMs(isoTime(base))).toBe(base);
    for (const ms of [0, 7, 45, 999]) expect(isoTimeMs(isoTime(base + ms))).toBe(base + ms);
    expect(isoTimeMs('2026-11-27T05:30:01.0x5Z')).toBeNaN();
    expect(isoTimeExactMs('2026-11-27T05:30:01.0x5Z')).toBeNaN();
    expect(isoTimeExactMs('2026-11-27T05:30:01.5Z')).toBeNaN(); // Date.parse reads it; isoTime writes .500
    expect(isoTimeMs('2026-11-27T05:30:01.5Z')).toBe(base + 500);
  });
});
