// Prometheus metrics (prom-client, one registry per Switchboard): HTTP, proxied requests, tokens, the agent
// queue, tasks by status, the WAL and SSE subscribers. Served at GET /api/v1/metrics.
//
// Every label value is bounded, so no client can grow the registry (issue 13): routes are templates (the caller
// passes them, see main/server/route-label.ts), methods a fixed set, providers those config.json names (+ `none`),
// and apps, which come from request headers, those config.json names plus the first APP_LABEL_LIMIT others seen,
// each cut to LABEL_MAX_CHARS; every later one is `other`.
import { Counter, type CounterConfiguration, Gauge, type Histogram, Registry } from './prom.ts';
import type { RequestLogEntry } from '../../shared/admin.ts';
import type { Config } from '../../shared/config.ts';

/** How many app names not named in config.json get a label of their own; later ones are counted as `other`. */
export const APP_LABEL_LIMIT = 50;
/** App label values are cut to this many characters. */
export const LABEL_MAX_CHARS = 64;
/** The label value of what is past a bound (apps past the limit, providers config.json does not name). */
export const OTHER = 'other';
/** The latency histogram's upper bounds (seconds). */
export const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The parts of config.json whose names become label values. */
export type MetricsConfig = Pick<Config, 'providers' | 'app_rules' | 'limits'>;

export type MetricsSources = {
  queueDepth: () => number;
  queueRunning: () => number;
  tasksByStatus: () => Record<string, number>;
  wal: () => {
    total_entries: number;
    pending_entries: number;
    corrupted_entries: number;
    buffer_usage: number;
    healthy: boolean;
  };
  subscribers: () => number;
  /**
   * The Redis connections of the team (store "redis", issue 36): the gateway's shared state (`part` "gateway": its
   * budgeted calls, breaker and fail-open time) and the agents' store ("agents"). Empty with the embedded store.
   */
  stores?: () => StoreSource[];
  /** What waits to reach Redis: the team's request stream and usage counters (lag, entries waiting, dropped). */
  teamQueues?: () => TeamQueueSource[];
  /**
   * The config in force (the same object until it changes): its providers are the provider label's values, and the
   * apps it names (app_rules, limits.per_app) keep their own app label. Without it, providers are capped like apps.
   */
  config?: () => MetricsConfig;
};

/** One Redis connection as the metrics read it (main/store/redis-connection.ts gives these numbers). */
export type StoreSource = {
  part: 'gateway' | 'agents';
  up: boolean;
  /** Seconds the part answered locally (down, or its breaker open) so far; the gateway's only. */
  failOpenSeconds?: number;
  /** Times the breaker opened. */
  trips?: number;
  /** Budgeted calls: counts per bucket of STORE_CALL_BUCKETS (not cumulative; the last is +Inf), their sum, count. */
  calls?: { counts: number[]; sum: number; count: number; timeouts: number; errors: number };
};
/** The upper bounds (seconds) of switchboard_store_call_duration_seconds (main/store's CALL_BUCKETS, the same). */
export const STORE_CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** A queue of what this instance sends to Redis off the request's path. */
export type TeamQueueSource = {
  stream: 'requests' | 'usage';
  /** Age of the oldest item not yet in Redis (0: none waiting). */
  lagSeconds: number;
  waiting: number;
  dropped: number;
};

/** The label values config.json names, derived once per config object. */
type Known = { providers: Set<string> | null; apps: Map<string, string> };

/**
 * A label whose values come from outside: values `named` gives keep their own (as spelled there, matched without
 * case), the first `limit` others too, cut to LABEL_MAX_CHARS; every later value is `other`.
 */
class BoundedLabel {
  private readonly admitted = new Set<string>();

  constructor(private readonly limit: number) {}

  value(raw: string, named: ReadonlyMap<string, string> | null): string {
    const own = named && named.size > 0 ? named.get(raw.toLowerCase()) : undefined;
    if (own !== undefined) return own;
    const v = raw.length > LABEL_MAX_CHARS ? raw.slice(0, LABEL_MAX_CHARS) : raw;
    if (this.admitted.has(v)) return v;
    if (this.admitted.size >= this.limit) return OTHER;
    this.admitted.add(v);
    return v;
  }
}

