// Snapshot files: the owner's state at a seq, written atomically (temp file, fsync, rename, fsync the folder).
// A snapshot file is two frames with the snapshot's seq: {seq, created_at} as JSON, then the owner's data.
import { decodeFrame, encodeRecord, readFrameAt } from './framing.ts';
import type { WalFs } from './fs.ts';
import { inDir, snapshotName, tempName } from './segment.ts';

const META_TYPE = 'snapshot-meta';
const DATA_TYPE = 'snapshot-data';

export interface Snapshot {
  seq: number;
  data: unknown;
  /** When the compaction that wrote it ran (ISO 8601 UTC). */
  createdAt: string;
}

/** The file is not a whole, valid snapshot (cut short or damaged). */
export class SnapshotDamaged extends Error {
  constructor(name: string, why: string) {
    super(`snapshot ${name} is damaged: ${why}`);
    this.name = 'SnapshotDamaged';
  }
}

export function encodeSnapshot(seq: number, data: unknown, createdAt: string): Buffer {
  return Buffer.concat([
    encodeRecord({ type: META_TYPE, data: { seq, created_at: createdAt } }, seq),
    encodeRecord({ type: DATA_TYPE, data }, seq),
  ]);
}

export function decodeSnapshot(buf: Buffer, name: string): Snapshot {
  const meta = readFrameAt(buf, 0);
  if (meta.kind !== 'ok') throw new SnapshotDamaged(name, `first frame is ${meta.kind}`);
  const body = readFrameAt(buf, meta.end);
  if (body.kind !== 'ok') throw new SnapshotDamaged(name, `second frame is ${body.kind}`);
  if (body.end !== buf.length) throw new SnapshotDamaged(name, `${buf.length - body.end} stray bytes at the end`);
  const metaRecord = decodeFrame(buf, 0);
  const dataRecord = decodeFrame(buf, meta.end);
  const info = metaRecord.data as { seq?: unknown; created_at?: unknown } | null;
  if (metaRecord.type !== META_TYPE || dataRecord.type !== DATA_TYPE || typeof info?.created_at !== 'string')
    throw new SnapshotDamaged(name, 'unexpected frame types');
  if (info.seq !== metaRecord.seq || dataRecord.seq !== metaRecord.seq)
    throw new SnapshotDamaged(name, 'seqs disagree');
  return { seq: metaRecord.seq, data: dataRecord.data, createdAt: info.created_at };
}

/** Writes snapshot-<seq>.snap so that it is either absent or whole and durable. Returns its name. */
export async function writeSnapshot(fs: WalFs, dir: string, snapshot: Snapshot): Promise<string> {
  const name = snapshotName(snapshot.seq);
  const tmp = inDir(dir, tempName(name));
  const file = await fs.open(tmp, 'create');
  try {
    await file.write(encodeSnapshot(snapshot.seq, snapshot.data, snapshot.createdAt), 0);
    await file.sync();
  } catch (err) {
    await file.close().catch(() => {});
    await fs.unlink(tmp).catch(() => {});
    throw err;
  }
  await file.close();
  await fs.rename(tmp, inDir(dir, name));
  await fs.syncDir(dir);
  return name;
}

export async function readSnapshot(fs: WalFs, dir: string, name: string): Promise<Snapshot> {
  return decodeSnapshot(await fs.readFile(inDir(dir, name)), name);
}
