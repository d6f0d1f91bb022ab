// The embedded shared state: everything in this process's memory. It is the reference implementation the contract
// suite checks the Redis one against, and the Redis store's local fallback while Redis is down (./fail-open.ts).
// Several EmbeddedState objects made over one EmbeddedBacking share their state, as several users in one process.
// (In embedded mode the gateway keeps its own single-process paths: the sync Limiter, gateway-keys.json and
// video-tasks.jsonl; see DECISIONS.md.)
import { randomUUID } from 'node:crypto';
import type {
  CredentialEvent,
  CredentialStore,
  LimitCaps,
  LimitLease,
  LimitVerdict,
  SharedBreakers,
  SharedCircuit,
  SharedLimits,
  SharedState,
  StoreStatus,
  VideoAffinity,
} from './types.ts';

type Scope = { windowStart: number; windowMs: number; requests: number; tokens: number; leases: Map<string, number> };

/** Scopes idle past their window are dropped this often (lazily, on admission). */
const SWEEP_EVERY_MS = 60_000;
const MAX_SCOPES = 10_000;

export class EmbeddedLimits implements SharedLimits {
  private readonly scopes = new Map<string, Scope>();
  private lastSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  get size(): number {
    return this.scopes.size;
  }

  private sweep(t: number): void {
    this.lastSweep = t;
    for (const [name, s] of this.scopes) {
      for (const [id, exp] of s.leases) if (exp <= t) s.leases.delete(id);
      if (s.leases.size === 0 && t - s.windowStart >= s.windowMs) this.scopes.delete(name);
    }
  }

  admitSync(scope: string, caps: LimitCaps, est: number, leaseMs: number): LimitVerdict {
    const t = this.now();
    if (t - this.lastSweep >= SWEEP_EVERY_MS || this.scopes.size >= MAX_SCOPES) this.sweep(t);
    let s = this.scopes.get(scope);
    if (!s) {
      s = { windowStart: t, windowMs: caps.windowMs, requests: 0, tokens: 0, leases: new Map() };
      this.scopes.set(scope, s);
    } else if (t - s.windowStart >= caps.windowMs) {
      s.windowStart = t;
      s.requests = 0;
      s.tokens = 0;
    }
    s.windowMs = caps.windowMs;
    for (const [id, exp] of s.leases) if (exp <= t) s.leases.delete(id);
    const counts = () => ({
      requests: s.requests,
      tokens: s.tokens,
      inFlight: s.leases.size,
      resetMs: s.windowStart + caps.windowMs - t,
    });
    if (caps.tpm > 0 && est > caps.tpm) return { ok: false, over: 'never_fits', ...counts() };
    const over =
      caps.rpm > 0 && s.requests + 1 > caps.rpm
        ? 'rpm'
        : caps.tpm > 0 && s.tokens + est > caps.tpm
          ? 'tpm'
          : caps.concurrency > 0 && s.leases.size + 1 > caps.concurrency
            ? 'concurrency'
            : null;
    if (over) return { ok: false, over, ...counts() };
    s.requests++;
    s.tokens += est;
    const id = randomUUID();
    s.leases.set(id, t + leaseMs);
    return { ok: true, lease: { scope, id, windowStart: s.windowStart, estimatedTokens: est }, ...counts() };
  }

  admit(scope: string, caps: LimitCaps, est: number, leaseMs: number): Promise<LimitVerdict> {
    return Promise.resolve(this.admitSync(scope, caps, est, leaseMs));
  }

  renewSync(lease: LimitLease, leaseMs: number): boolean {
    const s = this.scopes.get(lease.scope);
    const exp = s?.leases.get(lease.id);
    const t = this.now();
    if (!s || exp === undefined || exp <= t) return false;
    s.leases.set(lease.id, t + leaseMs);
    return true;
  }

  renew(lease: LimitLease, leaseMs: number): Promise<boolean> {
    return Promise.resolve(this.renewSync(lease, leaseMs));
  }

  settleSync(lease: LimitLease, actual: number | null): void {
    const s = this.scopes.get(lease.scope);
    if (!s) return;
    s.leases.delete(lease.id);
    // The reported usage replaces the estimate, in the window it was admitted in.
    if (actual !== null && s.windowStart === lease.windowStart)
      s.tokens = Math.max(0, s.tokens - lease.estimatedTokens + actual);
  }

  settle(lease: LimitLease, actual: number | null): Promise<void> {
    this.settleSync(lease, actual);
    return Promise.resolve();
  }

  /**
   * Counts a slot held elsewhere (a request this instance admitted in Redis, still open) in the scope's concurrency,
   * and nothing else: its request and tokens were counted there. Renewed by renewSync, given back by release.
   */
  hold(lease: LimitLease, windowMs: number, leaseMs: number): void {
    const t = this.now();
    let s = this.scopes.get(lease.scope);
    if (!s) {
      s = { windowStart: t, windowMs, requests: 0, tokens: 0, leases: new Map() };
      this.scopes.set(lease.scope, s);
    }
    s.leases.set(lease.id, t + leaseMs);
  }