/**
 * Counts of one counter, kept as plain numbers on the hot path and handed to prom-client when it is scraped (its
 * `inc` hashes and validates the label object on every call: ~0.6 µs a request for the proxy counters). A series is
 * found by its three label values in nested maps: a key string made per request cost its concatenation and the hash
 * of a new string, ~210 ns a lookup against ~35 (four lookups a proxied request); series keep the order they were
 * first counted in.
 */
class Tally<L extends string, A, B, C> {
  private readonly byA = new Map<A, Map<B, Map<C, { value: number }>>>();
  private readonly order: { labels: Partial<Record<L, string>>; value: number }[] = [];

  /** Adds to a series already counted; false when there is none by these values yet (then `open` it). */
  add(a: A, b: B, c: C, by: number): boolean {
    const s = this.byA.get(a)?.get(b)?.get(c);
    if (s) s.value += by;
    return s !== undefined;
  }

  open(a: A, b: B, c: C, labels: Partial<Record<L, string>>, by: number): void {
    let byB = this.byA.get(a);
    if (!byB) this.byA.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (!byC) byB.set(b, (byC = new Map()));
    const series = { labels, value: by };
    byC.set(c, series);
    this.order.push(series);
  }

  /** Sets the counter to these counts (its collect function, at scrape time). */
  collectInto(counter: Counter<L>): void {
    counter.reset();
    for (const s of this.order) counter.inc(s.labels, s.value);
  }
}

/** A value of the histogram as prom-client's registry reads it (`get`). */
type LatencyValue = { labels: Record<string, string | number>; value: number; metricName: string };

/** One series of the latency histogram: its labels, the count of each bucket (not cumulative), sum and count. */
type LatencySeries = { labels: { method: string; route: string }; counts: number[]; sum: number; count: number };

/**
 * The HTTP latency histogram, counted in plain numbers on the hot path: prom-client's `observe`, even on a child found
 * once, builds a label object and a label string and looks the string up on every call (~3 µs a request in the server
 * under load, timed around the call). It is registered with the registry as a metric of its own (name, help, type,
 * `get`, `reset`) and exported in prom-client's histogram form: cumulative `_bucket` lines by `le`, then `+Inf`,
 * `_sum` and `_count` (metrics.test.ts compares the scraped text with prom-client's own Histogram's).
 */
export class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** By method, then route; `all` keeps the order series were first observed in (prom-client's order). */
  private readonly series = new Map<string, Map<string, LatencySeries>>();
  private all: LatencySeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    // The registry takes any object with a name, get and reset (prom-client's custom-metric contract).
    registry.registerMetric(this as unknown as Histogram);
  }

  observe(method: string, route: string, seconds: number): void {
    let byRoute = this.series.get(method);
    if (!byRoute) this.series.set(method, (byRoute = new Map()));
    let s = byRoute.get(route);
    if (!s) {
      s = { labels: { method, route }, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
      byRoute.set(route, s);
      this.all.push(s);
    }
    const b = this.bounds;
    let i = 0;
    while (i < b.length && seconds > b[i]!) i++;
    if (i < b.length) s.counts[i]!++;
    s.sum += seconds;
    s.count++;
  }

  async get(): Promise<{ name: string; help: string; type: string; values: LatencyValue[]; aggregator: string }> {
    const values: LatencyValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.all) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += s.counts[i]!;
        values.push({ labels: { le: this.bounds[i]!, ...s.labels }, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: bucket });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
    this.all = [];
  }
}

function known(cfg: MetricsConfig | undefined): Known {
  const apps = new Map<string, string>();
  if (!cfg) return { providers: null, apps };
  for (const r of cfg.app_rules) apps.set(r.app.toLowerCase(), r.app.slice(0, LABEL_MAX_CHARS));
  for (const name of Object.keys(cfg.limits.per_app)) apps.set(name.toLowerCase(), name.slice(0, LABEL_MAX_CHARS));
  return { providers: new Set(cfg.providers.map((p) => p.name)), apps };
}

/** A prom-client counter whose values are a Tally's, read when the registry is scraped. */
function tallied<L extends string, A, B, C>(tally: Tally<L, A, B, C>, c: CounterConfiguration<L>): Counter<L> {
  return new Counter<L>({
    ...c,
    collect() {
      tally.collectInto(this);
    },
  });
}

