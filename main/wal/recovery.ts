// Opening the log: take the newest sound snapshot, scan every segment, cut a torn tail, keep damaged files aside.
import { errnoCode, walErrorFromFs } from './errors.ts';
import type { WalFs } from './fs.ts';
import { scanSegment, type ScanCursor } from './scan.ts';
import { asideName, inDir, listFolder, segmentName, tempName, type SegmentInfo } from './segment.ts';
import { readSnapshot, SnapshotDamaged } from './snapshot.ts';

export interface RecoveryReport {
  /** Bytes cut from the end of the last segment: a write the crash interrupted (never acknowledged). */
  tornBytes: number;
  /** Files renamed aside because they were damaged (kept, never deleted). */
  keptAside: string[];
  /** Segments rewritten with their good records only. */
  repaired: string[];
  /** Temporary files of an interrupted compaction or repair, removed. */
  removedTemporary: string[];
}

export interface RecoveredLog {
  snapshot: { name: string; seq: number; createdAt: string } | null;
  /** In log order; the last one is where appends go (created if the folder had none). */
  segments: SegmentInfo[];
  /** The seq the next appended record gets. */
  nextSeq: number;
  /** Records after the snapshot that the log should hold but cannot read. */
  lostRecords: number;
  /** Their seq ranges [from, to]. */
  lost: [number, number][];
  report: RecoveryReport;
}

export async function recoverFolder(fs: WalFs, dir: string, now: () => Date = () => new Date()): Promise<RecoveredLog> {
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw walErrorFromFs(err, what, dir);
    }
  };
  const report: RecoveryReport = { tornBytes: 0, keptAside: [], repaired: [], removedTemporary: [] };
  await step(`creating ${dir}`, () => fs.mkdirp(dir));
  const listing = await step(`listing ${dir}`, () => listFolder(fs, dir));

  for (const name of listing.temporary) {
    await step(`removing ${name}`, () => fs.unlink(inDir(dir, name)));
    report.removedTemporary.push(name);
  }

  let snapshot: RecoveredLog['snapshot'] = null;
  for (const { name } of [...listing.snapshots].reverse()) {
    try {
      const read = await readSnapshot(fs, dir, name);
      snapshot = { name, seq: read.seq, createdAt: read.createdAt };
      break;
    } catch (err) {
      if (!(err instanceof SnapshotDamaged)) throw walErrorFromFs(err, `reading ${name}`, dir);
      const aside = asideName(name, now());
      await step(`keeping the damaged ${name} aside`, () => fs.rename(inDir(dir, name), inDir(dir, aside)));
      report.keptAside.push(aside);
    }
  }

  const covered = snapshot?.seq ?? 0;
  const cursor: ScanCursor = { expected: covered + 1, covered };
  const segments: SegmentInfo[] = [];
  let lostRecords = 0;
  const lost: [number, number][] = [];
  for (const [index, { name, firstSeq }] of listing.segments.entries()) {
    const isLast = index === listing.segments.length - 1;
    const file = inDir(dir, name);
    const buf = await step(`reading ${name}`, () => fs.readFile(file));
    const scan = scanSegment(buf, cursor);
    for (const [from, to] of scan.lost) {
      lostRecords += to - from + 1;
      lost.push([from, to]);
    }
    let bytes = buf.length;
    if (scan.damaged || (scan.tailBytes > 0 && !isLast)) {
      const aside = await step(`repairing ${name}`, () => repairSegment(fs, dir, name, buf, scan.goodRanges, now()));
      report.keptAside.push(aside);
      report.repaired.push(name);
      bytes = scan.goodRanges.reduce((sum, [start, end]) => sum + end - start, 0);
    } else if (scan.tailBytes > 0) {
      await step(`cutting the torn tail of ${name}`, async () => {
        const handle = await fs.open(file, 'update');
        try {
          await handle.truncate(scan.validEnd);
          await handle.datasync();
        } finally {
          await handle.close();
        }
      });
      report.tornBytes += scan.tailBytes;
      bytes = scan.validEnd;
    }
    segments.push({ name, firstSeq, lastSeq: scan.lastSeq, bytes });
  }

  // An empty last segment is named after the seq it was made for: seqs before it were handed out already.
  const last = segments[segments.length - 1];
  if (last && last.lastSeq === null && last.firstSeq > cursor.expected) {
    lostRecords += last.firstSeq - cursor.expected;
    lost.push([cursor.expected, last.firstSeq - 1]);
    cursor.expected = last.firstSeq;
  }
  // Start a new segment when there is none, or when damaged records ended the last one, so that the next open
  // still sees their seqs as missing instead of handing them out again.
  if (!last || (last.lastSeq !== null && last.lastSeq + 1 < cursor.expected)) {
    const name = segmentName(cursor.expected);
    await step(`creating ${name}`, async () => {
      const handle = await fs.open(inDir(dir, name), 'create');
      await handle.close();
      await fs.syncDir(dir);
    });
    segments.push({ name, firstSeq: cursor.expected, lastSeq: null, bytes: 0 });
  }

  return { snapshot, segments, nextSeq: cursor.expected, lostRecords, lost, report };
}

/**
 * Keeps the damaged file under a second name (a hard link: no copy, atomic), then replaces it with a copy holding
 * only its good frames. A crash at any point leaves the original name holding the old or the repaired bytes.
 */
async function repairSegment(
  fs: WalFs,
  dir: string,
  name: string,
  buf: Buffer,
  goodRanges: [number, number][],
  now: Date,
): Promise<string> {
  const file = inDir(dir, name);
  const tmp = inDir(dir, tempName(name));
  const handle = await fs.open(tmp, 'create');
  try {
    let at = 0;
    for (const [start, end] of goodRanges) {
      await handle.write(buf.subarray(start, end), at);
      at += end - start;
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
  const aside = await keepAside(fs, dir, name, buf, now);
  await fs.syncDir(dir);
  await fs.rename(tmp, file);
  await fs.syncDir(dir);
  return aside;
}

async function keepAside(fs: WalFs, dir: string, name: string, buf: Buffer, now: Date): Promise<string> {
  for (let n = 0; ; n++) {
    const aside = asideName(name, now) + (n === 0 ? '' : `-${n}`);
    try {
      await fs.link(inDir(dir, name), inDir(dir, aside));
      return aside;
    } catch (err) {
      if (errnoCode(err) === 'EEXIST') continue;
      // No hard links on this file system: keep a copy instead.
      const handle = await fs.open(inDir(dir, aside), 'create-new');
      try {
        await handle.write(buf, 0);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      return aside;
    }
  }
}
