// The usage store's counters: per minute (UTC, kept ~2 days), per hour (UTC, ~60 days) and per local calendar day
// (usage.rollup_days), each keyed by app × provider × model. A summary of any range is added up from them, taking for
// each bucket of its series the coarsest rollup that covers it exactly (never the raw files). Beside them, the coding
// sessions: per local day, keyed by app × session (at most 500 sessions a day, the rest the app's "(other)"; 60 days).
import type { UsageRecord, UsageTotals } from '../../shared/usage.ts';
import { type Bucket, DAY, HOUR, localDate, localDayStart, MINUTE } from './periods.ts';

export const MINUTES_KEPT_MS = 2 * DAY;
export const HOURS_KEPT_MS = 60 * DAY;
/** Days of sessions kept (at most usage.rollup_days). */
export const SESSION_DAYS_KEPT = 60;
/** Distinct sessions counted apart per local day; the later ones of a day go to their app's OTHER_SESSION. */
export const MAX_SESSIONS_PER_DAY = 500;
export const OTHER_SESSION = '(other)';

export function emptyTotals(): UsageTotals {
  return {
    requests: 0,
    errors: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_5m_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
    unpriced: 0,
    latency_ms_sum: 0,
    failed_attempts: 0,
  };
}

/** An error: a refusal or a failure (status 400 and up; a reply cut short mid-stream is logged as 502). */
export const isError = (r: Pick<UsageRecord, 'status'>): boolean => r.status >= 400;

export function addRecord(t: UsageTotals, r: UsageRecord): void {
  t.requests++;
  if (isError(r)) t.errors++;
  t.prompt_tokens += r.prompt_tokens;
  t.completion_tokens += r.completion_tokens;
  t.cache_read_tokens += r.cache_read_tokens;
  t.cache_write_tokens += r.cache_write_tokens;
  t.cache_write_5m_tokens += r.cache_write_5m_tokens ?? 0; // absent from records written before the split was kept
  t.cache_write_1h_tokens += r.cache_write_1h_tokens ?? 0;
  t.reasoning_tokens += r.reasoning_tokens;
  if (r.cost_usd === null) t.unpriced++;
  else t.cost_usd += r.cost_usd;
  t.latency_ms_sum += r.latency_ms;
}

export function addTotals(t: UsageTotals, u: UsageTotals): void {
  t.requests += u.requests;
  t.errors += u.errors;
  t.prompt_tokens += u.prompt_tokens;
  t.completion_tokens += u.completion_tokens;
  t.cache_read_tokens += u.cache_read_tokens;
  t.cache_write_tokens += u.cache_write_tokens;
  t.cache_write_5m_tokens += u.cache_write_5m_tokens;
  t.cache_write_1h_tokens += u.cache_write_1h_tokens;
  t.reasoning_tokens += u.reasoning_tokens;
  t.cost_usd += u.cost_usd;
  t.unpriced += u.unpriced;
  t.latency_ms_sum += u.latency_ms_sum;
  t.failed_attempts += u.failed_attempts;
}

/**
 * The totals' fields in a fixed order: a snapshot cell is the bucket, the key's index, then these. Fields added later
 * go at the end: a row written before them has fewer values, the missing ones 0 (LEGACY_FIELDS: the first ones).
 */
export const FIELDS = [
  'requests',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_usd',
  'unpriced',
  'latency_ms_sum',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'failed_attempts',
] as const satisfies readonly (keyof UsageTotals)[];
/** How many values a row written before the 5-minute / 1-hour split was kept has. */
const LEGACY_FIELDS = 10;
/** The lengths a row may have: before the split (10), before failed_attempts (12), now. */
const ROW_LENGTHS: readonly number[] = [LEGACY_FIELDS, 12, FIELDS.length];
const everyTotal: [Exclude<keyof UsageTotals, (typeof FIELDS)[number]>] extends [never] ? true : never = true;
void everyTotal;

/**
 * app × provider × model (× the credential's name, gateway mode) as one string ('' for none: no app, provider or
 * model is ever named ''). Without a credential the key has three parts, as before keys were counted (issue 36), so
 * the rollups written then read the same.
 */
export const keyOf = (
  app: string | null,
  provider: string | null,
  model: string | null,
  credential: string | null = null,
): string =>
  credential === null
    ? `${app ?? ''}\u0001${provider ?? ''}\u0001${model ?? ''}`
    : `${app ?? ''}\u0001${provider ?? ''}\u0001${model ?? ''}\u0001${credential}`;

export type KeyParts = { app: string | null; provider: string | null; model: string | null; key: string | null };

export function partsOf(key: string): KeyParts {
  const [app = '', provider = '', model = '', credential = ''] = key.split('\u0001');
  return { app: app || null, provider: provider || null, model: model || null, key: credential || null };
}

