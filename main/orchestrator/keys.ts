// Agent API keys: sk-agent-<64 hex>, stored as sha-256 hashes in agent-keys.json beside config.json (a locked key
// file: ../config/key-file.ts). The server re-reads it when it changes, so `switchboard keys create|revoke` takes
// effect while it runs.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { KeyIndex, readKeyFile, updateKeyFile } from '../config/key-file.ts';
import { keyId } from './ids.ts';

export const KEY_PATTERN = /^sk-agent-[a-f0-9]{64}$/;
export const DEFAULT_TENANT = 'default';

export type StoredKey = { id: string; tenant: string; sha256: string; created_at: string };

export const keysFile = (configDir: string): string => path.join(configDir, 'agent-keys.json');
const hash = (key: string): string => createHash('sha256').update(key).digest('hex');

export const readKeys = (file: string): Promise<StoredKey[]> => readKeyFile<StoredKey>(file);

/** Creates a key; the plain key is returned once and never stored. */
export async function createKey(file: string, tenant = DEFAULT_TENANT): Promise<{ key: string; record: StoredKey }> {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(tenant)) throw new Error('--tenant must be 1-64 letters, digits, ".", "_" or "-"');
  const key = `sk-agent-${randomBytes(32).toString('hex')}`;
  const record: StoredKey = { id: keyId(), tenant, sha256: hash(key), created_at: new Date().toISOString() };
  await updateKeyFile<StoredKey, void>(file, (keys) => ({ keys: [...keys, record], result: undefined }));
  return { key, record };
}

export function revokeKey(file: string, id: string): Promise<boolean> {
  return updateKeyFile<StoredKey, boolean>(file, (keys) => {
    const left = keys.filter((k) => k.id !== id);
    return left.length === keys.length ? { keys: null, result: false } : { keys: left, result: true };
  });
}

/** How often the key file is checked for revocations while a stream of some key is open. */
export const REVOCATION_POLL_MS = 250;

/**
 * The server's view of the key file: looks a key up by its hash (re-read when the file changes), and tells the open
 * streams of a key when it leaves the file (revoked by the CLI, the admin API or a hand edit).
 */
export class KeyRing {
  private readonly index: KeyIndex<StoredKey>;
  /** Who to tell, by key id, when that key is no longer in the file. */
  private readonly holders = new Map<string, Set<() => void>>();
  private timer: NodeJS.Timeout | null = null;

  /** `pollMs`: how often the file is checked while someone listens (any request that reads it checks it too). */
  constructor(
    file: string,
    private readonly pollMs = REVOCATION_POLL_MS,
  ) {
    this.index = new KeyIndex(file, () => this.tellRevoked());
  }

  /** The key's id and tenant, or null when it is malformed, unknown or revoked. */
  async keyOf(key: string | undefined): Promise<{ id: string; tenant: string } | null> {
    if (!key || !KEY_PATTERN.test(key)) return null;
    const h = hash(key);
    const rec = await this.index.get(h);
    if (!rec || !timingSafeEqual(Buffer.from(rec.sha256), Buffer.from(h))) return null;
    return { id: rec.id, tenant: rec.tenant };
  }

  async tenantOf(key: string | undefined): Promise<string | null> {
    return (await this.keyOf(key))?.tenant ?? null;
  }

  /**
   * Calls `revoked` once when key `id` leaves the file (at once, after the caller's synchronous code, when it is
   * already gone). The file is checked every `pollMs` while anyone listens. Returns the way to stop listening.
   */
  onRevoked(id: string, revoked: () => void): () => void {
    let set = this.holders.get(id);
    if (!set) this.holders.set(id, (set = new Set()));
    set.add(revoked);
    if (!this.timer) {
      this.timer = setInterval(() => void this.index.refresh().catch(() => {}), this.pollMs);
      this.timer.unref();
    }
    if (!this.isKnown(id)) queueMicrotask(() => this.tellRevoked());
    return () => {
      const holders = this.holders.get(id);
      holders?.delete(revoked);
      if (holders?.size === 0) this.holders.delete(id);
      this.stopPollIfIdle();
    };
  }

  /** Whether the poll runs (someone listens for a revocation). */
  get watching(): boolean {
    return this.timer !== null;
  }

  private isKnown(id: string): boolean {
    for (const k of this.index.values()) if (k.id === id) return true;
    return false;
  }

  private tellRevoked(): void {
    if (this.holders.size === 0) return;
    const live = new Set<string>();
    for (const k of this.index.values()) live.add(k.id);
    for (const [id, holders] of [...this.holders]) {
      if (live.has(id)) continue;
      this.holders.delete(id);
      for (const revoked of holders) revoked();
    }
    this.stopPollIfIdle();
  }

  private stopPollIfIdle(): void {
    if (this.holders.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
  }
}
