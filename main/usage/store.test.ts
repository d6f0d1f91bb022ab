// The durable store: numbers survive a restart and a crash (snapshots plus the replay of the raw lines written after
// them, never a record missed or counted twice), a torn last line is skipped, summaries come from the rollups alone,
// old raw files go, and the newest records are listed page by page.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOW, useUsageStore } from '../../test/support/usage-store.ts';
import { rec } from './records.test-helper.ts';
import { keyOf } from './rollups.ts';
import { summarize } from './summary.ts';
import { snapshotFile, type UsageStore } from './store.ts';

const { dir, open } = useUsageStore('usage-store');
const at = (min: number) => new Date(NOW - min * 60_000).toISOString();
const today = (s: UsageStore) => summarize(s.rollups, 'today', NOW, []);

describe('UsageStore', () => {
  it('keeps its numbers across a restart', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    a.record(rec({ time: at(5), prompt_tokens: 100, cache_read_tokens: 40, cost_usd: 0.5 }));
    a.record(rec({ time: at(1), app: 'cursor', completion_tokens: 9, reasoning_tokens: 4, cost_usd: null }));
    const before = today(a);
    await a.close();
    const b = await open();
    expect(today(b)).toEqual(before);
    expect(before.totals).toMatchObject({ requests: 2, prompt_tokens: 110, cache_read_tokens: 40, unpriced: 1 });
    expect(b.replayedRecords).toBe(0); // the snapshot at close counted them all
    await b.close();
  });

  it('keeps the sessions across a restart and a crash (their own snapshot file, and the raw lines replayed)', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    a.record(rec({ time: at(5), app: 'claude-code', session: 'cc-1', cost_usd: 0.5 }));
    await a.snapshot();
    a.record(rec({ time: at(2), app: 'claude-code', session: 'cc-1', cost_usd: 0.25 }));
    a.raw.flush(); // the process dies here: the second record is only in the raw file
    const b = await open();
    expect(await fs.readFile(path.join(dir(), snapshotFile('session')), 'utf8')).toContain('cc-1');
    expect(today(b).by_session).toEqual([expect.objectContaining({ key: 'cc-1', requests: 2, cost_usd: 0.75 })]);
    await b.close();
    await a.close();
  });

  it('after a crash, replays the raw lines written after the snapshots: none missed, none counted twice', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    a.record(rec({ time: at(3), cost_usd: 1 }));
    a.record(rec({ time: at(3), cost_usd: 2 }));
    await a.snapshot();
    a.record(rec({ time: at(2), cost_usd: 4 }));
    a.raw.flush(); // reached the file; no snapshot since: the process dies here
    const b = await open();
    expect(b.replayedRecords).toBe(1);
    expect(today(b).totals).toMatchObject({ requests: 3, cost_usd: 7 });
    await b.close();
    await a.close();
  });

  it('skips and counts a torn last line left by a crash mid-write', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    a.record(rec({ time: at(2), cost_usd: 1 }));
    await a.close();
    const file = path.join(dir(), 'raw-2025-01-15.jsonl');
    await fs.appendFile(file, JSON.stringify(rec({ time: at(1), cost_usd: 100 })).slice(0, 50));
    const b = await open();
    expect(b.skippedLines).toBe(1);
    expect(today(b).totals).toMatchObject({ requests: 1, cost_usd: 1 });
    b.record(rec({ time: at(0), cost_usd: 2 }));
    await b.close();
    const c = await open();
    await c.snapshot();
    for (const g of ['minute', 'hour', 'day'] as const) await fs.rm(path.join(dir(), snapshotFile(g)));
    const d = await open(); // everything from the raw file again: the torn line is still skipped, the rest counted
    expect(d.skippedLines).toBe(1);
    expect(today(d).totals).toMatchObject({ requests: 2, cost_usd: 3 });
    await c.close();
    await d.close();
  });

  it('appends only the cells changed to a snapshot, and rewrites it whole once the changes outgrow it', async () => {
    process.env.TZ = 'UTC';
    const a = await open({ rewriteAfterBytes: 0 }); // whole again as soon as the appended lines outgrow the whole
    const day = path.join(dir(), snapshotFile('day'));
    const lines = async () =>
      (await fs.readFile(day, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
    expect((await lines()).map((l) => [l.whole, l.cells.length])).toEqual([[true, 0]]); // written at start
    for (let i = 0; i < 30; i++) a.record(rec({ time: at(i), app: `app${i}` }));
    await a.snapshot();
    expect((await lines()).map((l) => [l.whole, l.cells.length])).toEqual([
      [true, 0],
      [false, 30],
    ]);
    a.record(rec({ time: at(0), app: 'app3' }));
    await a.snapshot(); // the changes appended (30 cells) outgrew the whole line (none): rewritten whole
    expect((await lines()).map((l) => [l.whole, l.cells.length])).toEqual([[true, 30]]);
    a.record(rec({ time: at(0), app: 'app3' }));
    await a.snapshot();
    expect((await lines()).map((l) => [l.whole, l.cells.length])).toEqual([
      [true, 30],
      [false, 1],
    ]);
    expect((await lines())[1].keys).toEqual([keyOf('app3', 'openai', 'gpt-4o-mini')]);
    for (let i = 0; i < 40; i++) {
      a.record(rec({ time: at(0), app: `app${i % 30}` }));
      await a.snapshot();
    }
    const after = await lines();
    expect(after.length).toBeLessThan(40);
    expect(after.slice(1).every((l) => !l.whole)).toBe(true);
    await a.close();
    const b = await open();
    expect(today(b).totals.requests).toBe(72);
    expect(b.replayedRecords).toBe(0);
    await b.close();
  });

  it('skips a snapshot line torn by a crash and replays the raw records after the line before', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    a.record(rec({ time: at(2), cost_usd: 1 }));
    await a.snapshot();
    a.record(rec({ time: at(1), cost_usd: 2 }));
    await a.snapshot();
    const file = path.join(dir(), snapshotFile('hour'));
    const text = await fs.readFile(file, 'utf8');
    const lastLine = text.trimEnd().split('\n').pop()!;
    await fs.writeFile(file, text.slice(0, text.length - lastLine.length - 1) + lastLine.slice(0, 30)); // torn
    const b = await open();
    expect(b.skippedSnapshotLines).toBe(1);
    expect(b.replayedRecords).toBe(1);
    expect(summarize(b.rollups, '24h', NOW, []).totals).toMatchObject({ requests: 2, cost_usd: 3 });
    await b.close();
    await a.close();
  });

  it('answers summaries from the rollups alone (the raw files may be gone)', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    a.record(rec({ time: at(10), cost_usd: 0.25 }));
    await a.close();
    for (const f of await fs.readdir(dir())) if (f.startsWith('raw-')) await fs.rm(path.join(dir(), f));
    const b = await open();
    expect(today(b).totals).toMatchObject({ requests: 1, cost_usd: 0.25 });
    expect(summarize(b.rollups, '1h', NOW, []).totals.requests).toBe(1);
    await b.close();
  });

  it('deletes the raw files past raw_days, keeping the rollups', async () => {
    process.env.TZ = 'UTC';
    const a = await open();
    a.record(rec({ time: at(1), cost_usd: 0.5 }));
    await a.close();
    const later = NOW + 8 * 86_400_000;
    const b = await open({ now: () => later });
    expect((await fs.readdir(dir())).filter((f) => f.startsWith('raw-'))).toEqual([]);
    expect(summarize(b.rollups, 'month', later, []).totals.cost_usd).toBe(0.5);
    await b.close();
  });

  it('lists the newest records first, a page at a time (limit, before an id, before a time)', async () => {
    const a = await open();
    const recs = [0, 1, 2, 3, 4].map((i) => rec({ time: at(10 - i) }));
    for (const r of recs) a.record(r);
    const first = await a.requests(2, null);
    expect(first.data.map((r) => r.id)).toEqual([recs[4]!.id, recs[3]!.id]);
    expect(first.has_more).toBe(true);
    const next = await a.requests(10, { id: recs[3]!.id });
    expect(next).toEqual({ data: [recs[2], recs[1], recs[0]], has_more: false });
    const byTime = await a.requests(10, { time: Date.parse(recs[2]!.time) });
    expect(byTime.data.map((r) => r.id)).toEqual([recs[1]!.id, recs[0]!.id]);
    await a.close();
  });
});
