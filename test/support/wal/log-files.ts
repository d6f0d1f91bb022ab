// Test helpers that look at a log folder directly: its segment files and where each frame starts and ends.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { readFrameAt } from '../../../main/wal/framing.ts';
import type { WalLog } from '../../../main/wal/wal.ts';

export async function segmentFiles(dir: string): Promise<string[]> {
  return (await fsp.readdir(dir))
    .filter((name) => /^wal-\d{20}\.log$/.test(name))
    .sort()
    .map((name) => path.join(dir, name));
}

export async function filesMatching(dir: string, pattern: RegExp): Promise<string[]> {
  return (await fsp.readdir(dir)).filter((name) => pattern.test(name)).sort();
}

/** [start, end) of every valid frame in a segment file, in order. */
export function frameBounds(buf: Buffer): [number, number][] {
  const bounds: [number, number][] = [];
  let at = 0;
  while (at < buf.length) {
    const read = readFrameAt(buf, at);
    if (read.kind !== 'ok') throw new Error(`no valid frame at ${at}: ${read.kind}`);
    bounds.push([at, read.end]);
    at = read.end;
  }
  return bounds;
}

export async function replayAll(wal: WalLog): Promise<{ seq: number; type: string | number; data: unknown }[]> {
  const out = [];
  for await (const record of wal.replay()) out.push(record);
  return out;
}
