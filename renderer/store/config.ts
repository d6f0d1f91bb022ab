// Config slice: config.json as the server wrote it (keys masked), and saving with the shared schema first.
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { StatusResponse } from '../../shared/admin.ts';
import { type ConfigInput, type ConfigProblem, parseConfig, problemToText } from '../../shared/config.ts';
import type { ApiFailure, ConfigDocument, SwitchboardApi } from '../../shared/ipc.ts';

/**
 * The outcome of a save, in words for the page: on success, what the saved config does that is likely not meant
 * (`warnings`); on failure, the messages, and the config problems by path (the schema's, or the server's
 * `config_invalid` details) for the page to put next to its fields.
 */
export type SaveOutcome =
  | {
      ok: true;
      warnings: ConfigProblem[];
      /** The server's team_note: saved on this instance only. */ teamNote?: string;
    }
  | { ok: false; messages: string[]; problems: ConfigProblem[] };

/** The config problems of a failure (`config_invalid`'s details), or none. */
export function failureProblems(f: ApiFailure): ConfigProblem[] {
  if (!Array.isArray(f.error.details)) return [];
  return (f.error.details as Partial<ConfigProblem>[])
    .filter((d) => typeof d?.path === 'string' && typeof d.message === 'string')
    .map((d) => ({ path: d.path!, value: d.value, message: d.message! }));
}

export function failureText(f: ApiFailure): string[] {
  const details = Array.isArray(f.error.details)
    ? (f.error.details as { path?: string; message?: string; field?: string }[]).map((d) =>
        `${d.path ?? d.field ?? ''} ${d.message ?? ''}`.trim(),
      )
    : [];
  return [
    f.error.message + (f.error.action ? ` ${f.error.action}` : ''),
    ...details.filter((d) => !f.error.message.includes(d)),
  ];
}

export type ConfigSlice = {
  status: StatusResponse | null;
  statusError: string | null;
  configDoc: ConfigDocument | null;
  /** The last successful save's team note (shown as a banner: saved on this instance only); null without one. */
  saveNote: string | null;
  refreshStatus: () => Promise<void>;
  loadConfig: () => Promise<void>;
  /** Validates with the shared schema; sends only a valid config; reloads on success. */
  saveConfig: (next: ConfigInput) => Promise<SaveOutcome>;
  /** The stored config (masked keys) as an editable object. */
  currentConfig: () => ConfigInput;
};

export const createConfigSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], ConfigSlice> =>
  (set, get) => ({
    status: null,
    statusError: null,
    configDoc: null,
    saveNote: null,
    refreshStatus: async () => {
      const r = await api.getStatus();
      if (r.ok) set({ status: r.data, statusError: null });
      else set({ statusError: failureText(r.failure).join(' ') });
    },
    loadConfig: async () => {
      const r = await api.getConfig();
      if (r.ok) set({ configDoc: r.data });
      else set({ statusError: failureText(r.failure).join(' ') });
    },
    saveConfig: async (next) => {
      const local = parseConfig(next);
      if (!local.ok) return { ok: false, messages: local.problems.map(problemToText), problems: local.problems };
      const r = await api.saveConfig(next);
      if (!r.ok) return { ok: false, messages: failureText(r.failure), problems: failureProblems(r.failure) };
      set({ configDoc: r.data, saveNote: r.data.team_note ?? null });
      void get().refreshStatus();
      return { ok: true, warnings: r.data.warnings ?? [], ...(r.data.team_note ? { teamNote: r.data.team_note } : {}) };
    },
    currentConfig: () => structuredClone((get().configDoc?.config ?? {}) as ConfigInput),
  });
