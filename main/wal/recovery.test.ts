// Recovery at open, tested on real files: torn tails at every byte, bit flips at every byte, damaged segments.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FaultyFs, SimulatedCrash } from '../../test/support/wal/fs-faults.ts';
import { filesMatching, frameBounds, replayAll, segmentFiles } from '../../test/support/wal/log-files.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { openWal } from './wal.ts';

const dir = useTempDir('recovery');

const recordFor = (i: number) => ({
  type: i % 2 ? 'event' : 7,
  data: i % 3 ? { i, text: `record ${i}` } : `plain ${i}`,
});

/** Writes n records (one append each) and returns the single segment's bytes. */
async function writeLog(n: number, options: { segmentBytes?: number } = {}): Promise<void> {
  const wal = await openWal({ dir: dir(), autoCompactBytes: 0, ...options });
  for (let i = 1; i <= n; i++) expect((await wal.append([recordFor(i)])).firstSeq).toBe(i);
  await wal.close();
}

async function resetFolder(files: Record<string, Buffer>): Promise<void> {
  for (const name of await fsp.readdir(dir())) await fsp.rm(path.join(dir(), name), { force: true });
  for (const [name, bytes] of Object.entries(files)) await fsp.writeFile(path.join(dir(), name), bytes);
}

/** The log's first (in these tests: only) segment: its file name, its bytes, and where each of its frames lies. */
async function firstSegment(): Promise<{ name: string; original: Buffer; frames: [number, number][] }> {
  const [segment] = await segmentFiles(dir());
  const original = await fsp.readFile(segment as string);
  return { name: path.basename(segment as string), original, frames: frameBounds(original) };
}

describe('torn tail', () => {
  it('a cut at every byte offset of the last record recovers exactly the records before it', async () => {
    const n = 12;
    await writeLog(n);
    const { name, original, frames } = await firstSegment();
    const [lastStart, lastEnd] = frames[n - 1] as [number, number];
    expect(lastEnd).toBe(original.length);

    for (let cut = lastStart; cut < lastEnd; cut++) {
      await resetFolder({ [name]: original.subarray(0, cut) });
      const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
      const records = await replayAll(wal);
      expect(records.map((r) => r.seq)).toEqual(Array.from({ length: n - 1 }, (_, i) => i + 1));
      expect(records.map((r) => r.data)).toEqual(Array.from({ length: n - 1 }, (_, i) => recordFor(i + 1).data));
      expect(wal.status()).toMatchObject({ total_entries: n - 1, corrupted_entries: 0 });
      expect(wal.info().recovery.tornBytes).toBe(cut - lastStart);
      expect((await fsp.stat(path.join(dir(), name))).size).toBe(lastStart); // truncated
      expect(await wal.append([{ type: 1, data: 'after' }])).toEqual({ firstSeq: n, lastSeq: n }); // the lost seq was never acknowledged
      await wal.close();
    }
  });

  it('a cut inside a multi-segment log only affects the last segment', async () => {
    await writeLog(40, { segmentBytes: 600 });
    const segments = await segmentFiles(dir());
    expect(segments.length).toBeGreaterThan(3);
    const last = segments[segments.length - 1] as string;
    const bytes = await fsp.readFile(last);
    await fsp.writeFile(last, bytes.subarray(0, bytes.length - 5));
    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect((await replayAll(wal)).map((r) => r.seq)).toEqual(Array.from({ length: 39 }, (_, i) => i + 1));
    expect(wal.status().corrupted_entries).toBe(0);
    expect(await filesMatching(dir(), /damaged/)).toEqual([]);
    await wal.close();
  });
});

