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

/** The server's view of the key file: looks a key up by its hash (re-read when the file changes). */
export class KeyRing {
  private readonly index: KeyIndex<StoredKey>;

  constructor(file: string) {
    this.index = new KeyIndex(file);
  }

  async tenantOf(key: string | undefined): Promise<string | null> {
    if (!key || !KEY_PATTERN.test(key)) return null;
    const h = hash(key);
    const rec = await this.index.get(h);
    if (!rec || !timingSafeEqual(Buffer.from(rec.sha256), Buffer.from(h))) return null;
    return rec.tenant;
  }
}
