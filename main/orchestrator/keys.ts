// Agent API keys: sk-agent-<64 hex>, stored as sha-256 hashes in agent-keys.json beside config.json (a locked key
// file: ../config/key-file.ts). The server re-reads it when it changes, so `switchboard keys create|revoke` takes
// effect while it runs. The UI's own key (`uiKey`) is one labelled record, made once and handed back to the admin
// token holder on every page load or launch.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { KeyIndex, readKeyFile, updateKeyFile } from '../config/key-file.ts';
import { keyId } from './ids.ts';
import type { SharedAgentKeys } from './keys-shared.ts';

export const KEY_PATTERN = /^sk-agent-[a-f0-9]{64}$/;
export const DEFAULT_TENANT = 'default';

export type StoredKey = {
  id: string;
  tenant: string;
  sha256: string;
  created_at: string;
  /** What the key is for, in words (`keys create --label`); absent on keys made without one. */
  label?: string;
  /** The UI's own key (at most one): its secret is derived from the admin token (see uiKey). */
  ui?: true;
};

/** The label of the UI's own key, shown by `switchboard keys list` and the admin API. */
export const UI_KEY_LABEL = 'Switchboard UI';
/** A label: 1-100 characters, no control characters. Answers the problem in words, or null. */
export function labelProblem(label: string): string | null {
  if (label.length < 1 || label.length > 100 || /\p{Cc}/u.test(label))
    return 'must be 1-100 characters without control characters (e.g. "nightly report script")';
  return null;
}

export const keysFile = (configDir: string): string => path.join(configDir, 'agent-keys.json');
const hash = (key: string): string => createHash('sha256').update(key).digest('hex');

export const readKeys = (file: string): Promise<StoredKey[]> => readKeyFile<StoredKey>(file);

/** Creates a key; the plain key is returned once and never stored. */
export async function createKey(
  file: string,
  tenant = DEFAULT_TENANT,
  label?: string,
): Promise<{ key: string; record: StoredKey }> {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(tenant)) throw new Error('--tenant must be 1-64 letters, digits, ".", "_" or "-"');
  const problem = label === undefined ? null : labelProblem(label);
  if (problem) throw new Error(`--label ${problem}`);
  const key = `sk-agent-${randomBytes(32).toString('hex')}`;
  const record: StoredKey = { id: keyId(), tenant, sha256: hash(key), created_at: new Date().toISOString() };
  if (label !== undefined) record.label = label;
  await updateKeyFile<StoredKey, void>(file, (keys) => ({ keys: [...keys, record], result: undefined }));
  return { key, record };
}

/** The UI key's secret: HMAC of its record id under the admin token, so the file keeps only its hash. */
const uiSecret = (adminToken: string, id: string): string =>
  `sk-agent-${createHmac('sha256', adminToken).update(`switchboard-ui-agent-key:${id}`).digest('hex')}`;

const uiKeyOf = (keys: StoredKey[], adminToken: string): { key: string; record: StoredKey } | null => {
  const record = keys.find((k) => k.ui === true);
  if (!record) return null;
  const key = uiSecret(adminToken, record.id);
  return hash(key) === record.sha256 ? { key, record } : null;
};

/**
 * The UI's own agent key (tenant `default`, label "Switchboard UI"): made the first time, then the same key for
 * every page load, browser profile and desktop launch. Its secret is never stored: it is derived from the admin
 * token, so only an admin-token holder can have it handed back. A revoked UI key (gone from the file) or one made
 * under another admin token is replaced, so the file never holds more than one.
 */
export async function uiKey(
  file: string,
  adminToken: string,
): Promise<{ key: string; record: StoredKey; created: boolean }> {
  const known = uiKeyOf(await readKeys(file), adminToken); // the usual case, without the lock
  if (known) return { ...known, created: false };
  return updateKeyFile<StoredKey, { key: string; record: StoredKey; created: boolean }>(file, (keys) => {
    const mine = uiKeyOf(keys, adminToken); // made meanwhile by another page or process
    if (mine) return { keys: null, result: { ...mine, created: false } };
    const id = keyId();
    const key = uiSecret(adminToken, id);
    const record: StoredKey = {
      id,
      tenant: DEFAULT_TENANT,
      sha256: hash(key),
      created_at: new Date().toISOString(),
      label: UI_KEY_LABEL,
      ui: true,
    };
    return { keys: [...keys.filter((k) => k.ui !== true), record], result: { key, record, created: true } };
  });
}

export function revokeKey(file: string, id: string): Promise<boolean> {
  return updateKeyFile<StoredKey, boolean>(file, (keys) => {
    const left = keys.filter((k) => k.id !== id);
    return left.length === keys.length ? { keys: null, result: false } : { keys: left, result: true };
  });
}

