// Runtime side of each configured provider: its upstream connection pool, circuit breaker and live status.
import { Agent } from './undici-agent.ts';
import type { ProviderState, ProviderStatus } from '../../shared/admin.ts';
import {
  SECRET_HEADER_NAME,
  type Config,
  type ProviderConfig,
  ruleProviders,
  type Timeouts,
} from '../../shared/config.ts';
import { redact } from '../observability/redact.ts';
import { CircuitBreaker } from './breaker.ts';
import { type ProviderKind, providerKind } from './providers/index.ts';
import { KeyPool } from './strategy/key-pool.ts';
import { LatencyBook } from './strategy/latency.ts';
import { QuotaState } from './strategy/quota.ts';

/** How a failed attempt is classed: only `retryable` ones move on to the next candidate and count for the breaker. */
export type AttemptFailure = {
  retryable: boolean;
  status: number | null;
  message: string;
  kind: 'connect' | 'timeout' | 'http' | 'aborted' | 'other';
};

/** Told of what the notifications say (main/usage/): providers going down and back, failover serving a route. */
export interface PoolWatcher {
  /** The provider went down (its state became failed, or its circuit opened) or came back (it answered again). */
  providerHealth(provider: ProviderRuntime, down: boolean): void;
  /** A request for `model` was served by `served` after the route's earlier candidate `first` failed (`why`). */
  failover(model: string, first: string, served: string, why: string): void;
}

export class ProviderRuntime {
  readonly breaker: CircuitBreaker;
  agent: Agent;
  origin = '';
  baseUrl!: URL;
  basePath = '';
  timeouts!: Timeouts;
  state: ProviderState = 'unknown';
  lastError: string | null = null;
  lastLatencyMs: number | null = null;
  /** Epoch ms; rendered as ISO 8601 only when status is read (keeps the hot path free of date formatting). */
  lastCheckedAt = 0;
  lastOkAt = 0;
  /** Set by the pool: told when the provider goes down or comes back. */
  watcher: PoolWatcher | null = null;
  /**
   * What its rate-limit headers say is left (strategy/quota.ts), and how fast it answers (strategy/latency.ts): kept
   * only while a rule with a strategy names the provider (null otherwise, and nothing is read or measured).
   */
  quota: QuotaState | null = null;
  latency: LatencyBook | null = null;
  /** Its api_keys (strategy/key-pool.ts), or null when it has one api_key. */
  keyPool: KeyPool | null = null;
  private down = false;
  private agentKey = '';

  constructor(
    public config: ProviderConfig,
    global: Config,
  ) {
    this.breaker = new CircuitBreaker(global.circuit_breaker);
    this.agent = this.configure(config, global);
  }

  get name(): string {
    return this.config.name;
  }

  /** The provider's kind (its `type`, or the one its base_url implies). */
  kind!: ProviderKind;

  /** Applies a new config; the connection pool is rebuilt only if its address or timeouts changed. */
  configure(config: ProviderConfig, global: Config): Agent {
    this.config = config;
    this.kind = providerKind(config);
    this.breaker.options = global.circuit_breaker;
    this.timeouts = { ...global.timeouts, ...config.timeouts };
    const keys = config.api_keys;
    if (keys === undefined || keys.length === 0) this.keyPool = null;
    else if (this.keyPool === null) this.keyPool = new KeyPool(keys);
    else this.keyPool.update(keys);
    const url = new URL(config.base_url);
    this.baseUrl = url;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    const key = `${this.origin}|${this.timeouts.connect_ms}`;
    if (key !== this.agentKey) {
      const old = this.agent as Agent | undefined;
      this.agentKey = key;
      this.agent = new Agent({
        connect: { timeout: this.timeouts.connect_ms },
        // Idle upstream sockets live at most 30 s whatever the provider's Keep-Alive hint says: a burst of 1,000
        // streams must not hold 1,000 descriptors for minutes after it ends (bench/soak.ts).
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 30_000,
        headersTimeout: this.timeouts.first_byte_ms,
        bodyTimeout: this.timeouts.idle_ms,
      });
      if (old) void old.close().catch(() => {});
    }
    if (!config.enabled) this.state = 'disabled';
    else if (this.state === 'disabled') this.state = 'unknown';
    return this.agent;
  }

  /** Keeps (or drops) the quota and latency figures strategies read; kept figures survive a reload. */
  track(on: boolean): void {
    if (on) {
      this.quota ??= new QuotaState();
      this.latency ??= new LatencyBook();
    } else {
      this.quota = null;
      this.latency = null;
    }
  }

  /** The provider's key; `env:NAME` reads the environment variable NAME at use time. */
  key(): string {
    const k = this.config.api_key;
    if (k.startsWith('env:')) return process.env[k.slice(4)] ?? '';
    return k;
  }

