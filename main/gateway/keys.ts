// Gateway keys (sk-sb-…) and personal access tokens (sbp_…): stored as sha-256 hashes in gateway-keys.json beside
// config.json (a locked key file: ../config/key-file.ts), with a name, allowed model globs, limits and an expiry.
// Revoked keys stay listed.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { LimitValues } from '../../shared/config.ts';
import { KeyIndex, readKeyFile, updateKeyFile } from '../config/key-file.ts';

export type CredentialKind = 'key' | 'pat';
export const KEY_PREFIX = 'sk-sb-';
export const PAT_PREFIX = 'sbp_';

export type GatewayKeyRecord = {
  id: string;
  kind: CredentialKind;
  name: string;
  sha256: string;
  /** The first characters of the secret, to recognise it in a list (never enough to use it). */
  hint: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** Model globs this credential may use; empty = every model. */
  models: string[];
  limits: LimitValues;
};

export const gatewayKeysFile = (configDir: string): string => path.join(configDir, 'gateway-keys.json');
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const readGatewayKeys = (file: string): Promise<GatewayKeyRecord[]> => readKeyFile<GatewayKeyRecord>(file);

export type CreateOptions = {
  kind: CredentialKind;
  name: string;
  models?: string[];
  expiresAt?: Date | null;
  limits?: LimitValues;
};

/** Issues a key or PAT; the secret is returned once and only its hash is stored. */
export async function createGatewayKey(
  file: string,
  opts: CreateOptions,
): Promise<{ secret: string; record: GatewayKeyRecord }> {
  if (!/^[A-Za-z0-9._@-]{1,64}$/.test(opts.name))
    throw new Error('--name must be 1-64 letters, digits, ".", "_", "@" or "-"');
  const secret = `${opts.kind === 'pat' ? PAT_PREFIX : KEY_PREFIX}${randomBytes(24).toString('hex')}`;
  const record: GatewayKeyRecord = {
    id: `${opts.kind === 'pat' ? 'pat' : 'key'}_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
    kind: opts.kind,
    name: opts.name,
    sha256: hashSecret(secret),
    hint: secret.slice(0, opts.kind === 'pat' ? 8 : 10),
    created_at: new Date().toISOString(),
    expires_at: opts.expiresAt ? opts.expiresAt.toISOString() : null,
    revoked_at: null,
    models: opts.models ?? [],
    limits: opts.limits ?? {},
  };
  await updateKeyFile<GatewayKeyRecord, void>(file, (keys) => ({ keys: [...keys, record], result: undefined }));
  return { secret, record };
}

export function revokeGatewayKey(file: string, id: string): Promise<boolean> {
  return updateKeyFile<GatewayKeyRecord, boolean>(file, (keys) => {
    const rec = keys.find((k) => k.id === id);
    if (!rec) return { keys: null, result: false };
    rec.revoked_at ??= new Date().toISOString();
    return { keys, result: true };
  });
}

/** "30d", "12h", "90m" or an ISO date → the expiry time. */
export function parseExpiry(text: string, now = Date.now()): Date {
  const m = /^(\d+)([dhm])$/.exec(text);
  if (m) return new Date(now + Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm']);
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new Error(`--expires must be like 30d, 12h, 90m or an ISO date (got "${text}")`);
  return d;
}

/** The server's view of the key file (re-read when it changes, so create/revoke apply while it runs). */
export class GatewayKeyRing {
  private readonly index: KeyIndex<GatewayKeyRecord>;

  constructor(readonly file: string) {
    this.index = new KeyIndex(file);
  }

  async lookup(secret: string): Promise<GatewayKeyRecord | null> {
    return (await this.index.get(hashSecret(secret))) ?? null;
  }
}
