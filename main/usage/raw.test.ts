// The raw files: batched appends to the day's file (written early once 16 KB are queued), a torn last line skipped
// and counted (and never glued to the next record), replay from a position, newest-first reading across files, and
// the retention.
import fs from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { RawLog, rawFileName } from './raw.ts';
import { rec } from './records.test-helper.ts';

const dir = useTempDir('usage-raw');
const line = (id: string, time = '2025-01-15T10:00:00.000Z') => `${JSON.stringify(rec({ id, time }))}\n`;
const DAY1 = Date.parse('2025-01-15T10:00:00Z');
const DAY2 = Date.parse('2025-01-16T10:00:00Z');

async function replayIds(raw: RawLog, from: Parameters<RawLog['replay']>[0] = null) {
  const ids: string[] = [];
  const counts = await raw.replay(from, (r) => ids.push(r.id));
  return { ids, ...counts };
}

describe('RawLog', () => {
  it('writes queued lines in one batch after the flush delay, to the file of the UTC day', async () => {
    const raw = new RawLog(dir(), () => DAY1, 20);
    raw.append(line('a'));
    raw.append(line('b'));
    const file = path.join(dir(), 'raw-2025-01-15.jsonl');
    await expect(fs.stat(file)).rejects.toThrow(); // nothing on disk yet
    await new Promise((r) => setTimeout(r, 80));
    expect((await fs.readFile(file, 'utf8')).split('\n')).toHaveLength(3);
    expect(raw.position()).toEqual({ file: 'raw-2025-01-15.jsonl', offset: (await fs.stat(file)).size });
    raw.close();
  });

  it('writes at once when 16 KB of lines are queued (before V8 promotes them), and syncs at the flush', async () => {
    const raw = new RawLog(dir(), () => DAY1, 60_000);
    const file = path.join(dir(), 'raw-2025-01-15.jsonl');
    const one = line('a');
    const under = Math.floor((16 * 1024) / one.length); // lines that stay queued
    for (let i = 0; i < under; i++) raw.append(one);
    await expect(fs.stat(file)).rejects.toThrow(); // below the size: waiting for the timer
    raw.append(one);
    expect((await fs.stat(file)).size).toBe((under + 1) * one.length); // past it: written, the timer not due
    raw.append(line('b'));
    expect((await fs.stat(file)).size).toBe((under + 1) * one.length);
    raw.flush();
    expect((await replayIds(raw)).ids).toEqual([...Array<string>(under + 1).fill('a'), 'b']);
    raw.close();
  });

  it('skips and counts a torn last line, and starts the next record on a line of its own', async () => {
    const file = path.join(dir(), rawFileName(DAY1));
    const torn = line('c').slice(0, 40); // a crash in the middle of a write
    await fs.writeFile(file, line('a') + line('b') + torn);
    const raw = new RawLog(dir(), () => DAY1);
    expect(await replayIds(raw)).toEqual({ ids: ['a', 'b'], records: 2, skipped: 1 });
    raw.append(line('d'));
    raw.flush();
    const again = new RawLog(dir(), () => DAY1);
    expect(await replayIds(again)).toEqual({ ids: ['a', 'b', 'd'], records: 3, skipped: 1 });
    expect((await fs.readFile(file, 'utf8')).endsWith(`${torn}\n${line('d')}`)).toBe(true);
    raw.close();
  });

  it('replays only what comes after a position, across the following files', async () => {
    let now = DAY1;
    const raw = new RawLog(dir(), () => now);
    raw.append(line('a'));
    raw.flush();
    const mark = raw.position()!;
    raw.append(line('b'));
    raw.flush();
    now = DAY2;
    raw.append(line('c'));
    raw.close();
    const seen: [string, string][] = [];
    await new RawLog(dir()).replay(mark, (r, at) => seen.push([r.id, at.file]));
    expect(seen).toEqual([
      ['b', 'raw-2025-01-15.jsonl'],
      ['c', 'raw-2025-01-16.jsonl'],
    ]);
  });

  it('replays from a position in pieces: lines across piece boundaries, positions and the torn last line as whole', async () => {
    const file = path.join(dir(), rawFileName(DAY1));
    const lines = Array.from({ length: 60 }, (_, i) => line(`r${i}-${'y'.repeat(i * 7)}`));
    await fs.writeFile(file, lines.join('') + line('torn').slice(0, 30));
    const from = { file: rawFileName(DAY1), offset: lines[0]!.length + lines[1]!.length };
    const run = async (chunk?: number) => {
      const seen: [string, number][] = [];
      const raw = new RawLog(dir(), () => DAY1);
      const counts = await raw.replay(from, (r, at) => seen.push([r.id, at.offset]), chunk);
      const end = raw.position();
      raw.close();
      return { seen, counts, end };
    };
    const whole = await run();
    expect(whole.seen).toHaveLength(58);
    expect(whole.seen[0]![1]).toBe(from.offset + lines[2]!.length);
    expect(whole.counts).toEqual({ records: 58, skipped: 1 });
    expect(whole.end).toEqual({ file: rawFileName(DAY1), offset: (await fs.stat(file)).size });
    for (const chunk of [1, 7, 64, 333]) expect(await run(chunk)).toEqual(whole);
  });

  it('replaying the end of a large day does not hold the whole file in memory', async () => {
    const file = path.join(dir(), rawFileName(DAY1));
    const one = line(`big-${'z'.repeat(1000)}`);
    const count = Math.ceil((16 * 2 ** 20) / one.length); // a 16 MB day
    await fs.writeFile(file, one.repeat(count));
    const from = { file: rawFileName(DAY1), offset: one.length * (count - 10) };
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)(); // the 16 MB written above, gone from the count
    const before = process.memoryUsage().arrayBuffers;
    let most = 0;
    const raw = new RawLog(dir(), () => DAY1);
    const counts = await raw.replay(from, () => {
      most = Math.max(most, process.memoryUsage().arrayBuffers - before);
    });
    raw.close();
    expect(counts).toEqual({ records: 10, skipped: 0 });
    expect(most).toBeLessThan(4 * 2 ** 20); // a 1 MB piece, not the 16 MB file
  });

  it('reads newest first across files, through chunk boundaries', async () => {
    let now = DAY1;
    const raw = new RawLog(dir(), () => now);
    const ids = Array.from({ length: 400 }, (_, i) => `r${i}-${'x'.repeat(300)}`); // well over one 64 KB chunk
    for (const id of ids.slice(0, 200)) raw.append(line(id));
    raw.flush();
    now = DAY2;
    for (const id of ids.slice(200)) raw.append(line(id));
    const read: string[] = [];
    for await (const r of raw.backward()) read.push(r.id); // the queued lines are flushed first
    expect(read).toEqual([...ids].reverse());
    raw.close();
  });

  it('removes the files of days before the oldest kept, never the one being written', async () => {
    for (const d of ['2025-01-10', '2025-01-12', '2025-01-14'])
      await fs.writeFile(path.join(dir(), `raw-${d}.jsonl`), '');
    await fs.writeFile(path.join(dir(), 'rollup-day.json'), '{}');
    const raw = new RawLog(dir(), () => Date.parse('2025-01-11T00:00:00Z'));
    raw.append(line('a')); // writing raw-2025-01-11.jsonl
    raw.flush();
    expect(await raw.removeBefore('2025-01-14')).toEqual(['raw-2025-01-10.jsonl', 'raw-2025-01-12.jsonl']);
    expect((await fs.readdir(dir())).sort()).toEqual([
      'raw-2025-01-11.jsonl',
      'raw-2025-01-14.jsonl',
      'rollup-day.json',
    ]);
    raw.close();
  });
});