/** app × session as one string (the session rollup's key; '' for no app). */
export const sessionKeyOf = (app: string | null, session: string): string => `${app ?? ''}\u0001${session}`;

export function sessionPartsOf(key: string): { app: string | null; session: string } {
  const cut = key.indexOf('\u0001');
  return { app: key.slice(0, cut) || null, session: key.slice(cut + 1) };
}

/** The cells of one bucket: totals by key. */
export type Cells = Map<string, UsageTotals>;

/** A snapshot of one rollup: the keys once, then one row per cell (bucket, key index, the totals' fields). */
export type RollupJson = { keys: string[]; cells: (number | string)[][] };

/**
 * One granularity's counters, by bucket (a minute or hour number since the epoch, or a local date) and key, and the
 * cells changed since they were last taken for a snapshot.
 */
export class Rollup<B extends number | string> {
  readonly buckets = new Map<B, Cells>();
  private dirty = new Map<B, Set<string>>();

  /** Counts a record in a bucket's cell. */
  add(bucket: B, key: string, r: UsageRecord, bound?: CellBound): void {
    addRecord(this.cell(bucket, key, bound), r);
  }

  /** An attempt that failed over: the failing provider's cell counts it. */
  addFailedAttempt(bucket: B, key: string, bound?: CellBound): void {
    this.cell(bucket, key, bound).failed_attempts++;
  }

  /** The cell of `key` in `bucket`, made when new (a new key in a bucket already holding `bound.cells` goes to its
   * overflow cell), marked changed for the next snapshot. */
  private cell(bucket: B, key: string, bound?: CellBound): UsageTotals {
    let cells = this.buckets.get(bucket);
    if (!cells) this.buckets.set(bucket, (cells = new Map()));
    let t = cells.get(key);
    if (!t && bound && cells.size >= bound.cells) {
      key = bound.overflow(key);
      t = cells.get(key);
    }
    if (!t) cells.set(key, (t = emptyTotals()));
    let changed = this.dirty.get(bucket);
    if (!changed) this.dirty.set(bucket, (changed = new Set()));
    changed.add(key);
    return t;
  }

  /** Drops the buckets before `oldest`. */
  prune(oldest: B): void {
    for (const b of this.buckets.keys()) if (b < oldest) this.buckets.delete(b);
  }

  /** Every cell, as a snapshot; forgets what changed (the snapshot has it all). */
  toJSON(): RollupJson {
    this.dirty = new Map();
    return cellsJson(this.buckets);
  }

  /** The cells changed since the last toJSON() or changes(), as a snapshot's rows (their whole totals). */
  changes(): RollupJson {
    const out = new Map<B, Cells>();
    for (const [bucket, keys] of this.dirty) {
      const cells = this.buckets.get(bucket);
      if (!cells) continue; // pruned since
      const some: Cells = new Map();
      for (const key of keys) some.set(key, cells.get(key)!);
      out.set(bucket, some);
    }
    this.dirty = new Map();
    return cellsJson(out);
  }

  /** Loads a snapshot's rows over what is there (a row replaces its cell); a malformed row is skipped. */
  load(json: RollupJson, bucketOk: (b: unknown) => b is B): number {
    let loaded = 0;
    for (const row of Array.isArray(json.cells) ? json.cells : []) {
      const [bucket, k, ...values] = Array.isArray(row) ? row : [];
      const key = typeof k === 'number' && Array.isArray(json.keys) ? json.keys[k] : undefined;
      if (!bucketOk(bucket) || typeof key !== 'string') continue;
      if (!ROW_LENGTHS.includes(values.length)) continue;
      if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) continue;
      const t = emptyTotals();
      values.forEach((v, i) => (t[FIELDS[i]!] = v as number));
      let cells = this.buckets.get(bucket);
      if (!cells) this.buckets.set(bucket, (cells = new Map()));
      cells.set(key, t);
      loaded++;
    }
    return loaded;
  }

  clear(): void {
    this.buckets.clear();
    this.dirty = new Map();
  }
}

function cellsJson<B>(buckets: Map<B, Cells>): RollupJson {
  const keys = new Map<string, number>();
  const cells: (number | string)[][] = [];
  for (const [bucket, byKey] of buckets) {
    for (const [key, t] of byKey) {
      let k = keys.get(key);
      if (k === undefined) keys.set(key, (k = keys.size));
      cells.push([bucket as number | string, k, ...FIELDS.map((f) => t[f])]);
    }
  }
  return { keys: [...keys.keys()], cells };
}

export const isBucketNumber = (b: unknown): b is number => typeof b === 'number' && Number.isInteger(b);
export const isBucketDate = (b: unknown): b is string => typeof b === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(b);

/** The rollups, each with its own snapshot file: three of time, and the sessions' (per local day, app × session). */
export type Granularity = 'minute' | 'hour' | 'day' | 'session';
export const GRANULARITIES: readonly Granularity[] = ['minute', 'hour', 'day', 'session'];