  /** What this provider sends that is secret: its key, and the values of its credential-like config headers. */
  *secrets(): Iterable<string> {
    yield this.key();
    const pool = this.keyPool;
    if (pool !== null) for (let i = 0; i < pool.keys.length; i++) yield pool.value(i);
    for (const [name, value] of Object.entries(this.config.headers ?? {}))
      if (SECRET_HEADER_NAME.test(name)) yield value.replace(/^(?:Bearer|Basic|Token)\s+/i, '');
  }

  /** The headers every upstream call carries: config headers and the auth of `key` (default: api_key, else the pool's first). */
  requestHeaders(key?: string): Record<string, string> {
    const k = key ?? (this.keyPool !== null && this.config.api_key === '' ? this.keyPool.value(0) : this.key());
    return { ...this.config.headers, ...this.kind.authHeaders(k) };
  }

  recordSuccess(latencyMs: number): void {
    this.breaker.success();
    this.state = 'ok';
    this.lastLatencyMs = Math.round(latencyMs);
    this.lastCheckedAt = this.lastOkAt = Date.now();
    if (this.down) this.healthChanged();
  }

  /** Down: failed, or its circuit open. The watcher hears each change. */
  private healthChanged(): void {
    const down = this.state === 'failed' || this.breaker.state === 'open';
    if (down === this.down) return;
    this.down = down;
    this.watcher?.providerHealth(this, down);
  }

  /** A reachable provider that refused us (e.g. 401 bad key): failed state, but the breaker is not involved. */
  recordRefusal(message: string, latencyMs: number): void {
    this.breaker.release();
    this.state = 'failed';
    this.lastError = redact(message);
    this.lastLatencyMs = Math.round(latencyMs);
    this.lastCheckedAt = Date.now();
    this.healthChanged();
  }

  recordFailure(failure: AttemptFailure, latencyMs: number): void {
    if (failure.kind === 'aborted') {
      this.breaker.release();
      return;
    }
    this.breaker.failure();
    this.state = 'failed';
    this.lastError = redact(failure.message);
    this.lastLatencyMs = Math.round(latencyMs);
    this.lastCheckedAt = Date.now();
    this.healthChanged();
  }

  status(): ProviderStatus {
    const b = this.breaker;
    return {
      name: this.config.name,
      type: this.config.type ?? 'openai',
      base_url: this.config.base_url,
      enabled: this.config.enabled,
      state: this.config.enabled ? this.state : 'disabled',
      circuit: b.state === 'open' && Date.now() >= b.openUntil ? 'half_open' : b.state,
      consecutive_failures: b.consecutiveFailures,
      last_error: this.lastError,
      last_latency_ms: this.lastLatencyMs,
      last_checked_at: this.lastCheckedAt ? new Date(this.lastCheckedAt).toISOString() : null,
      last_ok_at: this.lastOkAt ? new Date(this.lastOkAt).toISOString() : null,
      circuit_opens_until: b.state === 'open' ? new Date(b.openUntil).toISOString() : null,
    };
  }

  close(): Promise<void> {
    return this.agent.close().catch(() => {});
  }
}

/** The providers whose quota and speed are followed: those a routing rule with a strategy names. */
function trackedProviders(config: Config): Set<string> {
  const out = new Set<string>();
  for (const r of config.routing.rules) if (r.strategy) for (const name of ruleProviders(r)) out.add(name);
  return out;
}

/** All providers of the running config, kept across reloads so breakers and status survive an edit. */
export class ProviderPool {
  private readonly byName = new Map<string, ProviderRuntime>();
  /** Told of providers going down and back and of failover (the notifications, main/usage/). */
  watcher: PoolWatcher | null = null;
  /** Shares each provider's breaker (store kind "redis"): called for every provider, present and to come. */
  private breakerLink: ((name: string, breaker: CircuitBreaker) => void) | null = null;

  constructor(config: Config) {
    this.update(config);
  }

  update(config: Config): void {
    const keep = new Set<string>();
    const tracked = trackedProviders(config);
    for (const p of config.providers) {
      keep.add(p.name);
      const existing = this.byName.get(p.name);
      if (existing) existing.configure(p, config);
      else {
        const rt = Object.assign(new ProviderRuntime(p, config), { watcher: this.watcher });
        this.byName.set(p.name, rt);
        this.breakerLink?.(p.name, rt.breaker);
      }
      this.byName.get(p.name)!.track(tracked.has(p.name));
    }
    for (const [name, rt] of this.byName) {
      if (!keep.has(name)) {
        void rt.close();
        this.byName.delete(name);
      }
    }
  }

  /** Sets the watcher of every provider, present and to come. */
  watch(watcher: PoolWatcher | null): void {
    this.watcher = watcher;
    for (const p of this.byName.values()) p.watcher = watcher;
  }

  /** Shares every provider's breaker through `link` (present and to come). */
  linkBreakers(link: (name: string, breaker: CircuitBreaker) => void): void {
    this.breakerLink = link;
    for (const [name, p] of this.byName) link(name, p.breaker);
  }

  get(name: string): ProviderRuntime | undefined {
    return this.byName.get(name);
  }

  all(): ProviderRuntime[] {
    return [...this.byName.values()];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((p) => p.close()));
  }
}
