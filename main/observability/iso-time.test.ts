import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

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
