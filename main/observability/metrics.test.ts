// The label bounds of the metrics registry: app names (attacker-chosen headers) and provider names never grow it
// past a fixed size; the latency histogram scrapes as prom-client's own. The serve test
// (main/server/metrics.serve.test.ts) checks the same over real sockets.
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import {
  APP_LABEL_LIMIT,
  LABEL_MAX_CHARS,
  LATENCY_BUCKETS,
  LatencyHistogram,
  Metrics,
  type MetricsConfig,
} from './metrics.ts';

const sources = {
  queueDepth: () => 0,
  queueRunning: () => 0,
  tasksByStatus: () => ({}),
  wal: () => ({ total_entries: 0, pending_entries: 0, corrupted_entries: 0, buffer_usage: 0, healthy: true }),
  subscribers: () => 0,
};

const entry = (over: Partial<RequestLogEntry>): RequestLogEntry => ({
  id: 'x',
  time: '2025-01-01T00:00:00.000Z',
  method: 'POST',
  path: '/v1/chat/completions',
  app: null,
  app_source: null,
  requested_model: 'm',
  routed_model: 'm',
  provider: 'openai',
  route: null,
  attempts: [],
  status: 200,
  error_code: null,
  stream: false,
  latency_ms: 1,
  ttfb_ms: null,
  prompt_tokens: 3,
  completion_tokens: 4,
  ...over,
});

function config(over: Partial<MetricsConfig> = {}): MetricsConfig {
  return {
    providers: [{ name: 'openai' }, { name: 'local' }] as MetricsConfig['providers'],
    app_rules: [{ app: 'Cursor', default_provider: 'local' }],
    limits: { enabled: true, window_ms: 60_000, per_app: { 'claude-cli': { rpm: 5 } }, per_key: {} },
    ...over,
  };
}

async function values(m: Metrics, metric: string, label: string): Promise<string[]> {
  const out = new Set<string>();
  for (const line of (await m.text()).split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const v = new RegExp(`[{,]${label}="([^"]*)"`).exec(line);
    if (v) out.add(v[1]!);
  }
  return [...out].sort();
}

describe('app labels', () => {
  it('the first APP_LABEL_LIMIT apps keep their own label, later ones are "other"; config-named apps always own', async () => {
    const m = new Metrics({ ...sources, config: () => cfg });
    const cfg = config();
    for (let i = 0; i < 1000; i++) m.observeProxy(entry({ app: `app-${i}` }));
    m.observeProxy(entry({ app: 'cursor' })); // named by app_rules, as "Cursor"
    m.observeProxy(entry({ app: 'CLAUDE-CLI' })); // named by limits.per_app
    m.observeProxy(entry({ app: null }));
    const apps = await values(m, 'switchboard_proxy_requests_total', 'app');
    expect(apps).toHaveLength(APP_LABEL_LIMIT + 4);
    expect(apps).toContain('app-0');
    expect(apps).toContain(`app-${APP_LABEL_LIMIT - 1}`);
    expect(apps).not.toContain(`app-${APP_LABEL_LIMIT}`);
    expect(apps).toEqual(expect.arrayContaining(['other', 'Cursor', 'claude-cli', '']));
    expect(await m.text()).toContain(
      `switchboard_proxy_requests_total{provider="openai",status="200",app="other"} ${1000 - APP_LABEL_LIMIT}`,
    );
  });

  it('an app already admitted keeps its label; long names are cut to LABEL_MAX_CHARS', async () => {
    const m = new Metrics({ ...sources, config: () => config() });
    m.observeProxy(entry({ app: 'y'.repeat(10_000) }));
    for (let i = 0; i < 200; i++) m.observeProxy(entry({ app: `filler-${i}` }));
    m.observeProxy(entry({ app: 'y'.repeat(9_000) })); // same cut value: admitted before the cap was reached
    const text = await m.text();
    expect(text).toContain(`app="${'y'.repeat(LABEL_MAX_CHARS)}"} 2`);
    expect(text).not.toContain('y'.repeat(LABEL_MAX_CHARS + 1));
  });
});

