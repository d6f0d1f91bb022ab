// The usage store wired to a running engine: every finished model request of the request log (each front door, the
// gateway's endpoints, the agents' in-process calls) becomes one priced UsageRecord; the budgets are checked before
// forwarding (engine.budgets); providers going down and back and failover become notifications (the pool's watcher).
// The admin routes (main/server/usage-routes.ts) and the desktop shell reach it through the app (main/app.ts).
import { priceBook } from './price-book.ts';
import type { RequestLogEntry } from '../../shared/admin.ts';
import type { Config } from '../../shared/config.ts';
import type { UsageRange, UsageRecord, UsageRequests, UsageSummary } from '../../shared/usage.ts';
import { isoTimeMs } from '../observability/iso-time.ts';
import type { BudgetGate, Engine } from '../proxy/engine.ts';
import type { PoolWatcher, ProviderRuntime } from '../proxy/provider-pool.ts';
import { bareAppName } from '../../shared/app-name.ts';
import type { Kept } from './bounds.ts';
import { Budgets } from './budgets.ts';
import type { Notifier } from './notifier.ts';
import { priceOf } from './prices.ts';
import { type Before, UsageStore } from './store.ts';
import { summarize } from './summary.ts';
import { FLUSH_MS, TeamUsage, type TeamRollups } from './team.ts';

/** Store "redis": the team's latest raw records (from the request stream), or null when they cannot be read. */
export type TeamRecords = (limit: number, before: Before) => Promise<UsageRequests | null>;

export type UsageServiceOptions = {
  engine: Engine;
  config: () => Config;
  /** The store's folder: data/usage/ beside the WAL. */
  dir: string;
  notifier: Notifier;
  now?: () => number;
  /** For tests: how long raw lines wait for their batch, how often snapshots are written (ms). */
  flushMs?: number;
  snapshotMs?: number;
};

const services = new WeakMap<Engine, UsageService>();

/** The apps (bare names), providers and key names config.json names: they keep usage rows of their own (bounds.ts). */
const keptByConfig = new WeakMap<Config, Kept>();
function keptOf(config: Config): Kept {
  let kept = keptByConfig.get(config);
  if (!kept) {
    const apps = [
      ...config.app_rules.map((r) => r.app),
      ...Object.keys(config.limits.per_app),
      ...config.budgets.flatMap((b) => (b.app ? [b.app] : [])),
    ];
    kept = {
      apps: new Set(apps.map(bareAppName)),
      providers: new Set(config.providers.map((p) => p.name)),
      keys: new Set([...Object.keys(config.limits.per_key), ...config.budgets.flatMap((b) => (b.key ? [b.key] : []))]),
    };
    keptByConfig.set(config, kept);
  }
  return kept;
}

/** The usage service of an engine (one per running Switchboard); null when none was opened for it. */
export function usageOf(engine: Engine): UsageService | null {
  return services.get(engine) ?? null;
}

/**
 * The providers whose attempt failed, other than the one the request's outcome is counted for (its `provider`, the
 * last attempt, which answered): when a provider answered, every attempt before it that failed (failover); when none
 * did, every attempt that failed. An attempt skipped because its circuit was open was never sent: not counted. In
 * order; null when none.
 */
export function failedOver(e: Pick<RequestLogEntry, 'attempts' | 'provider'>): string[] | null {
  const tried = e.provider === null ? e.attempts : e.attempts.slice(0, -1);
  const failed = tried
    .filter((a) => a.error !== 'circuit open: skipped')
    .filter((a) => a.error !== null || a.status === null || a.status >= 400)
    .map((a) => a.provider);
  return failed.length ? failed : null;
}

export class UsageService implements PoolWatcher {
  readonly budgets: Budgets;
  /** The engine's check before forwarding: the budgets, with the request log's undelivered entries counted first. */
  private readonly gate: BudgetGate;
  private readonly unsubscribe: () => void;
  /** Providers whose going down was notified: their coming back is. */
  private readonly downNotified = new Set<string>();
  private readonly now: () => number;

