// Budgets (config.json `budgets`): what each has spent in its current local day or month, counted from the day rollup
// when the budgets change or a period ends and kept up to date by each request's cost. Crossing `warn_at` notifies a
// warning once per period, the limit a budget_exceeded notice; with `enforce`, model requests of the budget's scope
// (its app, or everything) are refused before forwarding: 402 budget_exceeded, naming the budget and the fix.
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
  /** The app it covers, as app names are matched (case-folded, no path or .exe); null: every request. */
  app: string | null;
  /** The current period ("YYYY-MM-DD" or "YYYY-MM") and when it ends (epoch ms). */
  key: string;
  end: number;
  spent: number;
  warned: boolean;
  exceeded: boolean;
};

export type BudgetState = UsageSummary['budgets'][number];

const usd = (n: number): string => `$${n.toFixed(n !== 0 && Math.abs(n) < 1 ? 4 : 2)}`;

function describe(b: Budget): string {
  const period = b.period === 'day' ? 'daily' : 'monthly';
  return b.app ? `The ${period} budget of app "${b.app}"` : `The global ${period} budget`;
}

const sofar = (p: BudgetPeriod): string => (p === 'day' ? 'today' : 'this month');

export class Budgets implements BudgetGate {
  private entries: Entry[] = [];
  private list: readonly Budget[] | null = null;
  private nextEnd = 0;
  private enforced = false;

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
      const { key, end } = periodOf(budget.period, t);
      const app = budget.app ? bareAppName(budget.app) : null;
      const spent = this.spentInRollups(app, budget.period, key);
      const exceeded = spent >= budget.limit_usd;
      return {
        index,
        budget,
        app,
        key,
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

  private spentInRollups(app: string | null, period: BudgetPeriod, key: string): number {
    let sum = 0;
    for (const [date, cells] of this.rollups.day.buckets) {
      if (period === 'day' ? date !== key : !date.startsWith(key)) continue;
      for (const [k, t] of cells) {
        if (app !== null) {
          const a = partsOf(k).app;
          if (a === null || bareAppName(a) !== app) continue;
        }
        sum += t.cost_usd;
      }
    }
    return sum;
  }

  /** Counts a request's cost (after sync() and the rollups took it) and notifies the thresholds it crosses. */
  add(r: UsageRecord, t: number): void {
    const cost = r.cost_usd;
    if (!cost || this.entries.length === 0) return;
    const date = this.rollups.dateOf(t);
    let bare: string | null | undefined;
    for (const e of this.entries) {
      if (e.key !== (e.budget.period === 'day' ? date : date.slice(0, 7))) continue;
      if (e.app !== null) {
        bare ??= r.app === null ? null : bareAppName(r.app);
        if (bare !== e.app) continue;
      }
      e.spent += cost;
      this.crossed(e);
    }
  }

  private crossed(e: Entry): void {
    const b = e.budget;
    const subject = `${e.index}:${b.app ?? '*'}:${b.period}:${e.key}`;
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

  /** Throws 402 budget_exceeded when an enforced budget covering this app (or every request) is spent. */
  check(app: string | null): void {
    if (!this.mayRefuse) return;
    this.sync();
    if (!this.enforced) return;
    let bare: string | null | undefined;
    for (const e of this.entries) {
      if (!e.budget.enforce || e.spent < e.budget.limit_usd) continue;
      if (e.app !== null) {
        bare ??= app === null ? null : bareAppName(app);
        if (bare !== e.app) continue;
      }
      throw budgetError(e);
    }
  }

  /** Each budget's state now (the usage summary's `budgets`). */
  states(): BudgetState[] {
    this.sync();
    return this.entries.map(({ budget: b, spent }) => ({
      app: b.app ?? null,
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
      budget: { index: e.index, app: b.app ?? null, period: b.period, limit_usd: b.limit_usd, enforce: b.enforce },
      spent_usd: e.spent,
      resets_at: resets.toISOString(),
    },
  );
  err.headers['x-should-retry'] = 'false';
  return err;
}
