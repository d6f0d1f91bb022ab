// Logs slice: the live tail (newest first by when each request started, capped), batched so 1000 lines a minute cost
// one render per flush. An entry arrives when its request finishes, so a slow stream is placed by its start time among
// the requests that started after it, never on top (issue 34, bug 4).
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
    // The server's recent entries (the tail of requests.jsonl after a restart too), merged with any that came live.
    setLogs: (entries) => set({ logs: mergeNewestFirst(get().logs, entries) }),
    appendLogs: (batch) => {
      if (batch.length === 0) return;
      if (get().logsPaused) {
        held = held.concat(batch);
        set({ logsHeld: held.length });
        return;
      }
      set({ logs: mergeNewestFirst(get().logs, batch) });
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

const startOf = (e: RequestLogEntry) => Date.parse(e.time);

/**
 * `shown` (newest first) with `batch` (any order) placed by start time, newest first, each id once, capped at
 * LOG_CAP. The usual batch is newer than everything shown: it goes on top without sorting what is there.
 */
export function mergeNewestFirst(shown: RequestLogEntry[], batch: RequestLogEntry[]): RequestLogEntry[] {
  const seen = new Set(shown.map((e) => e.id));
  const unseen: { e: RequestLogEntry; i: number; t: number }[] = [];
  batch.forEach((e, i) => {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    unseen.push({ e, i, t: startOf(e) });
  });
  const fresh = unseen.sort((a, b) => b.t - a.t || b.i - a.i).map((x) => x.e);
  if (fresh.length === 0) return shown;
  if (shown.length === 0 || startOf(fresh[fresh.length - 1]!) >= startOf(shown[0]!))
    return fresh.concat(shown).slice(0, LOG_CAP);
  const out: RequestLogEntry[] = [];
  let i = 0;
  let j = 0;
  while (out.length < LOG_CAP && (i < fresh.length || j < shown.length)) {
    if (j >= shown.length || (i < fresh.length && startOf(fresh[i]!) >= startOf(shown[j]!))) out.push(fresh[i++]!);
    else out.push(shown[j++]!);
  }
  return out;
}

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
