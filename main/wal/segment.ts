// Names of the files in the data folder, and the folder listing the log starts from.
import path from 'node:path';
import type { WalFs } from './fs.ts';

// wal-<seq>.log: a segment; <seq> (20 digits) is the first seq written into it, so names sort in log order.
const SEGMENT_RE = /^wal-(\d{20})\.log$/;
// snapshot-<seq>.snap: the owner's state including every record up to <seq>.
const SNAPSHOT_RE = /^snapshot-(\d{20})\.snap$/;
// Left by a crash in the middle of an atomic write; never holds anything acknowledged.
const TEMP_RE = /^(wal|snapshot)-\d{20}\.(log|snap)\.tmp$/;

export const LOCK_FILE = 'wal.lock';

function pad(seq: number): string {
  return String(seq).padStart(20, '0');
}

export function segmentName(firstSeq: number): string {
  return `wal-${pad(firstSeq)}.log`;
}

export function snapshotName(seq: number): string {
  return `snapshot-${pad(seq)}.snap`;
}

export function tempName(name: string): string {
  return `${name}.tmp`;
}

/** Where a damaged file is kept: same name + `.damaged-<UTC time>`; the log never reads or deletes it. */
export function asideName(name: string, now: Date): string {
  return `${name}.damaged-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;
}

/** A segment as the log tracks it. lastSeq is the seq of its last record (null while it holds none). */
export interface SegmentInfo {
  name: string;
  firstSeq: number;
  lastSeq: number | null;
  bytes: number;
}

export interface FolderListing {
  segments: { name: string; firstSeq: number }[];
  snapshots: { name: string; seq: number }[];
  temporary: string[];
}

export async function listFolder(fs: WalFs, dir: string): Promise<FolderListing> {
  const listing: FolderListing = { segments: [], snapshots: [], temporary: [] };
  for (const name of await fs.readdir(dir)) {
    const segment = SEGMENT_RE.exec(name);
    if (segment) listing.segments.push({ name, firstSeq: Number(segment[1]) });
    const snapshot = SNAPSHOT_RE.exec(name);
    if (snapshot) listing.snapshots.push({ name, seq: Number(snapshot[1]) });
    if (TEMP_RE.test(name)) listing.temporary.push(name);
  }
  listing.segments.sort((a, b) => a.firstSeq - b.firstSeq);
  listing.snapshots.sort((a, b) => a.seq - b.seq);
  return listing;
}

export function inDir(dir: string, name: string): string {
  return path.join(dir, name);
}