  /** Gives back a slot counted by hold(). */
  release(lease: LimitLease): void {
    this.scopes.get(lease.scope)?.leases.delete(lease.id);
  }
}

/** A tiny in-process publish/subscribe, each listener called on a later tick (as a Redis message would be). */
class Topic<A extends unknown[]> {
  private readonly fns = new Set<(...args: A) => void>();
  emit(...args: A): void {
    for (const fn of this.fns)
      queueMicrotask(() => {
        try {
          fn(...args);
        } catch {
          // a listener's failure is its own
        }
      });
  }
  on(fn: (...args: A) => void): () => void {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }
}

export class EmbeddedCredentials implements CredentialStore {
  readonly records = new Map<string, string>();
  private readonly topic = new Topic<[CredentialEvent]>();

  async all(): Promise<Map<string, string>> {
    return new Map(this.records);
  }
  async get(sha256: string): Promise<string | null> {
    return this.records.get(sha256) ?? null;
  }
  async put(sha256: string, record: string): Promise<void> {
    this.records.set(sha256, record);
  }
  async putIfAbsent(sha256: string, record: string): Promise<boolean> {
    if (this.records.has(sha256)) return false;
    this.records.set(sha256, record);
    return true;
  }
  async publish(event: CredentialEvent): Promise<void> {
    this.topic.emit(event);
  }
  subscribe(fn: (event: CredentialEvent) => void): () => void {
    return this.topic.on(fn);
  }
}

export class EmbeddedVideos implements VideoAffinity {
  private readonly tasks = new Map<string, { provider: string; expires: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  async remember(taskId: string, provider: string, ttlMs: number): Promise<void> {
    this.tasks.set(taskId, { provider, expires: this.now() + ttlMs });
  }
  async get(taskId: string): Promise<string | null> {
    const t = this.tasks.get(taskId);
    if (!t) return null;
    if (t.expires <= this.now()) {
      this.tasks.delete(taskId);
      return null;
    }
    return t.provider;
  }
}

export class EmbeddedBreakers implements SharedBreakers {
  private readonly circuits = new Map<string, SharedCircuit>();
  private readonly probes = new Map<string, { owner: string; expires: number }>();
  private readonly topic = new Topic<[string, SharedCircuit]>();
  constructor(private readonly now: () => number = Date.now) {}

  async open(provider: string, openUntil: number): Promise<void> {
    const c: SharedCircuit = { state: 'open', openUntil };
    this.circuits.set(provider, c);
    this.probes.delete(provider);
    this.topic.emit(provider, c);
  }
  async close(provider: string): Promise<void> {
    const c: SharedCircuit = { state: 'closed', openUntil: 0 };
    this.circuits.delete(provider);
    this.probes.delete(provider);
    this.topic.emit(provider, c);
  }
  async get(provider: string): Promise<SharedCircuit> {
    return this.circuits.get(provider) ?? { state: 'closed', openUntil: 0 };
  }
  async claimProbe(provider: string, owner: string, ttlMs: number): Promise<boolean> {
    const t = this.now();
    const held = this.probes.get(provider);
    if (held && held.expires > t) return false;
    this.probes.set(provider, { owner, expires: t + ttlMs });
    return true;
  }
  subscribe(fn: (provider: string, circuit: SharedCircuit) => void): () => void {
    return this.topic.on(fn);
  }
}

/** The state several EmbeddedState objects can share (one process's). */
export class EmbeddedBacking {
  readonly limits: EmbeddedLimits;
  readonly credentials = new EmbeddedCredentials();
  readonly videos: EmbeddedVideos;
  readonly breakers: EmbeddedBreakers;
  constructor(now: () => number = Date.now) {
    this.limits = new EmbeddedLimits(now);
    this.videos = new EmbeddedVideos(now);
    this.breakers = new EmbeddedBreakers(now);
  }
}

export class EmbeddedState implements SharedState {
  readonly kind = 'embedded' as const;
  readonly limits: EmbeddedLimits;
  readonly credentials: EmbeddedCredentials;
  readonly videos: EmbeddedVideos;
  readonly breakers: EmbeddedBreakers;
  private readonly since = new Date().toISOString();

  constructor(backing: EmbeddedBacking = new EmbeddedBacking()) {
    this.limits = backing.limits;
    this.credentials = backing.credentials;
    this.videos = backing.videos;
    this.breakers = backing.breakers;
  }

  status(): StoreStatus {
    return { kind: 'embedded', up: true, since: this.since };
  }

  async close(): Promise<void> {}
}
