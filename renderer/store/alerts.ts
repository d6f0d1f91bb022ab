// Alerts slice: what the nav marks on every page (issue 34): budgets exceeded today (Overview's entry) and tool calls
// waiting for your approval (Agents' entry). Read at start, every 10 s, and at once on a budget or approval notice.
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';

export type AlertsSlice = {
  /** Budgets at or past their limit in their current period (names: "all apps, today", "cursor, this month"). */
  exceededBudgets: string[];
  /** Tool calls waiting for a person's decision. */
  pendingApprovals: number;
  refreshAlerts: () => Promise<void>;
};

export const createAlertsSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], AlertsSlice> =>
  (set) => ({
    exceededBudgets: [],
    pendingApprovals: 0,
    refreshAlerts: async () => {
      const [usage, approvals] = await Promise.all([
        api.getUsage({ range: 'today' }),
        api.agentApi({ method: 'GET', path: '/approvals?status=pending' }),
      ]);
      if (usage.ok)
        set({
          exceededBudgets: usage.data.budgets
            .filter((b) => b.state === 'exceeded')
            .map((b) => `${b.app ?? 'all apps'}, ${b.period === 'day' ? 'today' : 'this month'}`),
        });
      if (approvals.ok) {
        const data = (approvals.data as { data?: unknown[] } | null)?.data;
        set({ pendingApprovals: Array.isArray(data) ? data.length : 0 });
      }
    },
  });
