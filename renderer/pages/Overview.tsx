// Overview, the first page: is routing healthy (providers and their circuits), today's requests, errors, tokens and
// cost, per app / provider / model, budgets, charts over 1 h / 24 h / 7 d, and the latest notices. Live: every request
// refreshes it (at most once a second), and a slow tick moves the charts' time on.
import { useEffect } from 'react';
import type { ProviderStatus } from '../../shared/admin.ts';
import type { UsageSummary, UsageTotals } from '../../shared/usage.ts';
import { formatCount, formatUsd, unpricedText } from '../../shared/usage-text.ts';
import { ErrorLine, Table } from '../components/controls.tsx';
import { TokenAttribution } from '../components/TokenAttribution.tsx';
import { UsageChart } from '../components/UsageChart.tsx';
import { CHART_RANGES, type ChartRange } from '../store/usage.ts';
import { healthLine, resetText } from './overview-text.ts';
import { PresetGallery } from './Presets.tsx';
import { useApp, useAppStore } from '../store/react.ts';

const RANGE_LABELS: Record<ChartRange, string> = { '1h': '1 h', '24h': '24 h', '7d': '7 d' };
const CIRCUIT: Record<ProviderStatus['circuit'], string> = {
  closed: 'closed',
  open: 'open',
  half_open: 'half-open (trying again)',
};

const avgLatency = (t: UsageTotals) => (t.requests ? `${Math.round(t.latency_ms_sum / t.requests)} ms` : '—');
const costCell = (t: UsageTotals) =>
  t.unpriced > 0 ? `${formatUsd(t.cost_usd)} + ${formatCount(t.unpriced)} unpriced` : formatUsd(t.cost_usd);

