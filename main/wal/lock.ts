// One process per data folder: wal.lock holds the owner's pid; the lock of a process that died is taken over.
import path from 'node:path';
import { errnoCode, WalError, walErrorFromFs } from './errors.ts';
import type { WalFs } from './fs.ts';
import { inDir, LOCK_FILE } from './segment.ts';

const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM'; // exists, owned by another user
  }
}

/** Takes the folder's lock; resolves to the function that releases it. */
export async function lockFolder(fs: WalFs, dir: string): Promise<() => Promise<void>> {
  const key = path.resolve(dir);
  if (heldHere.has(key))
    throw new WalError(
      'locked',
      `the WAL folder ${dir} is already open in this process`,
      'Close the other log on this folder first: one open log per folder.',
    );
  const lockPath = inDir(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const file = await fs.open(lockPath, 'create-new');
      try {
        await file.write(Buffer.from(`${process.pid}\n`), 0);
      } finally {
        await file.close();
      }
      heldHere.add(key);
      return async () => {
        heldHere.delete(key);
        await fs.unlink(lockPath).catch(() => {});
      };
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw walErrorFromFs(err, `creating the lock file ${lockPath}`, dir);
    }
    let owner = Number.NaN;
    try {
      owner = Number.parseInt((await fs.readFile(lockPath)).toString('utf8'), 10);
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw walErrorFromFs(err, `reading the lock file ${lockPath}`, dir);
      continue;
    }
    if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner))
      throw new WalError(
        'locked',
        `the WAL folder ${dir} is in use by process ${owner}`,
        `Stop that Switchboard (pid ${owner}) or give this one another data folder.`,
      );
    await fs.unlink(lockPath).catch(() => {}); // left by a process that died (or by this one, crashed in a test)
  }
  throw new WalError(
    'locked',
    `could not take the lock file ${lockPath}`,
    `Remove ${lockPath} if no Switchboard is running.`,
  );
}
