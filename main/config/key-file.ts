// A key file beside config.json (agent-keys.json, gateway-keys.json): {"keys": [...]} holding sha-256 hashes, never
// secrets; written atomically with owner-only permissions, every read-modify-write under `<file>.lock` (O_EXCL) so
// two `switchboard keys` commands at once never lose a key; and the server's index of it, re-read when it changes.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.ts';

/** A lock older than this is left over from a command that died: it is taken over. */
const STALE_LOCK_MS = 10_000;

export async function readKeyFile<T>(file: string): Promise<T[]> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { keys?: T[] };
    return Array.isArray(parsed.keys) ? parsed.keys : [];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function withLock<R>(file: string, fn: () => Promise<R>): Promise<R> {
  const lock = `${file}.lock`;
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      await (await fs.open(lock, 'wx', 0o600)).close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await fs.stat(lock).then(
        (st) => Date.now() - st.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await fs.rm(lock, { force: true });
      else if (Date.now() > deadline)
        throw new Error(`${lock} is held by another switchboard keys command; retry, or delete it if none is running`);
      else await new Promise((r) => setTimeout(r, 20));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

/**
 * Reads the keys, lets `change` edit them, and writes them back, all under the lock. `change` returns the keys to
 * write (null: nothing changed, nothing written) and a result for the caller.
 */
export function updateKeyFile<T, R>(file: string, change: (keys: T[]) => { keys: T[] | null; result: R }): Promise<R> {
  return withLock(file, async () => {
    const { keys, result } = change(await readKeyFile<T>(file));
    if (keys) await writeFileAtomic(file, `${JSON.stringify({ keys }, null, 2)}\n`, 0o600);
    return result;
  });
}

/**
 * The server's view of a key file, by hash; re-read when the file changes, so keys made or revoked apply at once.
 * `onChange` runs right after a re-read installs the new keys, before the read that noticed it returns.
 */
export class KeyIndex<T extends { sha256: string }> {
  private byHash = new Map<string, T>();
  private version = '';

  constructor(
    readonly file: string,
    private readonly onChange?: () => void,
  ) {}

  async get(sha256: string): Promise<T | undefined> {
    await this.refresh();
    return this.byHash.get(sha256);
  }

  /** The keys as last read. */
  values(): IterableIterator<T> {
    return this.byHash.values();
  }

  /**
   * Re-reads the file when it changed: checked at every call, after it was made (so a key revoked by the CLI is
   * refused by the next request), with a synchronous stat (a few µs; the promise-based stat cost 20–50 µs of the
   * main thread per request under load, a fifth of a gateway request's CPU at c=32). Every write of the file is a
   * rename of a new file: a new inode, so (ino, mtime, size) changes even within one tick. Only a change reads.
   */
  async refresh(): Promise<void> {
    const version = this.statVersion();
    if (version !== '' && version === this.version) return;
    const seq = ++this.reads;
    const byHash = new Map((await readKeyFile<T>(this.file)).map((k) => [k.sha256, k]));
    // Two reads in flight (the file changed twice): the later one's keys win, whichever finishes first.
    if (seq < this.installed) return;
    this.installed = seq;
    // The version is stamped only once its keys are in: a request arriving while they load must not see none.
    this.byHash = byHash;
    this.version = version;
    this.onChange?.();
  }

  private reads = 0;
  private installed = 0;

  /** (inode, mtime, size) of the file, 'none' when it does not exist, '' when it cannot be read (read it to say why). */
  private statVersion(): string {
    try {
      const st = fsSync.statSync(this.file, { throwIfNoEntry: false });
      return st ? `${st.ino}:${st.mtimeMs}:${st.size}` : 'none';
    } catch {
      return '';
    }
  }
}