describe('damaged records in mid-log', () => {
  it('a bit flip at every byte offset of a middle record is counted once, skipped, and everything after is read', async () => {
    const n = 9;
    const target = 5;
    await writeLog(n);
    const { name, original, frames } = await firstSegment();
    const [start, end] = frames[target - 1] as [number, number];
    const expected = Array.from({ length: n }, (_, i) => i + 1).filter((seq) => seq !== target);

    for (let at = start; at < end; at++) {
      const damaged = Buffer.from(original);
      damaged[at] = (damaged[at] as number) ^ (1 << (at % 8));
      await resetFolder({ [name]: damaged });
      const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
      const records = await replayAll(wal);
      expect(
        records.map((r) => r.seq),
        `flip at byte ${at - start} of the record`,
      ).toEqual(expected);
      expect(records.map((r) => r.data)).toEqual(expected.map((seq) => recordFor(seq).data));
      expect(wal.status()).toMatchObject({ corrupted_entries: 1, total_entries: n - 1 });
      // The damaged file is kept aside, byte for byte; the segment now holds the good records only.
      const aside = await filesMatching(dir(), /\.damaged-/);
      expect(aside).toHaveLength(1);
      expect(Buffer.compare(await fsp.readFile(path.join(dir(), aside[0] as string)), damaged)).toBe(0);
      expect((await fsp.stat(path.join(dir(), name))).size).toBe(original.length - (end - start));
      expect((await wal.append([{ type: 1, data: 'next' }])).firstSeq).toBe(n + 1);
      await wal.close();
    }
  });

  it('counts every damaged record across segments, keeps each damaged segment aside and goes on counting after a restart', async () => {
    await writeLog(60, { segmentBytes: 800 });
    const segments = await segmentFiles(dir());
    expect(segments.length).toBeGreaterThanOrEqual(4);
    // Damage: a body bit in segment 0, a header bit in segment 1, two neighbouring records in segment 2.
    const damage = async (file: string, picks: { frame: number; offset: (s: number, e: number) => number }[]) => {
      const bytes = await fsp.readFile(file);
      const bounds = frameBounds(bytes);
      for (const pick of picks) {
        const [s, e] = bounds[pick.frame] as [number, number];
        const at = pick.offset(s, e);
        bytes[at] = (bytes[at] as number) ^ 0x04;
      }
      await fsp.writeFile(file, bytes);
      return bounds.length;
    };
    await damage(segments[0] as string, [{ frame: 1, offset: (_s, e) => e - 1 }]);
    await damage(segments[1] as string, [{ frame: 0, offset: (s) => s + 9 }]); // the length field
    await damage(segments[2] as string, [
      { frame: 1, offset: (s) => s + 1 },
      { frame: 2, offset: (s) => s + 40 },
    ]);
    const before = await Promise.all(segments.map((f) => fsp.readFile(f)));

    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    const seqs = (await replayAll(wal)).map((r) => r.seq);
    expect(wal.status().corrupted_entries).toBe(4);
    expect(seqs).toHaveLength(56);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs[seqs.length - 1]).toBe(60);
    const aside = await filesMatching(dir(), /\.damaged-/);
    expect(aside).toHaveLength(3);
    for (const [i, name] of aside.entries())
      expect(Buffer.compare(await fsp.readFile(path.join(dir(), name)), before[i] as Buffer)).toBe(0);
    expect(wal.info().recovery.repaired).toHaveLength(3);
    await wal.append([{ type: 1, data: 'x' }]);
    await wal.close();

    // The files are clean now, but the missing seqs are still missing: still counted, nothing new kept aside.
    const again = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(again.status().corrupted_entries).toBe(4);
    expect((await replayAll(again)).map((r) => r.seq)).toEqual([...seqs, 61]);
    expect(await filesMatching(dir(), /\.damaged-/)).toHaveLength(3);
    await again.close();
  });

  it('a segment cut short before the last one is damage, not a torn tail', async () => {
    await writeLog(30, { segmentBytes: 700 });
    const segments = await segmentFiles(dir());
    const middle = segments[1] as string;
    const bytes = await fsp.readFile(middle);
    await fsp.writeFile(middle, bytes.subarray(0, bytes.length - 3));
    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    const seqs = (await replayAll(wal)).map((r) => r.seq);
    expect(seqs).toHaveLength(29);
    expect(seqs[seqs.length - 1]).toBe(30);
    expect(wal.status().corrupted_entries).toBe(1);
    expect(await filesMatching(dir(), /\.damaged-/)).toHaveLength(1);
    await wal.close();
  });

  it('a whole last record with a bad checksum is counted (not taken for a torn write) and its seq is not reused', async () => {
    await writeLog(5);
    const [segment] = await segmentFiles(dir());
    const bytes = await fsp.readFile(segment as string);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    await fsp.writeFile(segment as string, bytes);
    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(wal.status()).toMatchObject({ corrupted_entries: 1, total_entries: 4 });
    expect((await wal.append([{ type: 1, data: 'x' }])).firstSeq).toBe(6);
    await wal.close();
    const again = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(again.status()).toMatchObject({ corrupted_entries: 1, total_entries: 5 });
    expect((await replayAll(again)).map((r) => r.seq)).toEqual([1, 2, 3, 4, 6]);
    await again.close();
  });

  it('a crash at any step of a repair loses no good record and keeps the damaged bytes', async () => {
    await writeLog(10);
    const { name, original, frames } = await firstSegment();
    const [s] = frames[3] as [number, number];
    const damaged = Buffer.from(original);
    damaged[s + 40] = (damaged[s + 40] as number) ^ 1;
    const expected = [1, 2, 3, 5, 6, 7, 8, 9, 10];

    let finished = false;
    for (let crashAt = 1; !finished; crashAt++) {
      await resetFolder({ [name]: damaged });
      const faulty = new FaultyFs();
      faulty.crashAfter(crashAt);
      try {
        const wal = await openWal({ dir: dir(), fs: faulty, autoCompactBytes: 0 });
        finished = true;
        await wal.close();
      } catch (err) {
        expect(err instanceof SimulatedCrash || (err as { cause?: unknown }).cause instanceof SimulatedCrash).toBe(
          true,
        );
      }
      await faulty.releaseAll();
      const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
      expect(
        (await replayAll(wal)).map((r) => r.seq),
        `crash at call ${crashAt}`,
      ).toEqual(expected);
      expect(wal.status().corrupted_entries).toBe(1);
      const aside = await filesMatching(dir(), /\.damaged-/);
      expect(aside.length).toBeGreaterThanOrEqual(1);
      expect(Buffer.compare(await fsp.readFile(path.join(dir(), aside[0] as string)), damaged)).toBe(0);
      await wal.close();
      expect(crashAt).toBeLessThan(100);
    }
  });
});

describe('folder housekeeping', () => {
  it('removes temporary files of an interrupted compaction or repair', async () => {
    await writeLog(3);
    await fsp.writeFile(path.join(dir(), 'snapshot-00000000000000000003.snap.tmp'), 'half a snapshot');
    await fsp.writeFile(path.join(dir(), 'wal-00000000000000000001.log.tmp'), 'half a repair');
    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(wal.info().recovery.removedTemporary).toHaveLength(2);
    expect(await filesMatching(dir(), /\.tmp$/)).toEqual([]);
    expect(await wal.loadSnapshot()).toBeNull();
    expect((await replayAll(wal)).length).toBe(3);
    await wal.close();
  });

  it('opens an empty or new folder', async () => {
    const nested = path.join(dir(), 'a', 'b');
    const wal = await openWal({ dir: nested });
    expect(wal.status()).toEqual({
      total_entries: 0,
      pending_entries: 0,
      corrupted_entries: 0,
      buffer_usage: 0,
      last_compaction: null,
    });
    expect((await wal.append([{ type: 1, data: 'first' }])).firstSeq).toBe(1);
    await wal.close();
  });
});
