// Gateway keys (sk-sb-…) and personal access tokens (sbp_…): stored as sha-256 hashes in gateway-keys.json beside
// config.json (a locked key file: ../config/key-file.ts), with a name, allowed model globs, limits and an expiry.
// Revoked keys stay listed.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { LimitValues } from '../../shared/config.ts';
import { KeyIndex, readKeyFile, updateKeyFile } from '../config/key-file.ts';
import type { CredentialStore } from '../store/types.ts';

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

/** Store kind "redis": every record of the shared store (the team's keys, whichever instance made them). */
export async function readSharedKeys(store: CredentialStore): Promise<GatewayKeyRecord[]> {
  return [...(await store.all()).values()].map((t) => JSON.parse(t) as GatewayKeyRecord);
}

/** Store kind "redis": puts a new record in the shared store and tells every instance. */
export async function shareGatewayKey(store: CredentialStore, record: GatewayKeyRecord): Promise<void> {
  await store.putIfAbsent(record.sha256, JSON.stringify(record));
  await store.publish({ kind: 'created', id: record.id });
}

/** Store kind "redis": revokes a key in the shared store (whichever instance made it); false when none has the id. */
export async function revokeSharedKey(store: CredentialStore, id: string): Promise<boolean> {
  const rec = (await readSharedKeys(store)).find((k) => k.id === id);
  if (!rec) return false;
  if (!rec.revoked_at) {
    rec.revoked_at = new Date().toISOString();
    await store.put(rec.sha256, JSON.stringify(rec));
  }
  await store.publish({ kind: 'revoked', id });
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

/** The server's view of the key file (re-read when it changes, so create/revoke apply while it runs). */
export class GatewayKeyRing {
  private readonly index: KeyIndex<GatewayKeyRecord>;
  private shared: SharedKeyRing | null = null;

  constructor(readonly file: string) {
    this.index = new KeyIndex(file);
  }

  /** Store kind "redis": the records live in the shared store, this instance's file is synced into it. */
  share(store: CredentialStore, options?: SharedKeyRingOptions): SharedKeyRing {
    this.shared = new SharedKeyRing(this.file, store, options);
    return this.shared;
  }

  async lookup(secret: string): Promise<GatewayKeyRecord | null> {
    if (this.shared) return this.shared.lookup(hashSecret(secret));
    return (await this.index.get(hashSecret(secret))) ?? null;
  }

  /** Every record this instance knows: the file's, or the shared store's. */
  records(): Promise<GatewayKeyRecord[]> {
    return this.shared ? this.shared.records() : readGatewayKeys(this.file);
  }

  close(): void {
    this.shared?.close();
  }
}

export type SharedKeyRingOptions = { fileCheckMs?: number; resyncMs?: number };

/**
 * The key ring of an instance whose store is Redis: every record in the store (one hash for all instances), held
 * here and re-read whenever any instance publishes a change (within milliseconds) and every `resyncMs` (the safety
 * net for a lost message). This instance's gateway-keys.json stays where `switchboard keys` writes: each record it
 * has that the store lacks is copied in, and a revocation in it is copied over (never the other way: a record the
 * store has as revoked stays revoked), then published; the file is checked every `fileCheckMs`.
 */
export class SharedKeyRing {
  private byHash = new Map<string, GatewayKeyRecord>();
  private readonly index: KeyIndex<GatewayKeyRecord>;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: () => void;
  private syncing: Promise<void> = Promise.resolve();
  /** Resolves once the first sync and read are done. */
  readonly ready: Promise<void>;

  constructor(
    readonly file: string,
    private readonly store: CredentialStore,
    options: SharedKeyRingOptions = {},
  ) {
    this.index = new KeyIndex(file, () => void this.syncFile());
    this.unsubscribe = store.subscribe((e) => void (e.kind === 'resync' ? this.reseed() : this.reload()));
    const check = setInterval(() => void this.index.refresh().catch(() => {}), options.fileCheckMs ?? 250);
    const resync = setInterval(() => void this.reload(), options.resyncMs ?? 30_000);
    check.unref();
    resync.unref();
    this.timers.push(check, resync);
    this.ready = this.index
      .refresh()
      .then(() => this.syncing)
      .then(() => this.reload())
      .catch(() => {});
  }

  private syncFile(): Promise<void> {
    return this.copyIn([...this.index.values()], true);
  }

  /**
   * Redis is back after an outage (events may have been missed) and may have come back empty (a restart without
   * persistence): every record this instance knows goes back in (a revocation wins), then everything is re-read.
   */
  private async reseed(): Promise<void> {
    await this.copyIn([...this.byHash.values(), ...this.index.values()], false);
    await this.reload();
  }

  /** Copies records the store lacks, or has unrevoked where they are revoked, into it (and tells everyone). */
  private copyIn(records: GatewayKeyRecord[], publish: boolean): Promise<void> {
    this.syncing = this.syncing.then(async () => {
      for (const rec of records) {
        try {
          const text = await this.store.get(rec.sha256);
          const have = text === null ? null : (JSON.parse(text) as GatewayKeyRecord);
          if (have && (have.revoked_at || !rec.revoked_at)) continue;
          await this.store.put(rec.sha256, JSON.stringify(rec));
          this.byHash.set(rec.sha256, rec);
          if (publish) await this.store.publish({ kind: have ? 'revoked' : 'created', id: rec.id });
        } catch {
          // Redis is down: the next change of the file, or the reseed when Redis is back, copies it
        }
      }
    });
    return this.syncing;
  }

  private async reload(): Promise<void> {
    try {
      const all = await this.store.all();
      const byHash = new Map<string, GatewayKeyRecord>();
      for (const [hash, text] of all) byHash.set(hash, JSON.parse(text) as GatewayKeyRecord);
      this.byHash = byHash;
    } catch {
      // kept as last read
    }
  }

  async lookup(sha256: string): Promise<GatewayKeyRecord | null> {
    // A change to this instance's file (`switchboard keys` here) applies at once, as in embedded mode: the file is
    // checked on each lookup (one stat) and, when it changed, synced before the answer.
    await this.index.refresh().catch(() => {});
    await this.syncing;
    const known = this.byHash.get(sha256);
    if (known) return known;
    // Made on another instance a moment ago (its message not here yet), or not a key at all.
    const text = await this.store.get(sha256).catch(() => null);
    if (text === null) return null;
    const rec = JSON.parse(text) as GatewayKeyRecord;
    this.byHash.set(sha256, rec);
    return rec;
  }

  async records(): Promise<GatewayKeyRecord[]> {
    await this.reload();
    return [...this.byHash.values()];
  }

  close(): void {
    for (const t of this.timers) clearInterval(t);
    this.unsubscribe();
  }
}
