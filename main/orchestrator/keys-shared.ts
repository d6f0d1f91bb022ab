// Agent API keys of a team (store.kind "redis"): the records of agent-keys.json (sha-256 and tenant, never a secret)
// also in one Redis hash, so a key made on any instance (`switchboard keys create` with this config, or copied in
// from an instance's own file at its start) works on every instance; a revocation is kept as a tombstone (a set of
// revoked ids: a file that still has the key cannot bring it back) and published, so every instance ends that key's
// requests and streams at once. Loaded only in Redis mode (a dynamic import from app.ts and the CLI).
import type { Redis } from 'ioredis';
import type { StoreConfig } from '../../shared/config.ts';
import { connectRedis, type RedisConnection } from '../store/redis-connection.ts';
import type { StoredKey } from './keys.ts';

export interface SharedAgentKeys {
  /** The record of a key by its sha-256, or null (also when revoked). */
  get(sha256: string): Promise<StoredKey | null>;
  all(): Promise<StoredKey[]>;
  /** Adds records the team does not have yet (never one revoked). */
  add(records: StoredKey[]): Promise<void>;
  /** Revokes a key by id for the whole team; false when the team never had it. */
  revoke(id: string): Promise<boolean>;
  /** Revoked here or on any instance (as last heard). */
  isRevoked(id: string): boolean;
  /** Called with the id of each key revoked anywhere in the team. */
  onRevoked(fn: (id: string) => void): () => void;
  /** Called each time Redis is reachable again (an instance then shares its own keys again). */
  onUp(fn: () => void): void;
  close(): Promise<void>;
}

/** How often the revoked ids are read again anyway (a published message may be lost). */
const RESYNC_MS = 30_000;

export class RedisAgentKeys implements SharedAgentKeys {
  private readonly hash: string;
  private readonly revokedSet: string;
  private readonly channel: string;
  private revoked = new Set<string>();
  private readonly listeners = new Set<(id: string) => void>();
  private sub: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly conn: RedisConnection) {
    this.hash = conn.key('o', 'agentkeys');
    this.revokedSet = conn.key('o', 'agentkeys', 'revoked');
    this.channel = conn.key('o', 'agentkeys', 'events');
  }

  /** Listens for revocations and reads the revoked ids (again every 30 s, and whenever Redis comes back). */
  start(): void {
    const sub = this.conn.duplicate();
    this.sub = sub;
    sub.on('message', (_ch: string, id: string) => this.heard(id));
    sub.on('ready', () => void sub.subscribe(this.channel).catch(() => {}));
    sub.connect().catch(() => {});
    const resync = () => void this.readRevoked();
    this.conn.onChange((up) => up && resync());
    this.timer = setInterval(resync, RESYNC_MS);
    this.timer.unref();
    resync();
  }

  private heard(id: string): void {
    if (this.revoked.has(id)) return;
    this.revoked.add(id);
    for (const fn of this.listeners) fn(id);
  }

  private async readRevoked(): Promise<void> {
    try {
      for (const id of await this.conn.client.smembers(this.revokedSet)) this.heard(id);
    } catch {
      // Redis down: the ids last heard stay
    }
  }

  async get(sha256: string): Promise<StoredKey | null> {
    const v = await this.conn.client.hget(this.hash, sha256);
    const rec = v ? (JSON.parse(v) as StoredKey) : null;
    return rec && !this.revoked.has(rec.id) ? rec : null;
  }

  async all(): Promise<StoredKey[]> {
    const all = Object.values(await this.conn.client.hgetall(this.hash)).map((v) => JSON.parse(v) as StoredKey);
    return all.filter((k) => !this.revoked.has(k.id));
  }

  async add(records: StoredKey[]): Promise<void> {
    if (records.length === 0) return;
    const revoked = new Set(await this.conn.client.smembers(this.revokedSet));
    const m = this.conn.client.multi();
    for (const r of records) if (!revoked.has(r.id)) m.hsetnx(this.hash, r.sha256, JSON.stringify(r));
    await m.exec();
  }

  async revoke(id: string): Promise<boolean> {
    const all = await this.conn.client.hgetall(this.hash);
    const sha = Object.entries(all).find(([, v]) => (JSON.parse(v) as StoredKey).id === id)?.[0];
    await this.conn.client
      .multi()
      .sadd(this.revokedSet, id)
      .hdel(this.hash, sha ?? '')
      .publish(this.channel, id)
      .exec();
    this.heard(id);
    return sha !== undefined;
  }

  isRevoked(id: string): boolean {
    return this.revoked.has(id);
  }

  onRevoked(fn: (id: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  onUp(fn: () => void): void {
    this.conn.onChange((up) => up && fn());
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.sub?.disconnect();
    await this.conn.close();
  }
}

/** The team's agent keys for a Redis store config, on a connection of its own (connects in the background). */
export function openSharedAgentKeys(store: Extract<StoreConfig, { kind: 'redis' }>): RedisAgentKeys {
  return new RedisAgentKeys(
    connectRedis(store, {}, { what: 'agent keys', whileDown: 'keys already known keep working; new ones wait for it' }),
  );
}
