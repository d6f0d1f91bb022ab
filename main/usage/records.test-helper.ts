// Usage records for the usage store's tests (hand-made: the shape of shared/usage.ts UsageRecord).
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import type { UsageRecord } from '../../shared/usage.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { UsageStore, type UsageStoreOptions } from './store.ts';

export function rec(over: Partial<UsageRecord> & { time: string }): UsageRecord {
  return {
    id: randomUUID(),
    app: 'app-a',
    provider: 'openai',
    model: 'gpt-4o-mini',
    requested_model: 'gpt-4o-mini',
    path: '/v1/chat/completions',
    status: 200,
    stream: false,
    latency_ms: 100,
    prompt_tokens: 10,
    completion_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0.001,
    cost_source: 'price_table',
    ...over,
  };
}

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
