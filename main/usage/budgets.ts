// Budgets (config.json `budgets`): what each has spent in its current local day or month, counted from the day rollup
// when the budgets change or a period ends and kept up to date by each request's cost. Crossing `warn_at` notifies a
// warning once per period, the limit a budget_exceeded notice; with `enforce`, model requests of the budget's scope
// (its app, its credential (`key`, gateway mode), both, or everything) are refused before forwarding: 402
// budget_exceeded, naming the budget and the fix.
// With the store in Redis (issue 36) a budget counts the team's spend: the instances add their costs to spend counters
// in Redis (main/usage/team-redis.ts) and each answer gives back the team's total (`teamSpent`); a budget's spend is
// then that total plus this instance's costs not yet in it, so every instance refuses once the team has spent it.
import { bareAppName } from '../../shared/app-name.ts';
import type { Budget, UsageRecord, UsageSummary } from '../../shared/usage.ts';
import { ApiError } from '../errors.ts';
import type { BudgetGate } from '../proxy/engine.ts';
import type { Notifier } from './notifier.ts';
import { type BudgetPeriod, periodOf } from './periods.ts';
import { partsOf, type Rollups } from './rollups.ts';

type Entry = {
  index: number;
  budget: Budget;
  /** The app it covers, as app names are matched (case-folded, no path or .exe); null: every app. */
  app: string | null;
  /** The credential it covers (gateway mode, by name); null: every one. */
  key: string | null;
  /** Its counter in the team's spend hashes (store "redis"). */
  field: string;
  /** Store "redis": the team's spend as Redis last said, this instance's costs sent since, and those not sent yet. */
  team: { base: number; inflight: number; pending: number } | null;
  /** The current period ("YYYY-MM-DD" or "YYYY-MM") and when it ends (epoch ms). */
  period: string;
  end: number;
  spent: number;
  warned: boolean;
  exceeded: boolean;
};

export type BudgetState = UsageSummary['budgets'][number];

const usd = (n: number): string => `$${n.toFixed(n !== 0 && Math.abs(n) < 1 ? 4 : 2)}`;

function describe(b: Budget): string {
  const period = b.period === 'day' ? 'daily' : 'monthly';
  if (b.app && b.key) return `The ${period} budget of app "${b.app}" with key "${b.key}"`;
  if (b.key) return `The ${period} budget of key "${b.key}"`;
  return b.app ? `The ${period} budget of app "${b.app}"` : `The global ${period} budget`;
}

/**
 * A budget's counter in the team's spend hashes (one per local day, one per month): `*` every request, `a:<app>` an
 * app's (bare name), `k:<key>` a credential's, `a:<app>|k:<key>` both.
 */
export function spendField(app: string | null, key: string | null): string {
  if (app !== null && key !== null) return `a:${app}|k:${key}`;
  if (app !== null) return `a:${app}`;
  return key !== null ? `k:${key}` : '*';
}

const sofar = (p: BudgetPeriod): string => (p === 'day' ? 'today' : 'this month');

export class Budgets implements BudgetGate {
  private entries: Entry[] = [];
  private list: readonly Budget[] | null = null;
  private nextEnd = 0;
  private enforced = false;
  /** Store "redis": budgets count the team's spend (teamSpent() keeps them up to date). */
  private teamMode = false;

