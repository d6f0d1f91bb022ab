// Compaction: write the owner's snapshot atomically, then drop the segments and older snapshots it covers.
// Each step leaves a folder that opens with nothing acknowledged lost:
//   1 close the active segment (so the snapshot can cover all of it)
//   2 ask the owner for {seq, data}
//   3 snapshot-<seq>.snap.tmp, fsync, rename, fsync the folder   (crash before the rename: the temp is removed at open)
//   4 remove segments whose records are all ≤ seq, fsync the folder (oldest first: what stays is a suffix)
//   5 remove older snapshots, fsync the folder
import { walErrorFromFs } from './errors.ts';
import type { WalFs } from './fs.ts';
import { inDir, listFolder, type SegmentInfo } from './segment.ts';
import { writeSnapshot } from './snapshot.ts';

export interface SnapshotInput {
  /** The last record the state includes: every record up to seq is in `data`, none after it. */
  seq: number;
  data: unknown;
}

export type SnapshotProvider = () => SnapshotInput | Promise<SnapshotInput>;

export interface CompactionResult {
  seq: number;
  snapshot: string;
  droppedSegments: string[];
  droppedSnapshots: string[];
  /** ISO 8601 UTC. */
  at: string;
}

export interface CompactionHost {
  fs: WalFs;
  dir: string;
  now(): Date;
  /** Shared, in log order; the last one is the active segment and is never dropped. */
  segments: SegmentInfo[];
  rollActiveSegment(): Promise<void>;
  durableSeq(): number;
  snapshotSeq(): number;
  /** Replays in progress: segments are not removed under a reader (the next compaction removes them). */
  readers(): number;
  installSnapshot(snapshot: { name: string; seq: number; createdAt: string }): void;
}

export async function compactLog(host: CompactionHost, provider: SnapshotProvider): Promise<CompactionResult> {
  const { fs, dir } = host;
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw walErrorFromFs(err, `compaction: ${what}`, dir);
    }
  };

  await host.rollActiveSegment();
  const { seq, data } = await provider();
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw new RangeError(`snapshot seq must be a non-negative integer, got ${seq}`);
  if (seq > host.durableSeq())
    throw new RangeError(
      `snapshot seq ${seq} is past the last durable record ${host.durableSeq()}: return the seq of the last acknowledged record the state includes`,
    );
  if (seq < host.snapshotSeq())
    throw new RangeError(`snapshot seq ${seq} is older than the current snapshot (${host.snapshotSeq()})`);

  const at = host.now().toISOString();
  const name = await step('writing the snapshot', () => writeSnapshot(fs, dir, { seq, data, createdAt: at }));
  host.installSnapshot({ name, seq, createdAt: at });

  const droppedSegments: string[] = [];
  if (host.readers() === 0) {
    while (host.segments.length > 1) {
      const oldest = host.segments[0] as SegmentInfo;
      if (oldest.lastSeq !== null && oldest.lastSeq > seq) break;
      await step(`removing ${oldest.name}`, () => fs.unlink(inDir(dir, oldest.name)));
      host.segments.shift();
      droppedSegments.push(oldest.name);
    }
    if (droppedSegments.length > 0) await step('fsync of the folder', () => fs.syncDir(dir));
  }

  const droppedSnapshots: string[] = [];
  const { snapshots } = await step('listing the folder', () => listFolder(fs, dir));
  for (const old of snapshots) {
    if (old.seq >= seq) continue;
    await step(`removing ${old.name}`, () => fs.unlink(inDir(dir, old.name)));
    droppedSnapshots.push(old.name);
  }
  if (droppedSnapshots.length > 0) await step('fsync of the folder', () => fs.syncDir(dir));

  return { seq, snapshot: name, droppedSegments, droppedSnapshots, at };
}
