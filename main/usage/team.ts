// The team's usage with the store in Redis (issue 36): the instance that served a request adds it to the team's
// rollups in Redis (per minute, hour and local day × app × provider × model × credential, per day × session and per
// day × instance) and to the spend counters the budgets read; any instance's summary is read back from them. Nothing
// is read per request and no instance reads the others' requests: an instance's cost does not grow with the team.
//
// Records are added up in memory and sent as one batch every FLUSH_MS (one script run on Redis: HINCRBY per changed
// counter, whatever the number of requests), so a request costs an in-memory add. A batch carries an id and is
// applied once (the script refuses an id it has seen): one that may or may not have reached Redis (a timeout, a
// dropped connection) is sent again as it is until Redis says so, and nothing is counted twice. While a batch waits
// (Redis down or slow), new records wait in the next; past MAX_PENDING_CELLS they are dropped from the team's view
// (counted, logged once: this instance's own files still have them). A kill -9 loses the batch being built (at most
// FLUSH_MS of this instance's requests, as the raw files lose their last 200 ms).
import { randomUUID } from 'node:crypto';
import type { UsageRange, UsageRecord, UsageSummary, UsageTotals } from '../../shared/usage.ts';
import { logger } from '../observability/logger.ts';
import type { Budgets } from './budgets.ts';
import { localDate, localDayStart, rangeBuckets, HOUR, MINUTE } from './periods.ts';
import {
  addRecord,
  addTotals,
  emptyTotals,
  GRANULARITIES,
  type Granularity,
  MAX_SESSIONS_PER_DAY,
  OTHER_SESSION,
  Rollups,
  sessionKeyOf,
} from './rollups.ts';
import { summarize, topRows } from './summary.ts';

/** How often this instance's usage is sent (and the team's spend read back for the budgets). */
export const FLUSH_MS = 500;
/** Cells waiting past this (Redis unreachable a long while): later records are left out of the team's view. */
export const MAX_PENDING_CELLS = 20_000;

/** One batch: the cells it adds to (their whole totals are increments) and the spend counters' increments. */
export type UsageBatch = {
  id: string;
  /** The rollups' cells added to, by granularity and bucket (Rollups, as the local store keeps them). */
  rollups: Rollups;
  /** Per local day: the instance's totals (by instance name). */
  instances: Map<string, Map<string, UsageTotals>>;
  /** Spend counters' increments, per local day and per month ("YYYY-MM"). */
  spendDays: Map<string, Map<string, number>>;
  spendMonths: Map<string, Map<string, number>>;
  /** How many records it carries, and when the oldest was added. */
  records: number;
  since: number;
};

/** The spend counters to read back with a batch (the budgets'), for one day and its month. */
export type SpendRead = { date: string; month: string; fields: string[] };
export type SpendAnswer = { day: Map<string, number>; month: Map<string, number> };

/** The buckets a summary reads. */
export type UsageBuckets = { minutes: number[]; hours: number[]; days: string[]; sessionDays: string[] };

/** The team's rollups where they live (main/usage/team-redis.ts: Redis). */
export interface TeamRollups {
  /** Applies a batch once (by its id; null: nothing to add), then reads the spend counters. Rejects when unreachable. */
  add(batch: UsageBatch | null, read: SpendRead): Promise<SpendAnswer>;
  /** The cells of these buckets (as Rollups) and the instances' totals over `sessionDays`. */
  read(buckets: UsageBuckets): Promise<{ rollups: Rollups; instances: Map<string, UsageTotals> }>;
}

const emptyBatch = (): UsageBatch => ({
  id: randomUUID(),
  rollups: new Rollups(),
  instances: new Map(),
  spendDays: new Map(),
  spendMonths: new Map(),
  records: 0,
  since: 0,
});

function addTo(map: Map<string, Map<string, number>>, bucket: string, field: string, v: number): void {
  let m = map.get(bucket);
  if (!m) map.set(bucket, (m = new Map()));
  m.set(field, (m.get(field) ?? 0) + v);
}

/** The time rollups (the sessions' is added with this instance's own bound). */
const TIME_ROLLUPS: Granularity[] = ['minute', 'hour', 'day'];

/** The cells a batch holds (what the pending bound counts). */
function cellsOf(b: UsageBatch): number {
  let n = 0;
  for (const g of GRANULARITIES) for (const cells of b.rollups[g].buckets.values()) n += cells.size;
  for (const m of b.instances.values()) n += m.size;
  return n;
}

export class TeamUsage {
  private pending = emptyBatch();
  private pendingCells = 0;
  /** A batch sent whose outcome is not known yet, or that failed: sent again as it is. */
  private inflight: UsageBatch | null = null;
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  /** Records left out while too much was waiting, and whether it was said. */
  dropped = 0;
  /** Batches applied. */
  sent = 0;