  constructor(
    private readonly rollups: Rollups,
    private readonly budgets: () => readonly Budget[],
    private readonly notifier: Notifier | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Recounts every budget's spending from the day rollup, without notifying (at start, on a change, a new period). */
  refresh(): void {
    const t = this.now();
    const list = this.budgets();
    this.list = list;
    this.entries = list.map((budget, index) => {
      const { key: period, end } = periodOf(budget.period, t);
      const app = budget.app ? bareAppName(budget.app) : null;
      const key = budget.key ?? null;
      // In a team, until Redis answers: what this instance's own rollups hold (its share of the team's spend).
      const spent = this.spentInRollups(app, key, budget.period, period);
      const exceeded = spent >= budget.limit_usd;
      return {
        index,
        budget,
        app,
        key,
        field: spendField(app, key),
        team: this.teamMode ? { base: spent, inflight: 0, pending: 0 } : null,
        period,
        end,
        spent,
        exceeded,
        warned: exceeded || spent >= budget.warn_at * budget.limit_usd,
      };
    });
    this.nextEnd = this.entries.reduce((m, e) => Math.min(m, e.end), Infinity);
    this.enforced = list.some((b) => b.enforce);
  }

  /** Recounts when the budgets changed or a period ended: called before a record is added to the rollups. */
  sync(): void {
    if (this.budgets() !== this.list || this.now() >= this.nextEnd) this.refresh();
  }

  private spentInRollups(app: string | null, key: string | null, period: BudgetPeriod, when: string): number {
    let sum = 0;
    for (const [date, cells] of this.rollups.day.buckets) {
      if (period === 'day' ? date !== when : !date.startsWith(when)) continue;
      for (const [k, t] of cells) {
        if (app !== null || key !== null) {
          const parts = partsOf(k);
          if (app !== null && (parts.app === null || bareAppName(parts.app) !== app)) continue;
          if (key !== null && parts.key !== key) continue;
        }
        sum += t.cost_usd;
      }
    }
    return sum;
  }

  /** Whether a budget covers a request of this app (bare name, computed once) and credential. */
  private covers(e: Entry, bare: string | null, key: string | null): boolean {
    return (e.app === null || bare === e.app) && (e.key === null || key === e.key);
  }

  /** Counts a request's cost (after sync() and the rollups took it) and notifies the thresholds it crosses. */
  add(r: UsageRecord, t: number): void {
    const cost = r.cost_usd;
    if (!cost || this.entries.length === 0) return;
    const date = this.rollups.dateOf(t);
    const bare = r.app === null ? null : bareAppName(r.app);
    const key = r.key ?? null;
    for (const e of this.entries) {
      if (e.period !== (e.budget.period === 'day' ? date : date.slice(0, 7))) continue;
      if (!this.covers(e, bare, key)) continue;
      e.spent += cost;
      if (e.team) e.team.pending += cost;
      this.crossed(e);
    }
  }

  /**
   * Store "redis": budgets count the team's spend from now on (set before the first record). `teamSpent` then keeps
   * them up to date with what Redis says.
   */
  countTeam(): void {
    this.teamMode = true;
    for (const e of this.entries) e.team ??= { base: e.spent, inflight: 0, pending: 0 };
  }

  /**
   * The spend counters a record adds to (store "redis"): every request's, its app's, its credential's, and the
   * combination of both for the budgets that name both.
   */
  spendFields(r: UsageRecord): string[] {
    const bare = r.app === null ? null : bareAppName(r.app);
    const key = r.key ?? null;
    const out = ['*'];
    if (bare !== null) out.push(spendField(bare, null));
    if (key !== null) out.push(spendField(null, key));
    for (const e of this.entries)
      if (e.app !== null && e.key !== null && bare === e.app && key === e.key && !out.includes(e.field))
        out.push(e.field);
    return out;
  }

  /** The counters the budgets read, by period kind (the team's answer carries these). */
  teamFields(): string[] {
    return [...new Set(this.entries.map((e) => e.field))];
  }

  /** A batch of this instance's costs is being sent to Redis: what the budgets added so far is in it. */
  sending(): void {
    for (const e of this.entries) {
      if (!e.team) continue;
      e.team.inflight += e.team.pending;
      e.team.pending = 0;
    }
  }

  /** The batch did not reach Redis: its costs are sent again with the next one. */
  notSent(): void {
    for (const e of this.entries) {
      if (!e.team) continue;
      e.team.pending += e.team.inflight;
      e.team.inflight = 0;
    }
  }

  /**
   * Redis's answer to a batch (or a read): the team's spend per counter in the day `date` and the month `month`,
   * this instance's batch included. A budget's spend is then that, plus what this instance added since.
   */
  teamSpent(date: string, month: string, day: Map<string, number>, monthly: Map<string, number>): void {
    for (const e of this.entries) {
      if (!e.team) continue;
      const mine = e.budget.period === 'day' ? e.period === date : e.period === month;
      e.team.inflight = 0;
      if (!mine) continue; // an answer about another period than the budget's current one
      e.team.base = (e.budget.period === 'day' ? day : monthly).get(e.field) ?? 0;
      e.spent = e.team.base + e.team.pending;
      this.crossed(e);
    }
  }

  private crossed(e: Entry): void {
    const b = e.budget;
    const subject = `${e.index}:${b.app ?? '*'}:${b.key ?? '*'}:${b.period}:${e.period}`;
    const spent = `${usd(e.spent)} of ${usd(b.limit_usd)} ${sofar(b.period)}`;
    if (!e.exceeded && e.spent >= b.limit_usd) {
      e.exceeded = e.warned = true;
      const then = b.enforce
        ? `Its requests are refused (402 budget_exceeded) until ${new Date(e.end).toLocaleString()}.`
        : 'Requests still go through: set "enforce": true to refuse them.';
      this.notifier?.notify({
        kind: 'budget_exceeded',
        subject,
        title: 'Budget exceeded',
        message: `${describe(b)} is spent: ${spent}. ${then}`,
        app: b.app ?? null,
      });
    } else if (!e.warned && e.spent >= b.warn_at * b.limit_usd) {
      e.warned = true;
      this.notifier?.notify({
        kind: 'budget_warning',
        subject,
        title: `Budget at ${Math.round(b.warn_at * 100)}%`,
        message: `${describe(b)} has ${usd(Math.max(0, b.limit_usd - e.spent))} left: ${spent}.`,
        app: b.app ?? null,
      });
    }
  }

  /** Whether check() may refuse: a budget is enforced, or the budgets changed since they were counted. */
  get mayRefuse(): boolean {
    return this.enforced || this.list !== this.budgets();
  }

  /** Throws 402 budget_exceeded when an enforced budget covering this app and credential (or everything) is spent. */
  check(app: string | null, key: string | null = null): void {
    if (!this.mayRefuse) return;
    this.sync();
    if (!this.enforced) return;
    let bare: string | null | undefined;
    for (const e of this.entries) {
      if (!e.budget.enforce || e.spent < e.budget.limit_usd) continue;
      bare ??= app === null ? null : bareAppName(app);
      if (!this.covers(e, bare, key)) continue;
      throw budgetError(e);
    }
  }

  /** Each budget's state now (the usage summary's `budgets`). */
  states(): BudgetState[] {
    this.sync();
    return this.entries.map(({ budget: b, spent }) => ({
      app: b.app ?? null,
      key: b.key ?? null,
      period: b.period,
      limit_usd: b.limit_usd,
      spent_usd: spent,
      warn_at: b.warn_at,
      enforce: b.enforce,
      state: spent >= b.limit_usd ? 'exceeded' : spent >= b.warn_at * b.limit_usd ? 'warning' : 'ok',
    }));
  }
}

function budgetError(e: Entry): ApiError {
  const b = e.budget;
  const resets = new Date(e.end);
  const err = new ApiError(
    'budget_exceeded',
    `${describe(b)} (${usd(b.limit_usd)}) is spent: ${usd(e.spent)} ${sofar(b.period)}.`,
    `Wait until it resets (local ${b.period === 'day' ? 'midnight' : 'start of next month'}, ${resets.toISOString()}), ` +
      `or raise limit_usd or remove budgets[${e.index}] in config.json (Settings, Budgets).`,
    {
      budget: {
        index: e.index,
        app: b.app ?? null,
        key: b.key ?? null,
        period: b.period,
        limit_usd: b.limit_usd,
        enforce: b.enforce,
      },
      spent_usd: e.spent,
      resets_at: resets.toISOString(),
    },
  );
  err.headers['x-should-retry'] = 'false';
  return err;
}
