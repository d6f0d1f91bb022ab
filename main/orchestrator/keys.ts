// Agent API keys: sk-agent-<64 hex>, stored as sha-256 hashes in agent-keys.json beside config.json (0600, atomic).
// The server re-reads the file when it changes, so `switchboard keys create|revoke` takes effect while it runs.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../config/atomic-write.ts';
import { keyId } from './ids.ts';

export const KEY_PATTERN = /^sk-agent-[a-f0-9]{64}$/;
export const DEFAULT_TENANT = 'default';

export type StoredKey = { id: string; tenant: string; sha256: string; created_at: string };

export const keysFile = (configDir: string): string => path.join(configDir, 'agent-keys.json');
const hash = (key: string): string => createHash('sha256').update(key).digest('hex');

export async function readKeys(file: string): Promise<StoredKey[]> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { keys?: StoredKey[] };
    return Array.isArray(parsed.keys) ? parsed.keys : [];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

const writeKeys = (file: string, keys: StoredKey[]) => writeFileAtomic(file, `${JSON.stringify({ keys }, null, 2)}\n`, 0o600);

/** Read-modify-write under `<file>.lock` (O_EXCL), so two CLI runs at once never lose a key. A lock older than 10 s is stale. */
async function withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await (await fs.open(lock, 'wx', 0o600)).close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await fs.stat(lock).then((st) => Date.now() - st.mtimeMs, () => 0);
      if (age > 10_000) await fs.rm(lock, { force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by another switchboard keys command; retry, or delete it if none is running`);
      else await new Promise((r) => setTimeout(r, 20));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

/** Creates a key; the plain key is returned once and never stored. */
export async function createKey(file: string, tenant = DEFAULT_TENANT): Promise<{ key: string; record: StoredKey }> {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(tenant)) throw new Error('--tenant must be 1-64 letters, digits, ".", "_" or "-"');
  const key = `sk-agent-${randomBytes(32).toString('hex')}`;
  const record: StoredKey = { id: keyId(), tenant, sha256: hash(key), created_at: new Date().toISOString() };
  await withLock(file, async () => writeKeys(file, [...(await readKeys(file)), record]));
  return { key, record };
}

export async function revokeKey(file: string, id: string): Promise<boolean> {
  return withLock(file, async () => {
    const keys = await readKeys(file);
    const left = keys.filter((k) => k.id !== id);
    if (left.length === keys.length) return false;
    await writeKeys(file, left);
    return true;
  });
}

/** The server's view of the key file: looks a key up by its hash, reloading when the file's mtime changes. */
export class KeyRing {
  private byHash = new Map<string, StoredKey>();
  private version = '';

  constructor(private readonly file: string) {}

  async tenantOf(key: string | undefined): Promise<string | null> {
    if (!key || !KEY_PATTERN.test(key)) return null;
    await this.refresh();
    const h = hash(key);
    const rec = this.byHash.get(h);
    if (!rec || !timingSafeEqual(Buffer.from(rec.sha256), Buffer.from(h))) return null;
    return rec.tenant;
  }

  private async refresh(): Promise<void> {
    // Every write is a rename of a new file: a new inode, so (ino, mtime, size) changes even within one tick.
    const version = await fs.stat(this.file).then((st) => `${st.ino}:${st.mtimeMs}:${st.size}`, () => 'none');
    if (version === this.version) return;
    // The version is stamped only once its keys are in: a request arriving while they load must not see none.
    const byHash = new Map((await readKeys(this.file)).map((k) => [k.sha256, k]));
    this.byHash = byHash;
    this.version = version;
  }
}
