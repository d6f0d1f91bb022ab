// One process per data folder: wal.lock names the owner (pid, start time, boot: owner.ts); the lock of a process that
// died, is a zombie, or whose pid now belongs to another process, is taken over.
import path from 'node:path';
import { errnoCode, WalError, walErrorFromFs } from './errors.ts';
import type { WalFs } from './fs.ts';
import { identityText, isOwnerAlive, parseIdentity, selfIdentity } from './owner.ts';
import { inDir, LOCK_FILE } from './segment.ts';

const heldHere = new Set<string>();

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
        await file.write(Buffer.from(identityText(selfIdentity())), 0);
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
    let owner: ReturnType<typeof parseIdentity> = null;
    try {
      owner = parseIdentity((await fs.readFile(lockPath)).toString('utf8'));
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw walErrorFromFs(err, `reading the lock file ${lockPath}`, dir);
      continue;
    }
    if (owner && owner.pid !== process.pid && isOwnerAlive(owner))
      throw new WalError(
        'locked',
        `the WAL folder ${dir} is in use by process ${owner.pid}`,
        `Stop that Switchboard (pid ${owner.pid}) or give this one another data folder.`,
      );
    await fs.unlink(lockPath).catch(() => {}); // left by a process that died (or by this one, crashed in a test)
  }
  throw new WalError(
    'locked',
    `could not take the lock file ${lockPath}`,
    `Remove ${lockPath} if no Switchboard is running.`,
  );
}
