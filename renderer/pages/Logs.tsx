// Logs: the live tail, virtualised (rows measured, so wrapped text never overlaps); filters by app, provider, status
// and model; new rows never move what the reader is looking at; a drawer with one request's details; rows reachable
// and openable by keyboard; export of the rows shown (JSON Lines, CSV); pause.
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/shallow';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { Select } from '../components/controls.tsx';
import { download, toCsv, toJsonl } from '../components/log-export.ts';
import { attemptsText, formatTime, providerCell, tokensText } from '../components/log-text.ts';
import { LogDrawer } from '../components/LogDrawer.tsx';
import { filterLogs } from '../store/logs.ts';
import { useApp, useAppStore } from '../store/react.ts';

/** The fields filtered by a select of the values seen in the log ("all apps", "all providers"). */
const SEEN_FILTERS = ['app', 'provider'] as const;

/** The distinct values of one field across the log, sorted, for a filter's options. */
const valuesOf = (logs: RequestLogEntry[], key: (typeof SEEN_FILTERS)[number]) =>
  [...new Set(logs.map((e) => e[key]).filter((v): v is string => !!v))].sort();

/**
 * One cell of a row: the column's name said before the value and a pause after it for a screen reader (the header
 * row is hidden from it), so a row reads "14:03:22.123, app cursor, model gpt-4o, …" as its visible text.
 */
function Cell({ name, className, children }: { name?: string; className?: string; children: ReactNode }) {
  return (
    <span className={className}>
      {name && <span className="sr-only">{name} </span>}
      {children}
      <span className="sr-only">, </span>
    </span>
  );
}

