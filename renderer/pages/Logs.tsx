// Logs: the live tail, virtualised; filters by app, provider, status and model; details of one request; pause.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import { useShallow } from 'zustand/shallow';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { Select } from '../components/controls.tsx';
import { filterLogs } from '../store/logs.ts';
import { useApp, useAppStore } from '../store/react.ts';

/** The fields filtered by a select of the values seen in the log ("all apps", "all providers"). */
const SEEN_FILTERS = ['app', 'provider'] as const;

/** The distinct values of one field across the log, sorted, for a filter's options. */
const valuesOf = (logs: RequestLogEntry[], key: (typeof SEEN_FILTERS)[number]) =>
  [...new Set(logs.map((e) => e[key]).filter((v): v is string => !!v))].sort();

export function LogsPage() {
  const store = useAppStore();
  const { logs, paused, held, filter, selected } = useApp(
    useShallow((s) => ({
      logs: s.logs,
      paused: s.logsPaused,
      held: s.logsHeld,
      filter: s.logFilter,
      selected: s.selectedLogId,
    })),
  );
  const shown = useMemo(() => filterLogs(logs, filter), [logs, filter]);
  const seen = useMemo(() => ({ app: valuesOf(logs, 'app'), provider: valuesOf(logs, 'provider') }), [logs]);
  const parent = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({
    count: shown.length,
    getScrollElement: () => parent.current,
    estimateSize: () => 28,
    overscan: 10,
  });
  const detail = selected ? logs.find((e) => e.id === selected) : undefined;
  const s = store.getState();

  return (
    <section data-testid="page-logs" className="logs">
      <h2>Logs</h2>
      <div className="row">
        {SEEN_FILTERS.map((key) => (
          <Select
            key={key}
            value={filter[key]}
            onChange={(e) => s.setLogFilter({ [key]: e.target.value })}
            blank={`all ${key}s`}
            options={seen[key]}
            data-testid={`filter-${key}`}
          />
        ))}
        <select
          value={filter.status}
          onChange={(e) => s.setLogFilter({ status: e.target.value as '' | 'ok' | 'error' })}
          data-testid="filter-status"
        >
          <option value="">any status</option>
          <option value="ok">ok</option>
          <option value="error">errors</option>
        </select>
        <input
          placeholder="model"
          value={filter.model}
          onChange={(e) => s.setLogFilter({ model: e.target.value })}
          data-testid="filter-model"
        />
        <button onClick={() => s.setLogsPaused(!paused)} data-testid="logs-pause">
          {paused ? `Resume (${held} new)` : 'Pause'}
        </button>
        <span className="small">{shown.length} shown</span>
      </div>
      <div className="log-head">
        <span>time</span>
        <span>app</span>
        <span>model</span>
        <span>provider</span>
        <span>status</span>
        <span>latency</span>
      </div>
      <div ref={parent} className="log-list" data-testid="log-list">
        <div style={{ height: rows.getTotalSize(), position: 'relative' }}>
          {rows.getVirtualItems().map((v) => {
            const e = shown[v.index]!;
            return (
              <div
                key={e.id}
                className={`log-row ${e.status >= 400 ? 'bad' : ''} ${selected === e.id ? 'selected' : ''}`}
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  height: v.size,
                  transform: `translateY(${v.start}px)`,
                }}
                onClick={() => s.selectLog(e.id)}
                data-testid="log-row"
              >
                <span>{new Date(e.time).toLocaleTimeString()}</span>
                <span>{e.app ?? '—'}</span>
                <span className="mono">{e.requested_model ?? '—'}</span>
                <span>{e.provider ?? '—'}</span>
                <span>{e.status}</span>
                <span>{Math.round(e.latency_ms)} ms</span>
              </div>
            );
          })}
        </div>
      </div>
      {detail && (
        <div className="card" data-testid="log-detail">
          <h3>
            {detail.method} {detail.path} → {detail.status}
          </h3>
          <p>
            app <strong>{detail.app ?? '—'}</strong> ({detail.app_source ?? 'unknown'}), model {detail.requested_model}{' '}
            → {detail.routed_model} via <strong>{detail.provider ?? '—'}</strong> ({detail.route ?? 'no route'})
            {detail.error_code ? `, error ${detail.error_code}` : ''}
          </p>
          <p>
            latency {Math.round(detail.latency_ms)} ms, first byte{' '}
            {detail.ttfb_ms != null ? `${Math.round(detail.ttfb_ms)} ms` : '—'}, tokens {detail.prompt_tokens ?? '—'} in
            / {detail.completion_tokens ?? '—'} out{detail.stream ? ', streamed' : ''}
          </p>
          <ol>
            {detail.attempts.map((a, i) => (
              <li key={i}>
                {a.provider}: {a.status ?? a.error} in {Math.round(a.latency_ms)} ms
              </li>
            ))}
          </ol>
          <button onClick={() => s.selectLog(null)}>Close</button>
        </div>
      )}
    </section>
  );
}
