// The previous version's limit defaults, written into config.json: read as "not set" (docs/gateway.md, "Limits").
//
// The previous version defaulted every scope to 60 requests/min, 100,000 tokens/min and 10 in flight, local mode
// included, and its desktop app wrote those defaults into config.json: electron-store validates with ajv's
// useDefaults, so any save (the tray's "Start on login") filled in every field of `limits` — enabled, rpm, tpm,
// concurrency and window_ms — whether the user chose them or not. Local mode now has no limits unless the user sets
// them, so a value that is only the old default written out must not keep limiting.
//
// The rule, applied once when config.json is opened: a `limits` object that holds all five of those fields (as the
// previous desktop app wrote it) loses each of rpm, tpm and concurrency still at its old default. A value the user
// changed stays; a block that lacks any of the five (e.g. a hand-written {"rpm": 60}) is never touched.
// store.ts rewrites the file without them (same indentation) and says what it removed.

export const PREVIOUS_LIMIT_DEFAULTS = { rpm: 60, tpm: 100_000, concurrency: 10 } as const;
const WRITTEN_BY_PREVIOUS_DESKTOP = ['enabled', 'rpm', 'tpm', 'concurrency', 'window_ms'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The raw config without the previous version's written-out limit defaults, or null when it holds none. */
export function dropPreviousLimitDefaults(raw: unknown): { raw: Record<string, unknown>; removed: string[] } | null {
  if (!isObject(raw) || !isObject(raw.limits)) return null;
  const limits = raw.limits;
  if (!WRITTEN_BY_PREVIOUS_DESKTOP.every((k) => k in limits)) return null;
  const removed = (Object.keys(PREVIOUS_LIMIT_DEFAULTS) as (keyof typeof PREVIOUS_LIMIT_DEFAULTS)[]).filter(
    (k) => limits[k] === PREVIOUS_LIMIT_DEFAULTS[k],
  );
  if (removed.length === 0) return null;
  const kept = { ...limits };
  for (const k of removed) delete kept[k];
  return { raw: { ...raw, limits: kept }, removed: removed.map((k) => `limits.${k}`) };
}

/** The indentation a JSON text uses ("\t" as electron-store writes, else its number of spaces; 2 by default). */
export function indentOf(text: string): string | number {
  const m = /\n([ \t]+)"/.exec(text);
  if (!m) return 2;
  return m[1]!.startsWith('\t') ? '\t' : m[1]!.length;
}

/** The notice for the log: what was removed from which file, why, and how to keep a value. */
export function previousLimitsNotice(file: string, removed: string[], rewritten: boolean): string {
  const values = removed.map(
    (f) => `${f} ${PREVIOUS_LIMIT_DEFAULTS[f.slice(7) as keyof typeof PREVIOUS_LIMIT_DEFAULTS]}`,
  );
  const one = removed.length === 1;
  return (
    `${file}: ${values.join(', ')} ${one ? 'is' : 'are'} the previous version's default${one ? '' : 's'}, written ` +
    `into the file by its desktop app, so ${one ? 'it is' : 'they are'} read as not set` +
    (rewritten ? ' and removed from the file. ' : ' (the file could not be rewritten). ') +
    'Local mode has no limits unless you set them; gateway mode applies 60 requests/min, 100000 tokens/min and ' +
    '10 in flight per credential by default. To limit local mode to exactly these values, write them into ' +
    '"limits" without "window_ms".'
  );
}