export class Metrics {
  readonly registry = new Registry();
  private readonly httpCounts = new Tally<'method' | 'route' | 'status', string, string, number>();
  private readonly proxyCounts = new Tally<'provider' | 'status' | 'app', string, number, string>();
  private readonly tokenCounts = new Tally<'provider' | 'kind', string, string, null>();
  private readonly httpLatency = new LatencyHistogram(
    'switchboard_http_request_duration_seconds',
    'HTTP request latency, by method and route.',
    LATENCY_BUCKETS,
    this.registry,
  );
  private readonly apps = new BoundedLabel(APP_LABEL_LIMIT);
  /** Providers when no config is given (tests of the agent API alone). */
  private readonly unconfiguredProviders = new BoundedLabel(APP_LABEL_LIMIT);
  private knownFor: MetricsConfig | undefined;
  private known: Known = known(undefined);

  constructor(private readonly sources: MetricsSources) {
    const r = [this.registry];
    tallied(this.httpCounts, {
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests answered, by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      registers: r,
    });
    tallied(this.proxyCounts, {
      name: 'switchboard_proxy_requests_total',
      help: 'Proxied model requests (HTTP clients and agents), by provider and status.',
      labelNames: ['provider', 'status', 'app'],
      registers: r,
    });
    tallied(this.tokenCounts, {
      name: 'switchboard_tokens_total',
      help: 'Tokens reported by providers, by provider and kind (prompt|completion).',
      labelNames: ['provider', 'kind'],
      registers: r,
    });
    new Gauge({
      name: 'switchboard_agent_queue_depth',
      help: 'Agent tasks waiting in the dispatch queue.',
      registers: r,
      collect() {
        this.set(sources.queueDepth());
      },
    });
    new Gauge({
      name: 'switchboard_agent_tasks_running',
      help: 'Agent tasks held by a worker.',
      registers: r,
      collect() {
        this.set(sources.queueRunning());
      },
    });
    new Gauge({
      name: 'switchboard_agent_tasks',
      help: 'Agent tasks known, by status.',
      labelNames: ['status'],
      registers: r,
      collect() {
        this.reset();
        for (const [status, n] of Object.entries(sources.tasksByStatus())) this.set({ status }, n);
      },
    });
    const wal = (name: string, help: string, pick: (w: ReturnType<MetricsSources['wal']>) => number) =>
      new Gauge({
        name,
        help,
        registers: r,
        collect() {
          this.set(pick(sources.wal()));
        },
      });
    wal('switchboard_wal_total_entries', 'WAL records after the last snapshot.', (w) => w.total_entries);
    wal('switchboard_wal_pending_entries', 'WAL records accepted and not yet durable.', (w) => w.pending_entries);
    wal('switchboard_wal_corrupted_entries', 'WAL records that could not be read.', (w) => w.corrupted_entries);
    wal('switchboard_wal_buffer_usage', 'Fill fraction of the WAL group-commit buffer.', (w) => w.buffer_usage);
    wal('switchboard_wal_healthy', '1 when the WAL accepts writes, 0 while it reports a fault.', (w) =>
      w.healthy ? 1 : 0,
    );
    const stores = () => sources.stores?.() ?? [];
    new Gauge({
      name: 'switchboard_store_up',
      help: 'Redis store (store "redis"): 1 while its part answers from Redis, 0 while down or (the gateway) slow. Absent with the embedded store.',
      labelNames: ['part'],
      registers: r,
      collect() {
        this.reset();
        for (const s of stores()) this.set({ part: s.part }, s.up ? 1 : 0);
      },
    });
    new Counter({
      name: 'switchboard_store_fail_open_seconds_total',
      help: "Seconds the gateway's limits and keys were answered locally because Redis was down or slow.",
      labelNames: ['part'],
      registers: r,
      collect() {
        this.reset();
        for (const s of stores()) if (s.failOpenSeconds !== undefined) this.inc({ part: s.part }, s.failOpenSeconds);
      },
    });
    new Counter({
      name: 'switchboard_store_breaker_trips_total',
      help: "Times the store's breaker opened (calls failed or ran past store.timeout_ms).",
      labelNames: ['part'],
      registers: r,
      collect() {
        this.reset();
        for (const s of stores()) if (s.trips !== undefined) this.inc({ part: s.part }, s.trips);
      },
    });
    new Counter({
      name: 'switchboard_store_call_failures_total',
      help: 'Budgeted store calls that ran out of time (timeout) or failed (error).',
      labelNames: ['part', 'outcome'],
      registers: r,
      collect() {
        this.reset();
        for (const s of stores()) {
          if (!s.calls) continue;
          this.inc({ part: s.part, outcome: 'timeout' }, s.calls.timeouts);
          this.inc({ part: s.part, outcome: 'error' }, s.calls.errors);
        }
      },
    });
    registerStoreCallHistogram(this.registry, stores);
    const queues = () => sources.teamQueues?.() ?? [];
    new Gauge({
      name: 'switchboard_team_log_lag_seconds',
      help: "Age of the oldest of this instance's request-log entries (requests) or usage counts (usage) not yet in Redis.",
      labelNames: ['stream'],
      registers: r,
      collect() {
        this.reset();
        for (const q of queues()) this.set({ stream: q.stream }, q.lagSeconds);
      },
    });
    new Gauge({
      name: 'switchboard_team_log_waiting',
      help: 'Request-log entries (requests) or usage cells (usage) waiting to reach Redis.',
      labelNames: ['stream'],
      registers: r,
      collect() {
        this.reset();
        for (const q of queues()) this.set({ stream: q.stream }, q.waiting);
      },
    });
    new Counter({
      name: 'switchboard_team_log_dropped_total',
      help: 'Request-log entries or usage cells dropped because Redis stayed unreachable past the queue bound.',
      labelNames: ['stream'],
      registers: r,
      collect() {
        this.reset();
        for (const q of queues()) this.inc({ stream: q.stream }, q.dropped);
      },
    });
    new Gauge({
      name: 'switchboard_event_subscribers',
      help: 'Open GET /api/v1/events streams.',
      registers: r,
      collect() {
        this.set(sources.subscribers());
      },
    });
  }

