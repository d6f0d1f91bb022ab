// Gateway keys (sk-sb-…) and personal access tokens (sbp_…): stored as sha-256 hashes in gateway-keys.json beside
// config.json (0600, atomic), with a name, allowed model globs, limits and an expiry. Revoked keys stay listed.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { LimitValues } from '../../shared/config.ts';
import { writeFileAtomic } from '../config/atomic-write.ts';

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

export async function readGatewayKeys(file: string): Promise<GatewayKeyRecord[]> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { keys?: GatewayKeyRecord[] };
    return Array.isArray(parsed.keys) ? parsed.keys : [];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

const writeGatewayKeys = (file: string, keys: GatewayKeyRecord[]) => writeFileAtomic(file, `${JSON.stringify({ keys }, null, 2)}\n`, 0o600);

export type CreateOptions = { kind: CredentialKind; name: string; models?: string[]; expiresAt?: Date | null; limits?: LimitValues };

/** Issues a key or PAT; the secret is returned once and only its hash is stored. */
export async function createGatewayKey(file: string, opts: CreateOptions): Promise<{ secret: string; record: GatewayKeyRecord }> {
  if (!/^[A-Za-z0-9._@-]{1,64}$/.test(opts.name)) throw new Error('--name must be 1-64 letters, digits, ".", "_", "@" or "-"');
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
  await writeGatewayKeys(file, [...(await readGatewayKeys(file)), record]);
  return { secret, record };
}

export async function revokeGatewayKey(file: string, id: string): Promise<boolean> {
  const keys = await readGatewayKeys(file);
  const rec = keys.find((k) => k.id === id);
  if (!rec) return false;
  rec.revoked_at ??= new Date().toISOString();
  await writeGatewayKeys(file, keys);
  return true;
}

/** "30d", "12h", "90m" or an ISO date → the expiry time. */
export function parseExpiry(text: string, now = Date.now()): Date {
  const m = /^(\d+)([dhm])$/.exec(text);
  if (m) return new Date(now + Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm']);
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new Error(`--expires must be like 30d, 12h, 90m or an ISO date (got "${text}")`);
  return d;
}

/** The server's view of the key file, re-read when its mtime changes (so create/revoke apply while it runs). */
export class GatewayKeyRing {
  private byHash = new Map<string, GatewayKeyRecord>();
  private mtimeMs = -1;

  constructor(readonly file: string) {}

  async lookup(secret: string): Promise<GatewayKeyRecord | null> {
    await this.refresh();
    return this.byHash.get(hashSecret(secret)) ?? null;
  }

  private async refresh(): Promise<void> {
    let mtime = 0;
    try {
      mtime = (await fs.stat(this.file)).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime === this.mtimeMs) return;
    this.mtimeMs = mtime;
    this.byHash = new Map((await readGatewayKeys(this.file)).map((k) => [k.sha256, k]));
  }
}
