// Logs slice: the live tail (newest first, capped), batched so 1000 lines a minute cost one render per flush.
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { RequestLogEntry } from '../../shared/admin.ts';

export const LOG_CAP = 5000;
export type LogFilter = { app: string; provider: string; status: '' | 'ok' | 'error'; model: string };

export type LogsSlice = {
  logs: RequestLogEntry[];
  logsPaused: boolean;
  /** Entries that arrived while paused (shown on resume). */
  logsHeld: number;
  logFilter: LogFilter;
  selectedLogId: string | null;
  setLogs: (entries: RequestLogEntry[]) => void;
  /** Appends a batch (oldest first, as they arrived). */
  appendLogs: (batch: RequestLogEntry[]) => void;
  setLogsPaused: (paused: boolean) => void;
  setLogFilter: (f: Partial<LogFilter>) => void;
  selectLog: (id: string | null) => void;
};

export const createLogsSlice: StateCreator<AppState, [], [], LogsSlice> = (set, get) => {
  let held: RequestLogEntry[] = [];
  return {
    logs: [],
    logsPaused: false,
    logsHeld: 0,
    logFilter: { app: '', provider: '', status: '', model: '' },
    selectedLogId: null,
    setLogs: (entries) => set({ logs: [...entries].sort((a, b) => (a.time < b.time ? 1 : -1)).slice(0, LOG_CAP) }),
    appendLogs: (batch) => {
      if (batch.length === 0) return;
      if (get().logsPaused) {
        held = held.concat(batch);
        set({ logsHeld: held.length });
        return;
      }
      const seen = new Set(get().logs.map((e) => e.id));
      const fresh = batch.filter((e) => !seen.has(e.id)).reverse();
      set({ logs: fresh.concat(get().logs).slice(0, LOG_CAP) });
    },
    setLogsPaused: (paused) => {
      set({ logsPaused: paused });
      if (!paused) {
        const flush = held;
        held = [];
        set({ logsHeld: 0 });
        get().appendLogs(flush);
      }
    },
    setLogFilter: (f) => set({ logFilter: { ...get().logFilter, ...f } }),
    selectLog: (id) => set({ selectedLogId: id }),
  };
};

export function filterLogs(logs: RequestLogEntry[], f: LogFilter): RequestLogEntry[] {
  const model = f.model.trim().toLowerCase();
  return logs.filter(
    (e) =>
      (!f.app || (e.app ?? '') === f.app) &&
      (!f.provider || (e.provider ?? '') === f.provider) &&
      (!f.status || (f.status === 'ok' ? e.status < 400 : e.status >= 400)) &&
      (!model || `${e.requested_model ?? ''} ${e.routed_model ?? ''}`.toLowerCase().includes(model)),
  );
}

/** Collects pushed items (log entries, agent events) and hands them to the store at most once per `ms` (one render per batch). */
export function logBatcher<T>(flush: (batch: T[]) => void, ms = 200): { push: (e: T) => void; stop: () => void } {
  let pending: T[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    push(e) {
      pending.push(e);
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        const batch = pending;
        pending = [];
        flush(batch);
      }, ms);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      pending = [];
    },
  };
}
