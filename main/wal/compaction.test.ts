// Snapshots and compaction: what is dropped, what is kept, and a crash at every file-system call of it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FaultyFs, SimulatedCrash } from '../../test/support/wal/fs-faults.ts';
import { filesMatching, replayAll, segmentFiles } from '../../test/support/wal/log-files.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { openWal, type WalLog } from './wal.ts';

const dir = useTempDir('compaction');

/** A tiny owner: its state is the list of ids it has applied; the snapshot is that list. */
class Owner {
  ids: number[] = [];
  appliedSeq = 0;
  constructor(readonly wal: WalLog) {}

  async put(id: number): Promise<void> {
    const { lastSeq } = await this.wal.append([{ type: 'put', data: { id } }]);
    this.ids.push(id);
    this.appliedSeq = lastSeq;
  }

  snapshot = () => ({ seq: this.appliedSeq, data: { ids: [...this.ids] } });

  /** Rebuilds the state from a reopened log: snapshot + replay. */
  static async load(wal: WalLog): Promise<number[]> {
    const snap = await wal.loadSnapshot();
    const ids = [...((snap?.data as { ids: number[] } | undefined)?.ids ?? [])];
    for await (const record of wal.replay()) ids.push((record.data as { id: number }).id);
    return ids;
  }
}

describe('compaction', () => {
  it('writes the snapshot, drops covered segments and older snapshots, and sets last_compaction', async () => {
    const wal = await openWal({
      dir: dir(),
      segmentBytes: 500,
      autoCompactBytes: 0,
      now: () => new Date('2025-03-04T05:06:07.089Z'),
    });
    const owner = new Owner(wal);
    for (let id = 1; id <= 30; id++) await owner.put(id);
    const segmentsBefore = (await segmentFiles(dir())).length;
    const first = await wal.compact(owner.snapshot);
    expect(first.seq).toBe(30);
    expect(first.droppedSegments.length).toBe(segmentsBefore); // the active one was closed first, so all go
    expect(wal.status()).toMatchObject({ total_entries: 0, last_compaction: '2025-03-04T05:06:07.089Z' });
    for (let id = 31; id <= 40; id++) await owner.put(id);
    expect(wal.status().total_entries).toBe(10);
    wal.setSnapshotProvider(owner.snapshot);
    const second = await wal.compact();
    expect(second.droppedSnapshots).toEqual(['snapshot-00000000000000000030.snap']);
    expect(await filesMatching(dir(), /\.snap$/)).toEqual(['snapshot-00000000000000000040.snap']);
    await owner.put(41);
    await wal.close();

    const again = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(await Owner.load(again)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
    expect(again.status()).toMatchObject({
      total_entries: 1,
      corrupted_entries: 0,
      last_compaction: '2025-03-04T05:06:07.089Z',
    });
    expect((await again.loadSnapshot())?.seq).toBe(40);
    await again.close();
  });

  it('keeps segments the snapshot does not wholly cover', async () => {
    const wal = await openWal({ dir: dir(), segmentBytes: 400, autoCompactBytes: 0 });
    const owner = new Owner(wal);
    for (let id = 1; id <= 20; id++) await owner.put(id);
    const result = await wal.compact(() => ({ seq: 9, data: { ids: owner.ids.slice(0, 9) } }));
    const replayed = (await replayAll(wal)).map((r) => r.seq);
    expect(replayed).toEqual(Array.from({ length: 11 }, (_, i) => i + 10));
    expect(result.droppedSegments.length).toBeGreaterThan(0);
    for (const name of await segmentFiles(dir()))
      expect(name > path.join(dir(), result.droppedSegments.at(-1) as string)).toBe(true);
    await wal.close();
  });

  it('rejects a snapshot seq past the durable log or older than the current snapshot', async () => {
    const wal = await openWal({ dir: dir(), autoCompactBytes: 0 });
    await wal.append([{ type: 1, data: 1 }]);
    await expect(wal.compact(() => ({ seq: 5, data: {} }))).rejects.toThrow(/past the last durable record 1/);
    await wal.compact(() => ({ seq: 1, data: {} }));
    await expect(wal.compact(() => ({ seq: 0, data: {} }))).rejects.toThrow(/older than the current snapshot/);
    await expect(wal.compact()).rejects.toThrow(/snapshot provider/);
    await wal.close();
  });

  it('runs by itself once the log passes autoCompactBytes', async () => {
    const errors: unknown[] = [];
    const wal = await openWal({
      dir: dir(),
      segmentBytes: 1000,
      autoCompactBytes: 3000,
      onError: (e) => errors.push(e),
    });
    const owner = new Owner(wal);
    wal.setSnapshotProvider(owner.snapshot);
    for (let id = 1; id <= 200; id++) await owner.put(id);
    await wal.close(); // waits for a running compaction
    expect(errors).toEqual([]);
    const again = await openWal({ dir: dir(), autoCompactBytes: 0 });
    expect(again.status().last_compaction).not.toBeNull();
    expect(again.info().logBytes).toBeLessThan(3000 + 1000);
    expect(await Owner.load(again)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await again.close();
  });

  it('a crash at every file-system call of a compaction loses nothing acknowledged', async () => {
    let finished = false;
    let crashAt = 1;
    for (; !finished; crashAt++) {
      const sub = path.join(dir(), String(crashAt));
      const faulty = new FaultyFs();
      const wal = await openWal({ dir: sub, fs: faulty, segmentBytes: 300, autoCompactBytes: 0 });
      const owner = new Owner(wal);
      for (let id = 1; id <= 12; id++) await owner.put(id);
      await wal.compact(owner.snapshot); // an older snapshot for the next compaction to remove
      for (let id = 13; id <= 30; id++) await owner.put(id);
      const acknowledged = [...owner.ids];

      faulty.crashAfter(crashAt);
      try {
        await wal.compact(owner.snapshot);
        finished = true;
      } catch (err) {
        const crash = err instanceof SimulatedCrash || (err as { cause?: unknown }).cause instanceof SimulatedCrash;
        expect(crash, String(err)).toBe(true);
      }
      await wal.close().catch(() => {});
      await faulty.releaseAll(); // the process "died": the OS closes its files

      const again = await openWal({ dir: sub, autoCompactBytes: 0 });
      expect(await Owner.load(again), `crash at call ${crashAt}`).toEqual(acknowledged);
      expect(again.status().corrupted_entries).toBe(0);
      expect(await filesMatching(sub, /\.tmp$/)).toEqual([]);
      const next = await again.append([{ type: 'put', data: { id: 31 } }]);
      expect(next.firstSeq).toBe(31);
      await again.close();
    }
    expect(crashAt).toBeGreaterThan(10); // every call was a crash point: roll, snapshot write, renames, removals
  });
});
