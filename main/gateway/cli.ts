// `switchboard keys create|list|revoke --gateway|--pat`: gateway keys and personal access tokens (never printed again).
// With store kind "redis" (config.json's `store`, or SWITCHBOARD_REDIS_URL) each command also acts on the shared
// store, so a key made or revoked here applies on every instance at once, and `list` shows the team's keys.
import fs from 'node:fs/promises';
import path from 'node:path';
import { type LimitValues, StoreConfigSchema } from '../../shared/config.ts';
import { openSharedState, storeConfigOf, type SharedState } from '../store/index.ts';
import {
  createGatewayKey,
  gatewayKeysFile,
  type GatewayKeyRecord,
  parseExpiry,
  readGatewayKeys,
  readSharedKeys,
  revokeGatewayKey,
  revokeSharedKey,
  shareGatewayKey,
} from './keys.ts';
import type { CredentialKind } from './keys.ts';

/** The shared store of the config in `configFile` when it is Redis (connected, or null with why not), else null. */
async function sharedStoreOf(configFile: string): Promise<{ store: SharedState | null; note: string }> {
  let raw: unknown = {};
  try {
    raw = (JSON.parse(await fs.readFile(configFile, 'utf8')) as { store?: unknown }).store ?? { kind: 'embedded' };
  } catch {
    raw = { kind: 'embedded' };
  }
  const parsed = StoreConfigSchema.safeParse(raw);
  const cfg = storeConfigOf(parsed.success ? parsed.data : { kind: 'embedded' });
  if (cfg.kind === 'embedded') return { store: null, note: '' };
  const store = await openSharedState(cfg);
  for (let i = 0; i < 100 && !store.status().up; i++) await new Promise((r) => setTimeout(r, 20));
  if (store.status().up) return { store, note: '' };
  await store.close();
  return {
    store: null,
    note: `Redis (${store.status().url}) is not reachable: only ${path.basename(gatewayKeysFile(path.dirname(configFile)))} was changed; the instance serving this config copies it into Redis when it can\n`,
  };
}

export type GatewayKeyFlags = {
  pat?: boolean;
  name?: string;
  models?: string;
  expires?: string;
  rpm?: string;
  tpm?: string;
  concurrency?: string;
};

function intFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, 0 for no limit (got "${v}")`);
  return n;
}

/** Runs the command; returns what to print on stdout and stderr, or throws an Error whose message says the fix. */
export async function gatewayKeysCommand(
  configDir: string,
  sub: string | undefined,
  id: string | undefined,
  f: GatewayKeyFlags,
  configFile = path.join(configDir, 'config.json'),
): Promise<{ out: string; err: string }> {
  const file = gatewayKeysFile(configDir);
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') return keysCommand(file, null, '', sub, id, f);
  const { store, note } = await sharedStoreOf(configFile);
  try {
    return await keysCommand(file, store, note, sub, id, f);
  } finally {
    await store?.close();
  }
}

async function keysCommand(
  file: string,
  store: SharedState | null,
  note: string,
  sub: string | undefined,
  id: string | undefined,
  f: GatewayKeyFlags,
): Promise<{ out: string; err: string }> {
  const kind: CredentialKind = f.pat ? 'pat' : 'key';
  if (sub === 'create') {
    if (!f.name)
      throw new Error(
        `usage: switchboard keys create ${f.pat ? '--pat' : '--gateway'} --name NAME [--models "gpt-*,o3*"] [--expires 30d] [--rpm N] [--tpm N] [--concurrency N]`,
      );
    const limits: LimitValues = {};
    const rpm = intFlag('rpm', f.rpm);
    const tpm = intFlag('tpm', f.tpm);
    const concurrency = intFlag('concurrency', f.concurrency);
    if (rpm !== undefined) limits.rpm = rpm;
    if (tpm !== undefined) limits.tpm = tpm;
    if (concurrency !== undefined) limits.concurrency = concurrency;
    const expires = f.expires ? parseExpiry(f.expires) : kind === 'pat' ? parseExpiry('90d') : null;
    const models = f.models
      ? f.models
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean)
      : [];
    const { secret, record } = await createGatewayKey(file, { kind, name: f.name, models, expiresAt: expires, limits });
    if (store) await shareGatewayKey(store.credentials, record);
    const what = kind === 'pat' ? 'personal access token' : 'gateway key';
    const where = store ? `${file} and the shared store (${store.status().url})` : file;
    return {
      out: `${secret}\n`,
      err: `${note}created ${what} ${record.id} "${record.name}"${record.expires_at ? `, expires ${record.expires_at}` : ''} in ${where}; it is shown only now, store it safely\n`,
    };
  }
  if (sub === 'list') {
    const byHash = new Map<string, GatewayKeyRecord>();
    for (const k of await readGatewayKeys(file)) byHash.set(k.sha256, k);
    if (store) for (const k of await readSharedKeys(store.credentials)) byHash.set(k.sha256, k);
    const all = [...byHash.values()].filter((k) => (f.pat ? k.kind === 'pat' : true));
    if (all.length === 0)
      return {
        out: `no gateway keys in ${file}; create one with: switchboard keys create --gateway --name NAME\n`,
        err: '',
      };
    const rows = all.map((k) =>
      [
        k.id,
        k.kind,
        k.name,
        `${k.hint}…`,
        k.models.join(',') || '*',
        k.expires_at ?? 'never',
        k.revoked_at ? `revoked ${k.revoked_at}` : 'active',
      ].join('\t'),
    );
    return { out: `${rows.join('\n')}\n`, err: '' };
  }
  if (sub === 'revoke') {
    if (!id)
      throw new Error(
        'usage: switchboard keys revoke --gateway <id> (ids are shown by: switchboard keys list --gateway)',
      );
    const inFile = await revokeGatewayKey(file, id);
    const inStore = store ? await revokeSharedKey(store.credentials, id) : false;
    if (!inFile && !inStore)
      throw new Error(
        `no gateway key "${id}" in ${file}${store ? ' or the shared store' : ''}; see: switchboard keys list --gateway`,
      );
    return { out: `revoked ${id}\n`, err: note };
  }
  throw new Error(`Unknown keys command "${sub ?? ''}"; use create, list or revoke with --gateway or --pat.`);
}