/** How many cells a bucket may hold, and the cell a new key is counted in past that (bounds.ts). The sessions'
 * rollup has its own bound (addSession). */
export type CellBound = { cells: number; overflow: (key: string) => string };
export type CellBounds = Readonly<Record<Exclude<Granularity, 'session'>, CellBound>>;

/** The three rollups, added to together. */
export class Rollups {
  readonly minute = new Rollup<number>();
  readonly hour = new Rollup<number>();
  readonly day = new Rollup<string>();
  /** Per local day, keyed by app × session (sessionKeyOf): only requests that named a session. */
  readonly session = new Rollup<string>();
  /** The local day last seen (most records fall in it): its date and bounds, so a record costs no date formatting. */
  private today = { start: 0, end: 0, date: '' };

  /** The local date of t. */
  dateOf(t: number): string {
    const d = this.today;
    if (t >= d.start && t < d.end) return d.date;
    const date = localDate(t);
    this.today = { start: localDayStart(t), end: localDayStart(t, 1), date };
    return date;
  }

  /**
   * Adds a record (at epoch ms t) to the rollups named (all of them by default), and each of its failed attempts to
   * the failing provider's cell (app × that provider × model, the names as `key` bounds them) of the time rollups.
   */
  add(
    r: UsageRecord,
    t: number,
    key: string,
    only: Granularity[] = GRANULARITIES as Granularity[],
    bounds?: CellBounds,
  ): void {
    for (const g of only) {
      if (g === 'minute') this.minute.add(Math.floor(t / MINUTE), key, r, bounds?.minute);
      else if (g === 'hour') this.hour.add(Math.floor(t / HOUR), key, r, bounds?.hour);
      else if (g === 'day') this.day.add(this.dateOf(t), key, r, bounds?.day);
      else if (r.session) this.addSession(r, t, r.session);
    }
    if (!r.failed_over) return;
    const { app, model } = partsOf(key);
    for (const p of r.failed_over) {
      const k = keyOf(app, p, model);
      for (const g of only) {
        if (g === 'minute') this.minute.addFailedAttempt(Math.floor(t / MINUTE), k, bounds?.minute);
        else if (g === 'hour') this.hour.addFailedAttempt(Math.floor(t / HOUR), k, bounds?.hour);
        else if (g === 'day') this.day.addFailedAttempt(this.dateOf(t), k, bounds?.day);
      }
    }
  }

  /** A request of a session, counted on its local day: a day's sessions past MAX_SESSIONS_PER_DAY as OTHER_SESSION. */
  private addSession(r: UsageRecord, t: number, session: string): void {
    const day = this.dateOf(t);
    let key = sessionKeyOf(r.app, session);
    const cells = this.session.buckets.get(day);
    if (cells && cells.size >= MAX_SESSIONS_PER_DAY && !cells.has(key)) key = sessionKeyOf(r.app, OTHER_SESSION);
    this.session.add(day, key, r);
  }

  /** Drops what is past its retention: minutes after ~2 days, hours after ~60 days, days after `rollupDays`. */
  prune(now: number, rollupDays: number): void {
    this.minute.prune(Math.floor((now - MINUTES_KEPT_MS) / MINUTE));
    this.hour.prune(Math.floor((now - HOURS_KEPT_MS) / HOUR));
    this.day.prune(localDate(localDayStart(now, -(rollupDays - 1))));
    this.session.prune(localDate(localDayStart(now, -(Math.min(rollupDays, SESSION_DAYS_KEPT) - 1))));
  }

  /**
   * The cells covering one bucket of a series: its day's cells for a local day; for [t, end) on whole UTC hours, those
   * hours; else the minutes (a local day or hour of a time zone off the whole hour, within the minutes kept).
   */
  cellsOf(b: Bucket, out: Cells[]): void {
    if (b.day !== undefined) {
      const cells = this.day.buckets.get(b.day);
      if (cells) out.push(cells);
      return;
    }
    if (b.t % HOUR === 0 && b.end % HOUR === 0) {
      for (let h = b.t / HOUR; h < b.end / HOUR; h++) {
        const cells = this.hour.buckets.get(h);
        if (cells) out.push(cells);
      }
      return;
    }
    for (let m = Math.floor(b.t / MINUTE); m < Math.ceil(b.end / MINUTE); m++) {
      const cells = this.minute.buckets.get(m);
      if (cells) out.push(cells);
    }
  }

  /** What the rollup named holds, as a snapshot (all of it, or the cells changed since the last). */
  json(g: Granularity, onlyChanges = false): RollupJson {
    return onlyChanges ? this[g].changes() : this[g].toJSON();
  }

  load(g: Granularity, json: RollupJson): number {
    return g === 'day' || g === 'session' ? this[g].load(json, isBucketDate) : this[g].load(json, isBucketNumber);
  }
}
