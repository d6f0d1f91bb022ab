// Prometheus metrics (prom-client, one registry per Switchboard): HTTP, proxied requests, tokens, the agent
// queue, tasks by status, the WAL and SSE subscribers. Served at GET /api/v1/metrics.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestLogEntry } from '../../shared/admin.ts';

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
};

export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: 'switchboard_http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly httpLatency = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'HTTP request latency, by method and route.',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });
  private readonly proxyRequests = new Counter({
    name: 'switchboard_proxy_requests_total',
    help: 'Proxied model requests (HTTP clients and agents), by provider and status.',
    labelNames: ['provider', 'status', 'app'],
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'switchboard_tokens_total',
    help: 'Tokens reported by providers, by provider and kind (prompt|completion).',
    labelNames: ['provider', 'kind'],
    registers: [this.registry],
  });

  constructor(sources: MetricsSources) {
    const r = [this.registry];
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

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpLatency.observe({ method, route }, seconds);
  }

  observeProxy(e: RequestLogEntry): void {
    const provider = e.provider ?? 'none';
    this.proxyRequests.inc({ provider, status: String(e.status), app: e.app ?? '' });
    if (e.prompt_tokens) this.tokens.inc({ provider, kind: 'prompt' }, e.prompt_tokens);
    if (e.completion_tokens) this.tokens.inc({ provider, kind: 'completion' }, e.completion_tokens);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
