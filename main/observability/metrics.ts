// Prometheus metrics (prom-client, one registry per Switchboard): HTTP, proxied requests, tokens, the agent
// queue, tasks by status, the WAL and SSE subscribers. Served at GET /api/v1/metrics.
//
// Every label value is bounded, so no client can grow the registry (issue 13): routes are templates (the caller
// passes them, see main/server/route-label.ts), methods a fixed set, providers those config.json names (+ `none`),
// and apps, which come from request headers, those config.json names plus the first APP_LABEL_LIMIT others seen,
// each cut to LABEL_MAX_CHARS; every later one is `other`.
import { Counter, type CounterConfiguration, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestLogEntry } from '../../shared/admin.ts';
import type { Config } from '../../shared/config.ts';

/** How many app names not named in config.json get a label of their own; later ones are counted as `other`. */
export const APP_LABEL_LIMIT = 50;
/** App label values are cut to this many characters. */
export const LABEL_MAX_CHARS = 64;
/** The label value of what is past a bound (apps past the limit, providers config.json does not name). */
export const OTHER = 'other';
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
   * The config in force (the same object until it changes): its providers are the provider label's values, and the
   * apps it names (app_rules, limits.per_app) keep their own app label. Without it, providers are capped like apps.
   */
  config?: () => MetricsConfig;
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
 * `inc` hashes and validates the label object on every call: ~0.6 µs a request for the proxy counters). Series keep
 * the order they were first counted in.
 */
class Tally<L extends string> {
  private readonly series = new Map<string, { labels: Partial<Record<L, string>>; value: number }>();

  /** Adds to a series already counted; false when there is none by that key yet (then `open` it). */
  add(key: string, by: number): boolean {
    const s = this.series.get(key);
    if (s) s.value += by;
    return s !== undefined;
  }

  open(key: string, labels: Partial<Record<L, string>>, by: number): void {
    this.series.set(key, { labels, value: by });
  }

  /** Sets the counter to these counts (its collect function, at scrape time). */
  collectInto(counter: Counter<L>): void {
    counter.reset();
    for (const s of this.series.values()) counter.inc(s.labels, s.value);
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
function tallied<L extends string>(tally: Tally<L>, c: CounterConfiguration<L>): Counter<L> {
  return new Counter<L>({
    ...c,
    collect() {
      tally.collectInto(this);
    },
  });
}

export class Metrics {
  readonly registry = new Registry();
  private readonly httpCounts = new Tally<'method' | 'route' | 'status'>();
  private readonly proxyCounts = new Tally<'provider' | 'status' | 'app'>();
  private readonly tokenCounts = new Tally<'provider' | 'kind'>();
  private readonly httpLatency = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'HTTP request latency, by method and route.',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  /** The latency histogram's children by `method route`, found once (prom-client hashes a label object per call). */
  private readonly latencyChildren = new Map<string, Histogram.Internal<'method' | 'route'>>();
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
    // The hot path: the latency histogram's child is found once per method and route (bounded as the labels are),
    // the count is a tally.
    const key = `${m} ${route}`;
    let latency = this.latencyChildren.get(key);
    if (!latency) {
      latency = this.httpLatency.labels(m, route);
      this.latencyChildren.set(key, latency);
    }
    const series = `${key} ${status}`;
    if (!this.httpCounts.add(series, 1)) this.httpCounts.open(series, { method: m, route, status: String(status) }, 1);
    latency.observe(seconds);
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
    const series = `${provider}\0${e.status}\0${app}`;
    if (!this.proxyCounts.add(series, 1)) this.proxyCounts.open(series, { provider, status: String(e.status), app }, 1);
    this.countTokens(provider, 'prompt', e.prompt_tokens);
    this.countTokens(provider, 'completion', e.completion_tokens);
  }

  private countTokens(provider: string, kind: 'prompt' | 'completion', n: number | null): void {
    if (!n) return;
    const series = `${provider}\0${kind}`;
    if (!this.tokenCounts.add(series, n)) this.tokenCounts.open(series, { provider, kind }, n);
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