  private constructor(
    private readonly o: UsageServiceOptions,
    readonly store: UsageStore,
  ) {
    this.now = o.now ?? Date.now;
    this.budgets = new Budgets(store.rollups, () => o.config().budgets, o.notifier, this.now);
    this.budgets.refresh();
    const engine = o.engine;
    // The request log gives its entries to the usage store after the event-loop turn they were added in: the calls
    // answered earlier in this turn (in-process ones, back to back) are counted before a budget can refuse this one.
    this.gate = {
      check: (app, key) => {
        if (this.budgets.mayRefuse) engine.requestLog.deliver();
        this.budgets.check(app, key ?? null);
      },
    };
    engine.budgets = this.gate;
    engine.prices = priceBook; // the cheapest and balanced strategies' prices
    engine.pool.watch(this);
    // This instance's requests. With store "redis" they are also added to the team's rollups in Redis (attachTeam),
    // from which every instance's summaries and budgets are read: no instance reads the others' requests.
    this.unsubscribe = engine.requestLog.subscribe((e) => this.onEntry(e));
    services.set(engine, this);
  }

  static async open(o: UsageServiceOptions): Promise<UsageService> {
    const store = await UsageStore.open({
      dir: o.dir,
      kept: () => keptOf(o.config()),
      retention: () => o.config().usage,
      ...(o.now ? { now: o.now } : {}),
      ...(o.flushMs !== undefined ? { flushMs: o.flushMs } : {}),
      ...(o.snapshotMs !== undefined ? { snapshotMs: o.snapshotMs } : {}),
    });
    return new UsageService(o, store);
  }

  get notifier(): Notifier {
    return this.o.notifier;
  }

  /** Store "redis": the team's rollups and the raw records' source (main/app.ts attaches them). */
  private team: TeamUsage | null = null;
  private teamRecords: TeamRecords | null = null;

  /**
   * Store "redis" (issue 36): this instance's requests are also added to the team's rollups (`rollups`, in Redis), the
   * summaries and budgets are the team's, and the raw records listed are the team's latest (`records`).
   */
  attachTeam(
    rollups: TeamRollups,
    instance: string,
    records: TeamRecords | null = null,
    flushMs = FLUSH_MS,
  ): TeamUsage {
    this.team = new TeamUsage(rollups, this.budgets, instance, this.now, flushMs);
    this.teamRecords = records;
    return this.team;
  }

  /** One request of the request log as a record: priced, counted, its budgets updated. */
  private onEntry(e: RequestLogEntry): void {
    const config = this.o.config();
    if (!config.usage.enabled) return;
    const r = this.usageRecordOf(e, config);
    if (!r) return;
    const t = isoTimeMs(r.time);
    this.budgets.sync();
    const kept = this.store.record(r, t);
    this.budgets.add(r, t);
    this.team?.record(kept.record, t, kept.key);
  }

  /** The usage record of a request log entry, or null when it is no model request (nothing to count). */
  usageRecordOf(e: RequestLogEntry, config: Config = this.o.config()): UsageRecord | null {
    // Answered by Switchboard itself (an Ollama load/unload call): no model was called.
    if (e.provider === null && e.status < 400) return null;
    return this.recordOf(e, config);
  }

