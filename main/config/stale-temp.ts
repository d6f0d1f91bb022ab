// The temp files of atomic saves (`.<name>.<pid>.<8 hex>.tmp` beside the file saved), and their clean-up at start: a
// save killed between open and rename (kill -9, power loss) leaves one behind, and it may hold keys.
//
// One is stale when the process named in it is gone, or when it is older than STALE_TEMP_MS whoever wrote it (a save
// takes milliseconds; the pid may since have been reused). A young temp file of a live process is another
// Switchboard's save in progress (a `switchboard keys` command) and is left alone. Nothing else is ever touched.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export const STALE_TEMP_MS = 60_000;
const TEMP_NAME = /^\.(.+)\.(\d+)\.([0-9a-f]{8})\.tmp$/;

/** A fresh temp path beside `file` for this process. */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** The file a temp name was for and the pid that wrote it; null for any other name. */
export function parseTempName(name: string): { target: string; pid: number } | null {
  const m = TEMP_NAME.exec(name);
  return m ? { target: m[1]!, pid: Number(m[2]) } : null;
}

/** Whether a process with this pid exists (one of another user counts: we may not signal it, but it is there). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type StaleTempOptions = { now?: number; maxAgeMs?: number; alive?: (pid: number) => boolean };

/** Removes the stale temp files directly in `dir` (a missing folder has none); answers the paths removed. */
export async function removeStaleTemps(dir: string, opts: StaleTempOptions = {}): Promise<string[]> {
  const { now = Date.now(), maxAgeMs = STALE_TEMP_MS, alive = processAlive } = opts;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return [];
    throw err;
  }
  const removed: string[] = [];
  for (const name of names) {
    const temp = parseTempName(name);
    if (!temp) continue;
    const file = path.join(dir, name);
    const st = await fs.lstat(file).catch(() => null);
    if (!st?.isFile()) continue;
    if (alive(temp.pid) && now - st.mtimeMs <= maxAgeMs) continue;
    try {
      await fs.rm(file);
      removed.push(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}
