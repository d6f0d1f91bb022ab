// The team gateway's shared state behind one interface (issue 18): the parts several Switchboard instances must
// agree on. Two implementations: embedded (this process; ./embedded.ts) and Redis (./redis.ts, loaded only when
// store.kind is "redis"), the latter wrapped by ./fail-open.ts so a Redis outage never fails a request.
import type { LimitName } from '../../shared/config.ts';
import type { StoreStatus } from './status.ts';

export type { StoreStatus } from './status.ts';

/** The caps of one scope (0: no cap) and its window. */
export type LimitCaps = { rpm: number; tpm: number; concurrency: number; windowMs: number };

/** A scope's counters as admission saw them (after counting the request when it was admitted). */
export type LimitCounts = { requests: number; tokens: number; inFlight: number; resetMs: number };

/** What admission decided: a lease to settle, or the limit that refused (`never_fits`: the estimate alone is over). */
export type LimitVerdict =
  ({ ok: true; lease: LimitLease } & LimitCounts) | ({ ok: false; over: LimitName | 'never_fits' } & LimitCounts);

/** An admitted request's hold: its concurrency slot (a lease that expires unless renewed) and its token estimate. */
export type LimitLease = { scope: string; id: string; windowStart: number; estimatedTokens: number };

export interface SharedLimits {
  /**
   * Admits a request atomically against every instance's counts: the window rolls over, expired leases are
   * reclaimed, RPM, TPM and concurrency are checked in that order, and on success all three are counted and a
   * lease of `leaseMs` taken (its id `id` when given, else a new one).
   */
  admit(scope: string, caps: LimitCaps, estimatedTokens: number, leaseMs: number, id?: string): Promise<LimitVerdict>;
  /** Keeps a lease alive while its request is open; false when it had already expired (its slot was reclaimed). */
  renew(lease: LimitLease, leaseMs: number): Promise<boolean>;
  /** Releases the slot and replaces the estimate with the actual tokens (null: unknown, the estimate stays). */
  settle(lease: LimitLease, actualTokens: number | null): Promise<void>;
}

/** A change to the credentials, told to every instance. */
/** resync: events may have been missed (Redis was down): re-read every record. */
export type CredentialEvent = { kind: 'created' | 'revoked' | 'resync'; id: string };

/**
 * The gateway's key records (sk-sb- keys and PATs, as JSON by their sha-256) and the feed of changes to them. In
 * Redis mode the records live in one Redis hash, so `switchboard keys create` against any instance serves all.
 */
export interface CredentialStore {
  /** Every record (JSON text) by sha-256. */
  all(): Promise<Map<string, string>>;
  get(sha256: string): Promise<string | null>;
  put(sha256: string, record: string): Promise<void>;
  /** Stores a record unless one with this hash is there already; true when stored. */
  putIfAbsent(sha256: string, record: string): Promise<boolean>;
  publish(event: CredentialEvent): Promise<void>;
  /** Calls `fn` for each event published by any instance (this one included); returns the unsubscribe. */
  subscribe(fn: (event: CredentialEvent) => void): () => void;
}

/** Which provider created a video task, so any instance sends its polls there. */
export interface VideoAffinity {
  remember(taskId: string, provider: string, ttlMs: number): Promise<void>;
  get(taskId: string): Promise<string | null>;
}

export type SharedCircuit = { state: 'closed' | 'open'; openUntil: number };

/** One circuit breaker state per provider across instances, and its one half-open probe. */
export interface SharedBreakers {
  /** A breaker opened (until `openUntil`, epoch ms): every instance's breaker opens. */
  open(provider: string, openUntil: number): Promise<void>;
  /** A probe succeeded: every instance's breaker closes. */
  close(provider: string): Promise<void>;
  get(provider: string): Promise<SharedCircuit>;
  /** Takes the provider's half-open probe for `ttlMs`: true for exactly one caller across instances until it expires or the breaker opens or closes again. */
  claimProbe(provider: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Calls `fn` whenever any instance opens or closes a provider's breaker. */
  subscribe(fn: (provider: string, circuit: SharedCircuit) => void): () => void;
}

export interface SharedState {
  readonly kind: 'embedded' | 'redis';
  readonly limits: SharedLimits;
  readonly credentials: CredentialStore;
  readonly videos: VideoAffinity;
  readonly breakers: SharedBreakers;
  status(): StoreStatus;
  close(): Promise<void>;
}
