// Usage slice: today's summary (totals, per app / provider / model, budgets), the chart's range and its summary,
// and the latest notices. Live while a page watches it: each request-log event asks for a refresh, at most one a
// second (the first at once, the last never lost).
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import type { Notification, UsageRecord, UsageSummary } from '../../shared/usage.ts';
import { failureText } from './config.ts';

export const CHART_RANGES = ['1h', '24h', '7d'] as const;
export type ChartRange = (typeof CHART_RANGES)[number];
export const NOTICE_CAP = 20;
/** The newest requests the Overview lists. */
export const RECENT_REQUESTS = 20;
/** The least time between two refreshes driven by traffic. */
export const USAGE_REFRESH_MS = 1000;

export type UsageSlice = {
  usageToday: UsageSummary | null;
  usageChart: UsageSummary | null;
  /** The newest requests as the usage store keeps them (tokens, cost), newest first. */
  usageRecent: UsageRecord[];
  chartRange: ChartRange;
  usageError: string | null;
  /** Newest first. */
  notices: Notification[];
  refreshUsage: () => Promise<void>;
  setChartRange: (range: ChartRange) => Promise<void>;
  /** A page shows usage: refreshes now, and on traffic until the returned function is called. */
  watchUsage: () => () => void;
  /** A request went through (a request-log event): refresh soon if a page watches. */
  noteTraffic: () => void;
  addNotice: (n: Notification) => void;
};

/**
 * Calls `run` at most once per `ms`: at once when idle, else once at the end of the window for every call made
 * during it (so the last change is always shown). The next window starts when a run ends.
 */
export function throttle(run: () => Promise<void>, ms: number): { poke: () => void; stop: () => void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending = false;
  let running = false;
  const fire = () => {
    pending = false;
    running = true;
    void run().finally(() => {
      running = false;
      timer = setTimeout(() => {
        timer = null;
        if (pending) fire();
      }, ms);
    });
  };
  return {
    poke: () => {
      if (timer || running) pending = true;
      else fire();
    },
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = null;
      pending = false;
    },
  };
}

export const createUsageSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], UsageSlice> =>
  (set, get) => {
    let watchers = 0;
    const refresh = async () => {
      const range = get().chartRange;
      const [today, chart, recent] = await Promise.all([
        api.getUsage({ range: 'today' }),
        api.getUsage({ range }),
        api.usageRequests({ limit: RECENT_REQUESTS }),
      ]);
      const failed = !today.ok ? today.failure : !chart.ok ? chart.failure : null;
      set({
        ...(today.ok ? { usageToday: today.data } : {}),
        // A range changed while this was on its way: its own refresh brings the chart.
        ...(chart.ok && get().chartRange === range ? { usageChart: chart.data } : {}),
        ...(recent.ok ? { usageRecent: recent.data.data } : {}),
        usageError: failed ? failureText(failed).join(' ') : null,
      });
    };
    const live = throttle(refresh, USAGE_REFRESH_MS);
    return {
      usageToday: null,
      usageChart: null,
      usageRecent: [],
      chartRange: '24h',
      usageError: null,
      notices: [],
      refreshUsage: refresh,
      setChartRange: async (range) => {
        set({ chartRange: range });
        const r = await api.getUsage({ range });
        if (r.ok && get().chartRange === range) set({ usageChart: r.data, usageError: null });
        else if (!r.ok) set({ usageError: failureText(r.failure).join(' ') });
      },
      watchUsage: () => {
        watchers++;
        void refresh();
        return () => {
          watchers--;
          if (watchers === 0) live.stop();
        };
      },
      noteTraffic: () => {
        if (watchers > 0) live.poke();
      },
      addNotice: (n) => set({ notices: [n, ...get().notices].slice(0, NOTICE_CAP) }),
    };
  };