/** How far from the top (px) still counts as reading the newest rows. */
const AT_NEWEST_PX = 4;

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
  // Reading the newest rows (at the top): new rows show as they come. Scrolled down: the rows in view stay put.
  const [atNewest, setAtNewest] = useState(true);
  const rows = useVirtualizer({
    count: shown.length,
    getScrollElement: () => parent.current,
    estimateSize: () => 30,
    getItemKey: (i) => shown[i]!.id,
    overscan: 10,
    anchorTo: atNewest ? 'start' : 'end',
  });
  const detail = selected ? logs.find((e) => e.id === selected) : undefined;
  const s = store.getState();
  // One tab stop for the whole list (issue 34, bug 14): the row last focused or opened, else the first row in view;
  // ↑/↓/Home/End move between rows.
  const [active, setActive] = useState<string | null>(null);
  const rendered = rows.getVirtualItems().map((v) => shown[v.index]?.id);
  const want = selected ?? active;
  const tabStop = want && rendered.includes(want) ? want : (rendered[0] ?? null);

  /** Focuses the row of `index` (scrolled into view first; it is rendered on the next frame). */
  const focusRow = (index: number) => {
    if (index < 0 || index >= shown.length) return;
    rows.scrollToIndex(index, { align: 'auto' });
    const id = shown[index]!.id;
    const tryFocus = (left: number) =>
      requestAnimationFrame(() => {
        const el = parent.current?.querySelector<HTMLElement>(`[data-log-id="${CSS.escape(id)}"]`);
        if (el) el.focus();
        else if (left > 0) tryFocus(left - 1);
      });
    tryFocus(5);
  };
  const onRowKey = (e: KeyboardEvent, index: number) => {
    const to =
      e.key === 'ArrowDown'
        ? index + 1
        : e.key === 'ArrowUp'
          ? index - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? shown.length - 1
              : null;
    if (to === null) return;
    e.preventDefault();
    focusRow(to);
  };
  /** Focus back on the row the drawer shows (Tab out of it, or closing it). */
  const backToRow = () => {
    const i = selected ? shown.findIndex((e) => e.id === selected) : -1;
    if (i >= 0) focusRow(i);
  };
  // Closing the drawer gives focus back to the row it was opened from.
  const closeDrawer = () => {
    backToRow();
    s.selectLog(null);
  };
  useEffect(() => () => store.getState().selectLog(null), [store]);

  const stamp = () => new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const exportRows = (kind: 'jsonl' | 'csv') => {
    if (kind === 'jsonl') download(`switchboard-requests-${stamp()}.jsonl`, toJsonl(shown), 'application/x-ndjson');
    else download(`switchboard-requests-${stamp()}.csv`, toCsv(shown), 'text/csv');
    s.announce(
      `Exported ${shown.length} ${shown.length === 1 ? 'request' : 'requests'} as ${kind === 'csv' ? 'CSV' : 'JSON Lines'}.`,
    );
  };

  return (
    <section data-testid="page-logs" className="logs" aria-labelledby="logs-heading">
      <h2 id="logs-heading">Logs</h2>
      <div className="row">
        {SEEN_FILTERS.map((key) => (
          <Select
            key={key}
            aria-label={`Filter by ${key}`}
            value={filter[key]}
            onChange={(e) => s.setLogFilter({ [key]: e.target.value })}
            blank={`all ${key}s`}
            options={seen[key]}
            data-testid={`filter-${key}`}
          />
        ))}
        <select
          aria-label="Filter by status"
          value={filter.status}
          onChange={(e) => s.setLogFilter({ status: e.target.value as '' | 'ok' | 'error' })}
          data-testid="filter-status"
        >
          <option value="">any status</option>
          <option value="ok">ok</option>
          <option value="error">errors</option>
        </select>
        <input
          aria-label="Filter by model"
          placeholder="model"
          value={filter.model}
          onChange={(e) => s.setLogFilter({ model: e.target.value })}
          data-testid="filter-model"
        />
        <button onClick={() => s.setLogsPaused(!paused)} data-testid="logs-pause">
          {paused ? `Resume (${held} new)` : 'Pause'}
        </button>
        <span className="small" data-testid="logs-shown">
          {shown.length} shown
        </span>
        <span className="push-right">
          <button onClick={() => exportRows('jsonl')} disabled={shown.length === 0} data-testid="export-jsonl">
            Export JSONL
          </button>{' '}
          <button onClick={() => exportRows('csv')} disabled={shown.length === 0} data-testid="export-csv">
            Export CSV
          </button>
        </span>
      </div>
      <p className="hint">
        Newest first; times to the millisecond. Scrolled down, new requests do not move the rows you are reading. Cost
        per app, provider and model is on the Overview page. Export saves the rows shown (the filters apply).
      </p>
      <div className="log-head" aria-hidden="true">
        <span>time</span>
        <span>app</span>
        <span>model</span>
        <span>provider</span>
        <span>status</span>
        <span>tokens</span>
        <span>tries</span>
        <span>latency</span>
      </div>
      <div
        ref={parent}
        className="log-list"
        data-testid="log-list"
        onScroll={(e) => {
          const top = e.currentTarget.scrollTop <= AT_NEWEST_PX;
          if (top !== atNewest) setAtNewest(top);
        }}
      >
        <div
          role="list"
          aria-label={`Requests, newest first (${shown.length})`}
          style={{ height: rows.getTotalSize(), position: 'relative' }}
        >
          {rows.getVirtualItems().map((v) => {
            const e = shown[v.index]!;
            return (
              <div
                role="listitem"
                key={v.key}
                data-index={v.index}
                ref={rows.measureElement}
                className="log-item"
                style={{ transform: `translateY(${v.start}px)` }}
              >
                <button
                  type="button"
                  className={`log-row ${e.status >= 400 ? 'bad' : ''} ${selected === e.id ? 'selected' : ''}`}
                  aria-haspopup="dialog"
                  aria-expanded={selected === e.id}
                  data-log-id={e.id}
                  tabIndex={tabStop === e.id ? 0 : -1}
                  onFocus={() => setActive(e.id)}
                  onClick={() => s.selectLog(e.id)}
                  onKeyDown={(ev) => onRowKey(ev, v.index)}
                  data-testid="log-row"
                >
                  <Cell className="mono">{formatTime(e.time)}</Cell>
                  <Cell name="app">{e.app ?? '—'}</Cell>
                  <Cell name="model" className="mono">
                    {e.requested_model ?? '—'}
                  </Cell>
                  <Cell name="provider">{providerCell(e)}</Cell>
                  <Cell name="status">{e.status}</Cell>
                  <Cell name="tokens">{tokensText(e)}</Cell>
                  <Cell name="tries">{attemptsText(e)}</Cell>
                  <Cell name="latency">{Math.round(e.latency_ms)} ms</Cell>
                </button>
              </div>
            );
          })}
        </div>
      </div>
      {shown.length === 0 && <p className="hint">No requests {logs.length ? 'match the filters' : 'yet'}.</p>}
      {detail && <LogDrawer entry={detail} onClose={closeDrawer} onTabOut={backToRow} />}
    </section>
  );
}
