import { describe, expect, it } from 'vitest';
import { withDeadline } from './deadline.ts';

describe('withDeadline', () => {
  it('returns the result when the work finishes in time', async () => {
    expect(await withDeadline(1000, async () => 42)).toBe(42);
  });

  it('returns null at the deadline and aborts the signal given to the work', async () => {
    let seen: AbortSignal | undefined;
    const started = performance.now();
    const result = await withDeadline(20, (signal) => {
      seen = signal;
      return new Promise<number>(() => {});
    });
    expect(result).toBeNull();
    expect(performance.now() - started).toBeLessThan(500);
    expect(seen?.aborted).toBe(true);
  });

  it('returns null when the work rejects or throws synchronously', async () => {
    expect(await withDeadline(1000, async () => Promise.reject(new Error('boom')))).toBeNull();
    expect(
      await withDeadline(1000, () => {
        throw new Error('sync boom');
      }),
    ).toBeNull();
  });

  it('aborts the signal once the work has finished, so leftover parallel work stops', async () => {
    let seen: AbortSignal | undefined;
    await withDeadline(1000, async (signal) => {
      seen = signal;
      return 'done';
    });
    expect(seen?.aborted).toBe(true);
  });
});
