// A usage store test's set-up (main/usage/*.test.ts): a temp dir per test, TZ restored, the store opened at a fixed clock.
import { afterEach } from 'vitest';
import { UsageStore, type UsageStoreOptions } from '../../main/usage/store.ts';
import { useTempDir } from './wal/temp-dir.ts';

/** The clock every store test runs at. */
export const NOW = Date.parse('2025-01-15T12:00:00Z');

/**
 * A usage store test's set-up: a temp dir per test, TZ restored after each, and `open` with the tests' defaults
 * (snapshots only when a test asks, or at close).
 */
export function useUsageStore(name: string): {
  dir: () => string;
  open: (o?: Partial<UsageStoreOptions>) => ReturnType<typeof UsageStore.open>;
} {
  const dir = useTempDir(name);
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });
  const open = (o: Partial<UsageStoreOptions> = {}) =>
    UsageStore.open({
      dir: dir(),
      retention: () => ({ raw_days: 7, rollup_days: 400 }),
      now: () => NOW,
      snapshotMs: 3_600_000,
      ...o,
    });
  return { dir, open };
}
