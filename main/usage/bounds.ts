// The usage store stays bounded whatever clients send (issue 33, item 4): app names come from request headers
// (X-Switchboard-App, X-Title, an app: key), model names from request bodies, so 3,000 requests with distinct 12 KB
// app names grew each rollup from 2.5 to 37 MB, slowed every summary and every start. Here:
// - every name a record carries is cut to a length (apps to 64 characters, as the metrics' labels are);
// - per local day, only the first APPS_PER_DAY apps (plus the apps config.json names: app_rules, limits.per_app,
//   budgets) get rows of their own, the rest are counted as `other`; so are models past MODELS_PER_DAY, providers
//   past PROVIDERS_PER_DAY (plus config.json's providers) and credentials past KEYS_PER_DAY (gateway mode: key names
//   and JWT subjects; plus the ones limits.per_key and budgets name);
// - each rollup bucket holds at most CELLS_PER_BUCKET[g] cells: past it, a new app × provider × model is counted in the
//   bucket's overflow cell (its app if config.json names it, its provider if configured, else `other`).
// The decisions are made in the order records arrive, and rebuilt from the day rollup at start, so a replay after a
// crash makes the same ones.
import { bareAppName } from '../../shared/app-name.ts';
import type { UsageRecord } from '../../shared/usage.ts';
import { type CellBounds, type Granularity, keyOf, partsOf } from './rollups.ts';

/** What names past the bounds are counted as (the metrics' label for the same). */
export const OTHER = 'other';

export const NAME_MAX = { app: 64, provider: 64, model: 128, path: 256, key: 64, instance: 128 } as const;
export const APPS_PER_DAY = 50;
/** Credentials (gateway keys, PATs, JWT subjects) counted apart per day; the rest as `other`. */
export const KEYS_PER_DAY = 200;
export const MODELS_PER_DAY = 100;
export const PROVIDERS_PER_DAY = 20;
export const CELLS_PER_BUCKET: Readonly<Record<Exclude<Granularity, 'session'>, number>> = {
  minute: 50,
  hour: 100,
  day: 500,
};

const cut = (s: string | null, n: number): string | null => (s !== null && s.length > n ? s.slice(0, n) : s);

/** The record with every name cut to its length (the same object when nothing is too long). */
export function boundRecord(r: UsageRecord): UsageRecord {
  if (
    (r.app?.length ?? 0) <= NAME_MAX.app &&
    (r.provider?.length ?? 0) <= NAME_MAX.provider &&
    (r.model?.length ?? 0) <= NAME_MAX.model &&
    (r.requested_model?.length ?? 0) <= NAME_MAX.model &&
    r.path.length <= NAME_MAX.path &&
    (r.key?.length ?? 0) <= NAME_MAX.key &&
    (r.instance?.length ?? 0) <= NAME_MAX.instance
  )
    return r;
  const out: UsageRecord = {
    ...r,
    app: cut(r.app, NAME_MAX.app),
    provider: cut(r.provider, NAME_MAX.provider),
    model: cut(r.model, NAME_MAX.model),
    requested_model: cut(r.requested_model, NAME_MAX.model),
    path: cut(r.path, NAME_MAX.path)!,
  };
  if (r.key !== undefined) out.key = cut(r.key, NAME_MAX.key);
  if (r.instance !== undefined) out.instance = cut(r.instance, NAME_MAX.instance);
  return out;
}

/** The names that always keep rows of their own: config.json's apps (bare names), providers and key names. */
export type Kept = { apps: ReadonlySet<string>; providers: ReadonlySet<string>; keys?: ReadonlySet<string> };
export const NOTHING_KEPT: Kept = { apps: new Set(), providers: new Set() };

type Day = { apps: Set<string>; models: Set<string>; providers: Set<string>; keys: Set<string> };

export class KeyBounds {
  private readonly days = new Map<string, Day>();

  constructor(private readonly kept: () => Kept = () => NOTHING_KEPT) {}

  private day(date: string): Day {
    let d = this.days.get(date);
    if (!d) this.days.set(date, (d = { apps: new Set(), models: new Set(), providers: new Set(), keys: new Set() }));
    return d;
  }

  /** Takes one name into a day's set, or answers OTHER when the set is full (a name seen that day keeps its row). */
  private admit(set: Set<string>, name: string | null, max: number, keep: boolean): string | null {
    if (name === null || name === OTHER || set.has(name)) return name;
    if (!keep && set.size >= max) return OTHER;
    set.add(name);
    return name;
  }

  /** The rollup key of a (bounded) record on a local date: its names, or `other` for those past the day's bounds. */
  keyOf(r: UsageRecord, date: string): string {
    const d = this.day(date);
    const kept = this.kept();
    const app = this.admit(d.apps, r.app, APPS_PER_DAY, r.app !== null && kept.apps.has(bareAppName(r.app)));
    const provider = this.admit(
      d.providers,
      r.provider,
      PROVIDERS_PER_DAY,
      r.provider !== null && kept.providers.has(r.provider),
    );
    const model = this.admit(d.models, r.model, MODELS_PER_DAY, false);
    const credential = r.key ?? null;
    const key =
      credential === null ? null : this.admit(d.keys, credential, KEYS_PER_DAY, kept.keys?.has(credential) === true);
    return keyOf(app, provider, model, key);
  }

  /**
   * The cell a new key is counted in when its bucket is full: its app, provider and credential if config.json names
   * them (a budget's counts stay in its row).
   */
  overflowKey(key: string): string {
    const { app, provider, key: credential } = partsOf(key);
    const kept = this.kept();
    return keyOf(
      app !== null && kept.apps.has(bareAppName(app)) ? app : OTHER,
      provider !== null && kept.providers.has(provider) ? provider : OTHER,
      OTHER,
      credential === null ? null : kept.keys?.has(credential) ? credential : OTHER,
    );
  }

  /** A key the day rollup holds for `date` (loaded at start): its names count against that day's bounds. */
  learn(date: string, key: string): void {
    const { app, provider, model, key: credential } = partsOf(key);
    const d = this.day(date);
    if (app !== null) d.apps.add(app);
    if (provider !== null) d.providers.add(provider);
    if (model !== null) d.models.add(model);
    if (credential !== null) d.keys.add(credential);
  }

  /** The per-bucket bounds of the three rollups, with this instance's overflow cell. */
  cellBounds(): CellBounds {
    const overflow = (key: string) => this.overflowKey(key);
    return {
      minute: { cells: CELLS_PER_BUCKET.minute, overflow },
      hour: { cells: CELLS_PER_BUCKET.hour, overflow },
      day: { cells: CELLS_PER_BUCKET.day, overflow },
    };
  }

  /** Forgets the days before `oldest` (a local date). */
  prune(oldest: string): void {
    for (const date of this.days.keys()) if (date < oldest) this.days.delete(date);
  }
}
