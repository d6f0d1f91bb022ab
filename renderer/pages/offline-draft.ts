// The Routing page's "Offline fallback" section as it edits routing.offline (docs/routing.md, "Offline fallback"): the
// switch, the local providers in order, the model map as rows (order kept: the first glob that matches wins) and the
// context windows by local model, as text until saved. Pure: the page renders it, the unit test pins it.
import type { ConfigInput } from '../../shared/config.ts';
import type { FieldRule } from '../components/field-errors.ts';

type OfflineInput = NonNullable<NonNullable<ConfigInput['routing']>['offline']>;

/** One row of the model map: a glob on the model the client asked for → the local model that serves it. */
export type MapRow = { glob: string; local: string };
export type OfflineDraft = {
  enabled: boolean;
  providers: string[];
  map: MapRow[];
  /** Context windows by local model name, as typed ('' = not set). */
  windows: Record<string, string>;
};

export function offlineDraft(off: OfflineInput | undefined): OfflineDraft {
  return {
    enabled: off?.enabled === true,
    providers: [...(off?.providers ?? [])],
    map: Object.entries(off?.model_map ?? {}).map(([glob, local]) => ({ glob, local })),
    windows: Object.fromEntries(Object.entries(off?.context_windows ?? {}).map(([m, n]) => [m, String(n)])),
  };
}

/** The local models whose window the page offers: those of the map (in its order), then any other already set. */
export function windowModels(d: OfflineDraft): string[] {
  const out: string[] = [];
  for (const r of d.map) if (r.local.trim() !== '' && !out.includes(r.local.trim())) out.push(r.local.trim());
  for (const m of Object.keys(d.windows)) if (!out.includes(m)) out.push(m);
  return out;
}

/** The rows config.json holds: fully blank rows are left out. */
const filled = (d: OfflineDraft) => d.map.filter((r) => r.glob.trim() !== '' || r.local.trim() !== '');

/**
 * What the rows cannot say in config.json (a map keys each glob once), by field key: a row with a local model and no
 * glob, a glob a row above already has. Empty when the draft can be written.
 */
export function rowErrors(d: OfflineDraft): Record<string, string> {
  const errors: Record<string, string> = {};
  const seen = new Map<string, number>();
  d.map.forEach((r, i) => {
    const glob = r.glob.trim();
    if (glob === '' && r.local.trim() !== '') errors[`offline-map-${i}-glob`] = 'Type a model pattern, e.g. claude-*.';
    if (glob === '') return;
    const first = seen.get(glob);
    if (first !== undefined)
      errors[`offline-map-${i}-glob`] = `Row ${first + 1} has this pattern already: the first one wins, remove one.`;
    else seen.set(glob, i);
  });
  return errors;
}

/** The index in `d.map` of the row config.json's `model_map[glob]` comes from. */
export function rowOfGlob(d: OfflineDraft, glob: string): number {
  return d.map.findIndex((r) => r.glob.trim() === glob);
}

/**
 * routing.offline as config.json will hold it (undefined: leave it out, when it was not there and nothing is set).
 * A window that is not a whole number is kept as typed, for the schema to say so at its field.
 */
export function offlineConfig(d: OfflineDraft, before: OfflineInput | undefined): OfflineInput | undefined {
  const rows = filled(d);
  const models = windowModels(d);
  const windows: Record<string, number> = {};
  for (const m of models) {
    const v = (d.windows[m] ?? '').trim().replace(/[,_ ]/g, '');
    if (v === '') continue;
    windows[m] = /^\d+$/.test(v) ? Number(v) : (v as unknown as number);
  }
  const blank = !d.enabled && d.providers.length === 0 && rows.length === 0 && Object.keys(windows).length === 0;
  if (blank && before === undefined) return undefined;
  return {
    enabled: d.enabled,
    providers: d.providers,
    model_map: Object.fromEntries(rows.map((r) => [r.glob.trim(), r.local.trim()])),
    ...(Object.keys(windows).length > 0 ? { context_windows: windows } : {}),
  };
}

const LOOPBACK = /^(localhost|.+\.localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1|0\.0\.0\.0)$/i;

/** Whether a provider looks local: type ollama, or its base_url on this machine (localhost, 127.x, [::1]). */
export function looksLocal(p: { type?: string | undefined; base_url?: string | undefined }): boolean {
  if (p.type === 'ollama') return true;
  try {
    return LOOPBACK.test(new URL(p.base_url ?? '').hostname);
  } catch {
    return false;
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where the schema's problems with routing.offline go on the page: the providers list (and each provider), each map
 * row (by its glob: config.json's path names the glob, not the row), each window.
 */
export function offlineFields(d: OfflineDraft): FieldRule[] {
  const rows: FieldRule[] = d.map.flatMap((r, i) =>
    r.glob.trim() === ''
      ? []
      : [
          {
            path: new RegExp(`^routing\\.offline\\.model_map\\.${escape(r.glob.trim())}$`),
            key: () => `offline-map-${i}-local`,
            label: `The local model of row ${i + 1}`,
          },
        ],
  );
  const windows: FieldRule[] = windowModels(d).map((m, i) => ({
    path: new RegExp(`^routing\\.offline\\.context_windows\\.${escape(m)}$`),
    key: () => `offline-window-${i}`,
    label: `The context window of ${m}`,
  }));
  return [
    { path: /^routing\.offline\.providers$/, key: () => 'offline-providers', label: 'Local providers' },
    {
      path: /^routing\.offline\.providers\[(\d+)\]$/,
      key: (m) => `offline-provider-${m[1]}`,
      label: 'Local provider',
    },
    ...rows,
    { path: /^routing\.offline\.model_map/, key: () => 'offline-map', label: 'The model map' },
    ...windows,
    { path: /^routing\.offline\.context_windows/, key: () => 'offline-windows', label: 'Context windows' },
  ];
}
