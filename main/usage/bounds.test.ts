// The usage store stays bounded whatever names clients send (issue 33, item 4): 3,000 requests with distinct 12 KB app
// names grew each rollup from 2.5 to 37 MB, slowed the summary to 238 ms and a restart to 2.65 s (idle RSS 475 MB).
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPS_PER_DAY, CELLS_PER_BUCKET, MODELS_PER_DAY, NAME_MAX, OTHER } from './bounds.ts';
import { NOW, useUsageStore } from '../../test/support/usage-store.ts';
import { rec } from './records.test-helper.ts';
import { partsOf } from './rollups.ts';
import { snapshotFile, type UsageStore } from './store.ts';
import { summarize } from './summary.ts';

const { dir, open } = useUsageStore('usage-bounds');
/** Spread over the last hour, so minute and hour buckets fill too. */
const at = (i: number) => new Date(NOW - (i % 60) * 60_000).toISOString();
const apps = (s: UsageStore) => {
  const out = new Set<string>();
  for (const cells of s.rollups.day.buckets.values()) for (const k of cells.keys()) out.add(partsOf(k).app ?? '');
  return out;
};
const cellCount = (m: Map<unknown, Map<string, unknown>>) => [...m.values()].reduce((n, c) => n + c.size, 0);

describe('the usage store under names clients choose', () => {
  it(`3,000 distinct 12 KB app names: names cut to ${NAME_MAX.app}, the first ${APPS_PER_DAY} a day get rows, the rest "other"`, async () => {
    process.env.TZ = 'UTC';
    const kept = { apps: new Set(['cursor']), providers: new Set(['openai']) };
    const a = await open({ kept: () => kept });
    for (let i = 0; i < 3000; i++) a.record(rec({ time: at(i), app: `${i}-${'x'.repeat(12 * 1024)}` }));
    a.record(rec({ time: at(1), app: 'Cursor.exe' })); // config.json names it: a row of its own past the bound
    const seen = apps(a);
    expect(seen.size).toBe(APPS_PER_DAY + 2);
    expect(seen.has(OTHER)).toBe(true);
    expect(seen.has('Cursor.exe')).toBe(true);
    for (const name of seen) expect(name.length).toBeLessThanOrEqual(NAME_MAX.app);
    const summary = summarize(a.rollups, 'today', NOW, []);
    expect(summary.totals.requests).toBe(3001); // nothing is lost: only where it is counted
    expect(summary.by_app.find((r) => r.key === OTHER)?.requests).toBe(3000 - APPS_PER_DAY);
    // Every bucket within its bound.
    for (const [g, rollup] of [
      ['minute', a.rollups.minute],
      ['hour', a.rollups.hour],
      ['day', a.rollups.day],
    ] as const)
      for (const cells of rollup.buckets.values()) expect(cells.size).toBeLessThanOrEqual(CELLS_PER_BUCKET[g] + 2);
    // The raw lines keep each request's (cut) name, so the list of requests still says who called.
    const { data } = await a.requests(1, null);
    expect(data[0]!.app).toBe('Cursor.exe');
    await a.close();
    for (const g of ['minute', 'hour', 'day'] as const)
      expect((await fs.stat(path.join(dir(), snapshotFile(g)))).size).toBeLessThan(100 * 1024);
  });

  it('a restart (and a crash: the raw lines replayed) makes the same decisions', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    for (let i = 0; i < 200; i++) a.record(rec({ time: at(i), app: `app-${i}`, model: `model-${i % 150}` }));
    await a.snapshot();
    for (let i = 200; i < 260; i++) a.record(rec({ time: at(i), app: `app-${i}`, model: `m2-${i}` }));
    const before = summarize(a.rollups, 'today', NOW, []);
    const days = cellCount(a.rollups.day.buckets);
    a.raw.flush(); // reached the file; no snapshot since: the process dies here
    const b = await open();
    expect(b.replayedRecords).toBe(60);
    expect(summarize(b.rollups, 'today', NOW, [])).toEqual(before);
    expect(cellCount(b.rollups.day.buckets)).toBe(days);
    const models = new Set(
      [...b.rollups.day.buckets.values()].flatMap((c) => [...c.keys()].map((k) => partsOf(k).model)),
    );
    expect(models.size).toBe(MODELS_PER_DAY + 1); // and "other"
    await b.close();
    await a.close();
  });
});