/** How many keys' hashes the server keeps (KeyRing.hashOf). */
const HASHES_KEPT = 256;

/** How often the key file is checked for revocations while a stream of some key is open. */
export const REVOCATION_POLL_MS = 250;

/**
 * The server's view of the key file: looks a key up by its hash (re-read when the file changes), and tells the open
 * streams of a key when it leaves the file (revoked by the CLI, the admin API or a hand edit).
 */
export class KeyRing {
  private readonly index: KeyIndex<StoredKey>;
  /** The keys as last read, by hash (rebuilt when the file changes). */
  private byHash = new Map<string, StoredKey>();
  /** Key → its hash, for keys of the file seen lately (see hashOf). */
  private readonly hashes = new Map<string, string>();
  /** Who to tell, by key id, when that key is no longer in the file. */
  private readonly holders = new Map<string, Set<() => void>>();
  private timer: NodeJS.Timeout | null = null;
  /** Store "redis": the team's keys (made on other instances), as read from Redis, by hash. */
  private readonly teamByHash = new Map<string, StoredKey>();
  private team: SharedAgentKeys | null = null;

  /** `pollMs`: how often the file is checked while someone listens (any request that reads it checks it too). */
  constructor(
    file: string,
    private readonly pollMs = REVOCATION_POLL_MS,
  ) {
    this.index = new KeyIndex(file, () => {
      this.byHash = new Map([...this.index.values()].map((k) => [k.sha256, k]));
      this.hashes.clear();
      this.tellRevoked();
      void this.team?.add([...this.index.values()]).catch(() => undefined);
    });
  }

  /**
   * Store "redis": keys made on any instance of the team work here, and a revocation anywhere ends this instance's
   * requests and streams of that key. This instance's own keys (its agent-keys.json) are copied into the team's.
   */
  async shareWith(team: SharedAgentKeys): Promise<void> {
    this.team = team;
    team.onRevoked((id) => {
      for (const [h, k] of this.teamByHash) if (k.id === id) this.teamByHash.delete(h);
      this.hashes.clear();
      this.tellRevoked();
    });
    const share = () => team.add([...this.index.values()]).catch(() => undefined);
    team.onUp(() => void share()); // Redis down at start, or restarted empty: shared again when it is back
    await this.index.refresh().catch(() => undefined);
    await share();
  }

  /** The key's id and tenant, or null when it is malformed, unknown or revoked. */
  async keyOf(key: string | undefined): Promise<{ id: string; tenant: string } | null> {
    if (!key || !KEY_PATTERN.test(key)) return null;
    const h = this.hashOf(key);
    await this.refresh();
    let rec = this.byHash.get(h) ?? this.teamByHash.get(h);
    if (!rec && this.team) {
      // Made on another instance (a moment ago, maybe): looked up in the team's keys before it is refused.
      const found = await this.team.get(h).catch(() => null);
      if (found) this.teamByHash.set(h, (rec = found));
    }
    if (rec && this.team?.isRevoked(rec.id)) return null;
    if (!rec || !timingSafeEqual(Buffer.from(rec.sha256), Buffer.from(h))) return null;
    return { id: rec.id, tenant: rec.tenant };
  }

  /**
   * The hashes of the keys seen last (a client sends its key with every request): a hash costs more than the rest of
   * the check. Only keys of the file are kept, at most HASHES_KEPT, and the cache is emptied when the file changes.
   */
  private hashOf(key: string): string {
    const known = this.hashes.get(key);
    if (known !== undefined) return known;
    const h = hash(key);
    if (this.byHash.has(h) || this.teamByHash.has(h)) {
      if (this.hashes.size >= HASHES_KEPT) this.hashes.clear();
      this.hashes.set(key, h);
    }
    return h;
  }

  /** Checked at every request, after it came (so a key revoked before it is refused): KeyIndex.refresh. */
  private refresh(): Promise<void> {
    return this.index.refresh();
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
      this.timer = setInterval(() => void this.refresh().catch(() => {}), this.pollMs);
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
    if (this.team?.isRevoked(id)) return false;
    for (const k of this.index.values()) if (k.id === id) return true;
    for (const k of this.teamByHash.values()) if (k.id === id) return true;
    return false;
  }

  private tellRevoked(): void {
    if (this.holders.size === 0) return;
    const live = new Set<string>();
    for (const k of [...this.index.values(), ...this.teamByHash.values()])
      if (!this.team?.isRevoked(k.id)) live.add(k.id);
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