describe('provider labels', () => {
  it('are the providers config.json names, "none" before routing, "other" for any other name', async () => {
    let cfg = config();
    const m = new Metrics({ ...sources, config: () => cfg });
    m.observeProxy(entry({ provider: 'openai' }));
    m.observeProxy(entry({ provider: null, status: 400, prompt_tokens: null, completion_tokens: null }));
    for (let i = 0; i < 100; i++) m.observeProxy(entry({ provider: `ghost-${i}` }));
    expect(await values(m, 'switchboard_proxy_requests_total', 'provider')).toEqual(['none', 'openai', 'other']);
    expect(await values(m, 'switchboard_tokens_total', 'provider')).toEqual(['openai', 'other']);
    // A reload that adds a provider: its name is a label from then on.
    cfg = config({ providers: [{ name: 'ghost-1' }] as MetricsConfig['providers'] });
    m.observeProxy(entry({ provider: 'ghost-1' }));
    expect(await values(m, 'switchboard_proxy_requests_total', 'provider')).toContain('ghost-1');
  });

  it('without a config source, provider names are capped like apps', async () => {
    const m = new Metrics(sources);
    for (let i = 0; i < 500; i++) m.observeProxy(entry({ provider: `p-${i}` }));
    expect(await values(m, 'switchboard_proxy_requests_total', 'provider')).toHaveLength(APP_LABEL_LIMIT + 1);
  });
});

describe('HTTP labels', () => {
  it('a method outside the usual set is "other"', async () => {
    const m = new Metrics(sources);
    m.observeHttp('PROPFIND', 'not_found', 404, 0.001);
    m.observeHttp('GET', 'not_found', 404, 0.001);
    expect(await values(m, 'switchboard_http_requests_total', 'method')).toEqual(['GET', 'other']);
  });
});

describe('counts', () => {
  it('are totals at every scrape: counted between scrapes, summed per series, tokens by kind', async () => {
    const m = new Metrics({ ...sources, config: () => config() });
    m.observeProxy(entry({ prompt_tokens: 3, completion_tokens: 4 }));
    m.observeHttp('POST', '/v1/chat/completions', 200, 0.002);
    let text = await m.text();
    expect(text).toContain('switchboard_proxy_requests_total{provider="openai",status="200",app=""} 1');
    expect(text).toContain('switchboard_tokens_total{provider="openai",kind="prompt"} 3');
    expect(text).toContain(
      'switchboard_http_requests_total{method="POST",route="/v1/chat/completions",status="200"} 1',
    );
    m.observeProxy(entry({ prompt_tokens: 10, completion_tokens: null }));
    m.observeProxy(entry({ status: 502, prompt_tokens: null, completion_tokens: null }));
    m.observeHttp('POST', '/v1/chat/completions', 200, 0.002);
    m.observeHttp('POST', '/v1/chat/completions', 502, 0.5);
    text = await m.text();
    expect(text).toContain('switchboard_proxy_requests_total{provider="openai",status="200",app=""} 2');
    expect(text).toContain('switchboard_proxy_requests_total{provider="openai",status="502",app=""} 1');
    expect(text).toContain('switchboard_tokens_total{provider="openai",kind="prompt"} 13');
    expect(text).toContain('switchboard_tokens_total{provider="openai",kind="completion"} 4');
    expect(text).toContain(
      'switchboard_http_requests_total{method="POST",route="/v1/chat/completions",status="200"} 2',
    );
    expect(text).toContain(
      'switchboard_http_requests_total{method="POST",route="/v1/chat/completions",status="502"} 1',
    );
    expect(text).toContain(
      'switchboard_http_request_duration_seconds_count{method="POST",route="/v1/chat/completions"} 3',
    );
    expect(await m.text()).toBe(text); // a scrape changes nothing
  });
});

describe('LatencyHistogram', () => {
  it("scrapes as prom-client's own Histogram does, for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const name = 'switchboard_http_request_duration_seconds';
    const help = 'HTTP request latency, by method and route.';
    const h = new LatencyHistogram(name, help, LATENCY_BUCKETS, ours);
    const p = new Histogram({
      name,
      help,
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers: [theirs],
    });
    // Series first seen interleaved (their order is kept), values on, between and past the bounds.
    const seen: [string, string, number][] = [];
    const values = [0, 0.0005, 0.001, 0.0010001, 0.004, 0.005, 0.3, 1, 4.99, 5, 29, 30, 30.5, 120];
    const series = [
      ['GET', '/admin/v1/status'],
      ['POST', '/v1/chat/completions'],
      ['GET', '/v1/models'],
      ['POST', '/v1/messages'],
    ] as const;
    for (let i = 0; i < 200; i++) seen.push([...series[(i * 7) % 4]!, values[(i * 5) % values.length]!]);
    for (const [method, route, v] of seen) {
      h.observe(method, route, v);
      p.observe({ method, route }, v);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(
      (await theirs.getMetricsAsJSON()).map((m) => ({
        ...m,
        // prom-client's own values also carry `exemplar` (none here); ours say the rest the same.
        values: (m.values as { labels: object; value: number; metricName?: string }[]).map(
          ({ labels, value, metricName }) => ({ labels, value, metricName }),
        ),
      })),
    );
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(`# HELP ${name} ${help}\n# TYPE ${name} histogram\n`);
  });
});
