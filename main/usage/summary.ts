// GET /admin/v1/usage: a range's totals, its top apps, providers, models and credentials (gateway mode), and its
// series (every bucket, empty ones as zeros), added up from the rollups (this instance's, or the team's read from
// Redis: the same shape).
import type { UsageRange, UsageSummary, UsageTotals } from '../../shared/usage.ts';
import type { BudgetState } from './budgets.ts';
import { localDate, localDayStart, rangeBuckets } from './periods.ts';
import { addTotals, type Cells, emptyTotals, partsOf, type Rollups, sessionPartsOf } from './rollups.ts';

/** Rows kept per group; the rest are added up in one "(other)" row. */
export const TOP_ROWS = 20;
/** The key of a group's row for requests without one (no app identified, refused before a provider or model). */
export const NONE_KEY = '(none)';
export const OTHER_KEY = '(other)';

type Row = UsageTotals & { key: string };

function add(groups: Map<string, UsageTotals>, key: string | null, t: UsageTotals): void {
  const k = key ?? NONE_KEY;
  let g = groups.get(k);
  if (!g) groups.set(k, (g = emptyTotals()));
  addTotals(g, t);
}

/** Sorted by cost, then requests (then key, for a stable order); at most TOP_ROWS, then "(other)". */
export function topRows(groups: Map<string, UsageTotals>, max = TOP_ROWS): Row[] {
  const rows = [...groups].map(([key, t]) => ({ key, ...t }));
  rows.sort((a, b) => b.cost_usd - a.cost_usd || b.requests - a.requests || (a.key < b.key ? -1 : 1));
  if (rows.length <= max) return rows;
  const other: Row = { key: OTHER_KEY, ...emptyTotals() };
  for (const r of rows.slice(max)) addTotals(other, r);
  return [...rows.slice(0, max), other];
}

/**
 * The sessions of the local days [from, to) touches, added up over those days: a session's cost in a range is what it
 * spent on the range's days (for 1h and 24h, the whole of each day they reach into).
 */
function sessionRows(rollups: Rollups, from: number, to: number): UsageSummary['by_session'] {
  const groups = new Map<string, UsageTotals>();
  for (let t = localDayStart(from); t < to; t = localDayStart(t, 1)) {
    const cells = rollups.session.buckets.get(localDate(t));
    if (cells) for (const [key, totals] of cells) add(groups, key, totals);
  }
  return topRows(groups).map((row) => {
    if (row.key === OTHER_KEY) return { ...row, app: null };
    const { app, session } = sessionPartsOf(row.key);
    return { ...row, key: session, app };
  });
}

export function summarize(rollups: Rollups, range: UsageRange, now: number, budgets: BudgetState[]): UsageSummary {
  const rb = rangeBuckets(range, now);
  const totals = emptyTotals();
  const byApp = new Map<string, UsageTotals>();
  const byProvider = new Map<string, UsageTotals>();
  const byModel = new Map<string, UsageTotals>();
  const byKey = new Map<string, UsageTotals>();
  const series: UsageSummary['series'] = [];
  const found: Cells[] = [];
  for (const b of rb.buckets) {
    found.length = 0;
    rollups.cellsOf(b, found);
    const point = emptyTotals();
    for (const cells of found) {
      for (const [key, t] of cells) {
        addTotals(point, t);
        const p = partsOf(key);
        add(byApp, p.app, t);
        add(byProvider, p.provider, t);
        add(byModel, p.model, t);
        add(byKey, p.key, t);
      }
    }
    addTotals(totals, point);
    series.push({ ...point, t: b.t });
  }
  return {
    range,
    from: new Date(rb.from).toISOString(),
    to: new Date(rb.to).toISOString(),
    bucket_ms: rb.bucket_ms,
    totals,
    by_app: topRows(byApp),
    by_provider: topRows(byProvider),
    by_model: topRows(byModel),
    by_session: sessionRows(rollups, rb.from, rb.to),
    by_key: topRows(byKey),
    series,
    budgets,
  };
}