  constructor(
    private readonly store: TeamRollups,
    private readonly budgets: Budgets,
    /** This instance's name in the team (the usage by instance). */
    readonly instance: string,
    private readonly now: () => number = Date.now,
    flushMs = FLUSH_MS,
  ) {
    budgets.countTeam();
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  /** Adds a record of this instance (after the local store took it, with the rollup key it gave it). */
  record(r: UsageRecord, t: number, key: string): void {
    const b = this.pending;
    if (this.pendingCells >= MAX_PENDING_CELLS) {
      if (this.dropped++ === 0)
        logger.warn(
          `team usage: Redis has not taken this instance's usage for a while; ${MAX_PENDING_CELLS} counters are waiting, later requests are left out of the team's view (this instance's own usage files keep them)`,
        );
      return;
    }
    if (b.records++ === 0) b.since = this.now();
    const before = cellsOf(b); // cheap: a few buckets
    b.rollups.add(r, t, key, TIME_ROLLUPS);
    const date = b.rollups.dateOf(t);
    if (r.session) b.rollups.session.add(date, sessionKeyOf(r.app, this.sessionOf(date, r.session)), r);
    let day = b.instances.get(date);
    if (!day) b.instances.set(date, (day = new Map()));
    let totals = day.get(this.instance);
    if (!totals) day.set(this.instance, (totals = emptyTotals()));
    addRecord(totals, r);
    if (r.cost_usd) {
      for (const f of this.budgets.spendFields(r)) {
        addTo(b.spendDays, date, f, r.cost_usd);
        addTo(b.spendMonths, date.slice(0, 7), f, r.cost_usd);
      }
    }
    this.pendingCells += cellsOf(b) - before;
  }

  /** A session's own row, or OTHER_SESSION past MAX_SESSIONS_PER_DAY sessions this instance sent that day. */
  private sessionOf(date: string, session: string): string {
    let seen = this.sessions.get(date);
    if (!seen) {
      for (const d of this.sessions.keys()) if (d < date) this.sessions.delete(d); // one day at a time, as a rule
      this.sessions.set(date, (seen = new Set()));
    }
    if (seen.has(session)) return session;
    if (seen.size >= MAX_SESSIONS_PER_DAY) return OTHER_SESSION;
    seen.add(session);
    return session;
  }
  private readonly sessions = new Map<string, Set<string>>();

  /** Records waiting to reach Redis, and the age of the oldest (the metrics' lag). */
  queue(): { waiting: number; lagSeconds: number; dropped: number } {
    const oldest = this.inflight?.since || (this.pending.records ? this.pending.since : 0);
    return {
      waiting: (this.inflight?.records ?? 0) + this.pending.records,
      lagSeconds: oldest ? (this.now() - oldest) / 1000 : 0,
      dropped: this.dropped,
    };
  }

  /**
   * Sends what waits (the batch not yet confirmed first, as it was) and reads the team's spend back for the budgets.
   * One at a time; a call while one runs waits for it and then runs (so what was recorded before the call is sent).
   */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    const run = this.flushOnce().finally(() => (this.flushing = null));
    this.flushing = run;
    return run;
  }

  private async flushOnce(): Promise<void> {
    const fields = this.budgets.teamFields();
    if (!this.inflight && this.pending.records === 0 && fields.length === 0) return;
    if (!this.inflight && this.pending.records > 0) {
      this.inflight = this.pending;
      this.pending = emptyBatch();
      this.pendingCells = 0;
      this.budgets.sending();
    }
    const t = this.now();
    const date = localDate(t);
    try {
      const answer = await this.store.add(this.inflight, { date, month: date.slice(0, 7), fields });
      if (this.inflight) this.sent++;
      this.inflight = null;
      this.budgets.teamSpent(date, date.slice(0, 7), answer.day, answer.month);
    } catch {
      // Unreachable or too slow: the same batch goes again next time (applied once by its id).
    }
  }

  /**
   * A range's summary of the whole team, read from Redis after this instance's waiting records are sent; null when
   * Redis cannot be read (the caller answers with this instance's own).
   */
  async summary(range: UsageRange, budgets: UsageSummary['budgets']): Promise<UsageSummary | null> {
    await this.flush();
    const t = this.now();
    const buckets = bucketsOf(range, t);
    let read;
    try {
      read = await this.store.read(buckets);
    } catch {
      return null;
    }
    const out = summarize(read.rollups, range, t, budgets);
    const byInstance = new Map<string, UsageTotals>();
    for (const [name, totals] of read.instances) {
      let row = byInstance.get(name);
      if (!row) byInstance.set(name, (row = emptyTotals()));
      addTotals(row, totals);
    }
    return { ...out, by_instance: topRows(byInstance), scope: 'team' };
  }

  /** Sends what waits, one last time (a stop). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => {});
  }
}

/** The buckets a range's summary reads: as Rollups.cellsOf picks them for each bucket of its series. */
export function bucketsOf(range: UsageRange, now: number): UsageBuckets {
  const rb = rangeBuckets(range, now);
  const minutes = new Set<number>();
  const hours = new Set<number>();
  const days = new Set<string>();
  for (const b of rb.buckets) {
    if (b.day !== undefined) days.add(b.day);
    else if (b.t % HOUR === 0 && b.end % HOUR === 0) for (let h = b.t / HOUR; h < b.end / HOUR; h++) hours.add(h);
    else for (let m = Math.floor(b.t / MINUTE); m < Math.ceil(b.end / MINUTE); m++) minutes.add(m);
  }
  const sessionDays: string[] = [];
  for (let t = localDayStart(rb.from); t < rb.to; t = localDayStart(t, 1)) sessionDays.push(localDate(t));
  return { minutes: [...minutes], hours: [...hours], days: [...days], sessionDays };
}

export type { Granularity };