  /** `route` must come from a fixed set (a route template or `not_found`), never from the raw path. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : OTHER;
    // The hot path: the count is a tally, the latency our own histogram (both handed to prom-client when scraped).
    if (!this.httpCounts.add(m, route, status, 1))
      this.httpCounts.open(m, route, status, { method: m, route, status: String(status) }, 1);
    this.httpLatency.observe(m, route, seconds);
  }

  observeProxy(e: RequestLogEntry): void {
    const k = this.knownNames();
    const provider =
      e.provider === null
        ? 'none'
        : k.providers
          ? k.providers.has(e.provider)
            ? e.provider
            : OTHER
          : this.unconfiguredProviders.value(e.provider, null);
    const app = e.app === null ? '' : this.apps.value(e.app, k.apps);
    if (!this.proxyCounts.add(provider, e.status, app, 1))
      this.proxyCounts.open(provider, e.status, app, { provider, status: String(e.status), app }, 1);
    this.countTokens(provider, 'prompt', e.prompt_tokens);
    this.countTokens(provider, 'completion', e.completion_tokens);
  }

  private countTokens(provider: string, kind: 'prompt' | 'completion', n: number | null): void {
    if (!n) return;
    if (!this.tokenCounts.add(provider, kind, null, n))
      this.tokenCounts.open(provider, kind, null, { provider, kind }, n);
  }

  private knownNames(): Known {
    const cfg = this.sources.config?.();
    if (cfg !== this.knownFor) {
      this.knownFor = cfg;
      this.known = known(cfg);
    }
    return this.known;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** switchboard_store_call_duration_seconds: the budgeted calls' latency, read from the connection's own counts. */
function registerStoreCallHistogram(registry: Registry, stores: () => StoreSource[]): void {
  const name = 'switchboard_store_call_duration_seconds';
  const metric = {
    name,
    help: "Latency of the gateway's store calls on the request path (admissions, key lookups…), timeouts included.",
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: LatencyValue[] = [];
      for (const s of stores()) {
        if (!s.calls) continue;
        let acc = 0;
        STORE_CALL_BUCKETS.forEach((le, i) => {
          acc += s.calls!.counts[i] ?? 0;
          values.push({ labels: { le, part: s.part }, value: acc, metricName: `${name}_bucket` });
        });
        values.push({ labels: { le: '+Inf', part: s.part }, value: s.calls.count, metricName: `${name}_bucket` });
        values.push({ labels: { part: s.part }, value: s.calls.sum, metricName: `${name}_sum` });
        values.push({ labels: { part: s.part }, value: s.calls.count, metricName: `${name}_count` });
      }
      return { name, help: this.help, type: this.type, values, aggregator: this.aggregator };
    },
    reset() {},
  };
  registry.registerMetric(metric as unknown as Histogram);
}