  recordOf(e: RequestLogEntry, config: Config): UsageRecord {
    // One literal, not the counts spread into it: a spread in the middle of a literal gives the record a map of its
    // own, and JSON.stringify of its raw line cost ~2.0-2.9 µs a request in a loop against ~1.7-2.0 for this one.
    const r: UsageRecord = {
      id: e.id,
      time: e.time,
      app: e.app,
      provider: e.provider,
      requested_model: e.requested_model,
      path: e.path,
      status: e.status,
      stream: e.stream,
      latency_ms: e.latency_ms,
      model: e.routed_model,
      prompt_tokens: e.prompt_tokens ?? 0,
      completion_tokens: e.completion_tokens ?? 0,
      cache_read_tokens: e.cache_read_tokens ?? 0,
      cache_write_tokens: e.cache_write_tokens ?? 0,
      cache_write_5m_tokens: e.cache_write_5m_tokens ?? 0,
      cache_write_1h_tokens: e.cache_write_1h_tokens ?? 0,
      reasoning_tokens: e.reasoning_tokens ?? 0,
      cost_usd: null,
      cost_source: 'unknown',
      session: e.session ?? null,
      failed_over: e.attempts.length > 1 || (e.provider === null && e.attempts.length) ? failedOver(e) : null,
    };
    // Gateway mode and team mode only: a local record keeps the shape it had (raw lines, rollup keys).
    if (e.key != null) r.key = e.key;
    if (e.instance != null) r.instance = e.instance;
    const provider = e.provider === null ? null : this.o.engine.pool.get(e.provider)?.config;
    const price = priceOf(r, provider, config);
    r.cost_usd = price.cost_usd;
    r.cost_source = price.source;
    return r;
  }

  /** This instance's own summary of a range (the desktop app's tray; the team's is report()). */
  summary(range: UsageRange): UsageSummary {
    this.o.engine.requestLog.deliver(); // what was answered before this call is in it
    return summarize(this.store.rollups, range, this.now(), this.budgets.states());
  }

  /**
   * GET /admin/v1/usage: the summary of a range; with store "redis" the team's, read from Redis (this instance's own,
   * `scope: "instance"`, when Redis cannot be read).
   */
  async report(range: UsageRange): Promise<UsageSummary> {
    if (!this.team) return this.summary(range);
    this.o.engine.requestLog.deliver();
    const team = await this.team.summary(range, this.budgets.states());
    return team ?? { ...this.summary(range), scope: 'instance' };
  }

  /** The raw records, newest first: with store "redis" the team's latest (the request stream), else this instance's. */
  async requests(limit: number, before: Before): Promise<UsageRequests> {
    this.o.engine.requestLog.deliver();
    const team = this.teamRecords ? await this.teamRecords(limit, before).catch(() => null) : null;
    return team ?? this.store.requests(limit, before);
  }

  /** After a config change: budgets recounted (retention and switches are read where they apply). */
  configure(): void {
    this.budgets.refresh();
  }

  providerHealth(p: ProviderRuntime, down: boolean): void {
    const name = p.name;
    if (down) {
      const circuit = p.breaker.state === 'open' ? ' Its circuit is open: requests go to the next candidate.' : '';
      const sent = this.o.notifier.notify({
        kind: 'provider_down',
        subject: name,
        title: `Provider "${name}" is down`,
        message: `${p.lastError ?? 'It failed.'}${circuit}`,
        provider: name,
      });
      if (sent) this.downNotified.add(name);
      return;
    }
    if (!this.downNotified.delete(name)) return;
    this.o.notifier.notify({
      kind: 'provider_up',
      subject: name,
      title: `Provider "${name}" is back`,
      message: `It answered again${p.lastLatencyMs !== null ? ` (${p.lastLatencyMs} ms)` : ''}.`,
      provider: name,
    });
  }

  failover(model: string, first: string, served: string, why: string): void {
    this.o.notifier.notify({
      kind: 'failover',
      subject: `${model}\u0000${first}`,
      title: `Failover: "${served}" is serving ${model}`,
      message: `Provider "${first}" failed (${why.replace(/\.$/, '')}); requests for model "${model}" went to "${served}".`,
      provider: served,
    });
  }

  async close(): Promise<void> {
    this.o.engine.requestLog.deliver(); // the requests answered just before: recorded, not lost
    this.unsubscribe();
    await this.team?.close();
    const engine = this.o.engine;
    if (engine.budgets === this.gate) engine.budgets = null;
    if (engine.prices === priceBook) engine.prices = null;
    if (engine.pool.watcher === this) engine.pool.watch(null);
    services.delete(engine);
    await this.store.close();
  }
}