function GroupTable({
  title,
  rows,
  testId,
  attempts,
}: {
  title: string;
  rows: UsageSummary['by_app'];
  testId: string;
  /** Per provider: errors count every failed attempt (failover included), as the log lists each attempt. */
  attempts?: boolean;
}) {
  return (
    <div className="card" data-testid={testId}>
      <h3>{title}</h3>
      {attempts && rows.length > 0 && (
        <p className="hint">
          Errors count each attempt of the provider that failed, the ones a backup then answered included (as the log
          lists every attempt); requests count the answers it gave.
        </p>
      )}
      {rows.length === 0 ? (
        <p className="hint">No requests today.</p>
      ) : (
        <Table head={['name', 'requests', 'errors', 'prompt', 'completion', 'cost', 'avg latency']}>
          {rows.map((r) => (
            <tr key={r.key} data-testid={`${testId}-${r.key}`}>
              <td>{attempts && r.key === '(none)' ? '(none answered)' : r.key}</td>
              <td>{formatCount(r.requests)}</td>
              <td>{formatCount(attempts ? r.errors + (r.failed_attempts ?? 0) : r.errors)}</td>
              <td>{formatCount(r.prompt_tokens)}</td>
              <td>{formatCount(r.completion_tokens)}</td>
              <td data-usd={r.cost_usd}>{costCell(r)}</td>
              <td>{avgLatency(r)}</td>
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}

function Stat({ label, value, testId, usd }: { label: string; value: string; testId: string; usd?: number }) {
  return (
    <div className="stat">
      <div className="small">{label}</div>
      <div className="stat-value" data-testid={testId} data-usd={usd}>
        {value}
      </div>
    </div>
  );
}

function Charts({ chart, range }: { chart: UsageSummary; range: ChartRange }) {
  const times = chart.series.map((p) => p.t);
  const pick = (f: (p: UsageSummary['series'][number]) => number) => chart.series.map(f);
  const t = chart.totals;
  const over = `over the last ${RANGE_LABELS[range]}`;
  return (
    <div className="charts">
      <UsageChart
        title="Requests"
        testId="chart-requests"
        times={times}
        lines={[
          { label: 'requests', color: '#2563eb', values: pick((p) => p.requests) },
          { label: 'errors', color: '#dc2626', values: pick((p) => p.errors) },
        ]}
        format={(v) => formatCount(v)}
        whole
        summary={`${formatCount(t.requests)} requests and ${formatCount(t.errors)} errors ${over}`}
      />
      <UsageChart
        title="Tokens"
        testId="chart-tokens"
        times={times}
        lines={[
          { label: 'prompt', color: '#7c3aed', values: pick((p) => p.prompt_tokens) },
          { label: 'completion', color: '#059669', values: pick((p) => p.completion_tokens) },
          { label: 'cache read', color: '#0891b2', values: pick((p) => p.cache_read_tokens) },
          { label: 'reasoning', color: '#d97706', values: pick((p) => p.reasoning_tokens) },
        ]}
        format={(v) => formatCount(v)}
        whole
        summary={`${formatCount(t.prompt_tokens)} prompt and ${formatCount(t.completion_tokens)} completion tokens ${over}`}
      />
      <UsageChart
        title="Cost"
        testId="chart-cost"
        times={times}
        lines={[{ label: 'cost (USD)', color: '#0f766e', values: pick((p) => p.cost_usd) }]}
        format={(v) => formatUsd(v)}
        summary={`${formatUsd(t.cost_usd)} ${over}${t.unpriced ? `, ${unpricedText(t.unpriced)}` : ''}`}
      />
    </div>
  );
}

export function OverviewPage() {
  const store = useAppStore();
  const status = useApp((s) => s.status);
  const today = useApp((s) => s.usageToday);
  const chart = useApp((s) => s.usageChart);
  const range = useApp((s) => s.chartRange);
  const error = useApp((s) => s.usageError);
  const notices = useApp((s) => s.notices);
  const recent = useApp((s) => s.usageRecent);

  useEffect(() => {
    const unwatch = store.getState().watchUsage();
    const tick = setInterval(() => void store.getState().refreshUsage(), 30_000);
    return () => {
      unwatch();
      clearInterval(tick);
    };
  }, [store]);

  const providers = status?.providers ?? [];
  const noneEnabled = !status?.paused && !providers.some((p) => p.enabled && p.state !== 'disabled');
  const health = status ? healthLine(providers, status.paused) : null;
  const t = today?.totals;
  const unpriced = t ? unpricedText(t.unpriced) : null;

  return (
    <section data-testid="page-overview">
      <h2>Overview</h2>
      {health && (
        <p className={health.ok ? 'ok' : 'error'} data-testid="health-line">
          {health.text}
        </p>
      )}
      {status && noneEnabled && (
        <div className="card" data-testid="get-started">
          <p>
            <strong>Next step: add a provider.</strong> Pick one below: with its key (or, for a local one, nothing at
            all) it is set up with the routing rules for its models in one step, and you can send it a test request.
          </p>
          <PresetGallery heading="Providers" />
        </div>
      )}
      <Table head={['provider', 'state', 'circuit', 'last error']}>
        {providers.map((p) => (
          <tr key={p.name} data-testid={`health-${p.name}`}>
            <td>{p.name}</td>
            <td>
              <span className={`pill ${p.enabled ? p.state : 'disabled'}`}>{p.enabled ? p.state : 'disabled'}</span>
            </td>
            <td>
              {CIRCUIT[p.circuit]}
              {p.circuit === 'open' && p.circuit_opens_until
                ? ` until ${new Date(p.circuit_opens_until).toLocaleTimeString()}`
                : ''}
            </td>
            <td className="small">{p.last_error ?? ''}</td>
          </tr>
        ))}
      </Table>
      <ErrorLine message={error} alert testId="usage-error" />

      <h3>Today</h3>
      {t && (
        <div className="stats" data-testid="today">
          <Stat label="requests" value={formatCount(t.requests)} testId="today-requests" />
          <Stat label="errors" value={formatCount(t.errors)} testId="today-errors" />
          <Stat label="prompt tokens" value={formatCount(t.prompt_tokens)} testId="today-prompt" />
          <Stat label="completion tokens" value={formatCount(t.completion_tokens)} testId="today-completion" />
          <Stat
            label="cache read / write"
            value={`${formatCount(t.cache_read_tokens)} / ${formatCount(t.cache_write_tokens)}`}
            testId="today-cache"
          />
          <Stat label="reasoning tokens" value={formatCount(t.reasoning_tokens)} testId="today-reasoning" />
          <Stat label="cost" value={formatUsd(t.cost_usd)} testId="today-cost" usd={t.cost_usd} />
          <Stat label="avg latency" value={avgLatency(t)} testId="today-latency" />
        </div>
      )}
      {unpriced && (
        <p className="hint" data-testid="today-unpriced">
          {unpriced}: the cost above leaves them out. Give their models a price: <a href="#/settings">Settings</a> →
          Prices, or a provider&apos;s Price… on the Providers page.
        </p>
      )}

      {today && today.budgets.length > 0 && (
        <div className="card" data-testid="budgets">
          <h3>Budgets</h3>
          <Table head={['scope', 'period', 'spent', 'left', 'limit', 'starts again', 'state', 'at the limit']}>
            {today.budgets.map((b) => (
              <tr key={`${b.app ?? '*'}-${b.period}`} data-testid="budget-row">
                <td>{b.app ?? 'all apps'}</td>
                <td>{b.period === 'day' ? 'today' : 'this month'}</td>
                <td data-testid="budget-spent">{formatUsd(b.spent_usd)}</td>
                <td data-testid="budget-left">{formatUsd(Math.max(0, b.limit_usd - b.spent_usd))}</td>
                <td>
                  {formatUsd(b.limit_usd)} (warn at {Math.round(b.warn_at * 100)}%)
                </td>
                <td data-testid="budget-reset">{resetText(b.period, new Date())}</td>
                <td>
                  <span className={`pill budget-${b.state}`}>{b.state}</span>
                </td>
                <td>{b.enforce ? 'requests refused (402)' : 'warned only'}</td>
              </tr>
            ))}
          </Table>
        </div>
      )}

      <div className="row" role="group" aria-label="Chart range">
        <h3>Charts</h3>
        {CHART_RANGES.map((r) => (
          <button
            key={r}
            aria-pressed={range === r}
            className={range === r ? 'selected' : undefined}
            onClick={() => void store.getState().setChartRange(r)}
            data-testid={`range-${r}`}
          >
            {RANGE_LABELS[r]}
          </button>
        ))}
      </div>
      {chart && <Charts chart={chart} range={range} />}

      {today && (
        <div className="groups">
          <GroupTable title="Per app (today)" rows={today.by_app} testId="by-app" />
          <GroupTable title="Per provider (today)" rows={today.by_provider} testId="by-provider" attempts />
          <GroupTable title="Per model (today)" rows={today.by_model} testId="by-model" />
        </div>
      )}

      <TokenAttribution
        sessions={(today?.by_session ?? []).map((r) => r.key).filter((k) => k !== '' && k !== '(other)')}
      />

      {recent.length > 0 && (
        <div className="card" data-testid="recent-requests">
          <h3>Latest requests</h3>
          <Table head={['time', 'app', 'provider', 'model', 'status', 'prompt', 'completion', 'cost', 'latency']}>
            {recent.map((r) => (
              <tr key={r.id} data-testid="recent-request" className={r.status >= 400 ? 'bad' : undefined}>
                <td>{new Date(r.time).toLocaleTimeString()}</td>
                <td>{r.app ?? '—'}</td>
                <td>{r.provider ?? '—'}</td>
                <td className="mono">{r.model ?? r.requested_model ?? '—'}</td>
                <td>{r.status}</td>
                <td>{formatCount(r.prompt_tokens)}</td>
                <td>{formatCount(r.completion_tokens)}</td>
                <td>{r.cost_usd === null ? 'no known price' : formatUsd(r.cost_usd)}</td>
                <td>{Math.round(r.latency_ms)} ms</td>
              </tr>
            ))}
          </Table>
        </div>
      )}

      {notices.length > 0 && (
        <div className="card">
          <h3>Notices</h3>
          <ul>
            {notices.map((n) => (
              <li key={`${n.time}-${n.kind}-${n.title}`} data-testid="notice">
                <strong>{n.title}</strong> {n.message}{' '}
                <span className="small">{new Date(n.time).toLocaleTimeString()}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
