// Model discovery: each enabled provider's own model list (fetched, cached, refreshed by the health check), and per
// calling app what routing would serve (GET /v1/models, /v1beta/models, /api/tags): every listed model whose route for
// that app reaches a provider that lists it, and every rule pattern's concrete names (`gpt-4o`, `claude-{opus,sonnet}-4`).
import micromatch from 'micromatch';
import type { ProviderPool, ProviderRuntime } from './provider-pool.ts';
import type { Router } from './routing.ts';

export type ModelEntry = { id: string; object: 'model'; created: number; owned_by: string };
export type ModelListing = { data: ModelEntry[]; failed: { provider: string; error: string }[] };

/** How long a provider's list is fresh without a health check refreshing it. */
const TTL_MS = 60_000;
/** A list that could not be fetched is tried again after this long. */
const RETRY_FAILED_MS = 5_000;
/** At most this many ids are kept of one provider's list, each at most this long (a list is outside input). */
export const MAX_IDS_PER_PROVIDER = 10_000;
export const MAX_ID_LENGTH = 256;
/** At most this many concrete names are taken from one rule pattern's braces (`{a,b}{c,d}…` grows fast). */
const MAX_NAMES_PER_PATTERN = 100;

type ProviderModels = { ids: string[]; created: number; at: number; error: string | null };

/** What the listing reads of the config in force. */
export type ListingConfig = { health_check: { interval_ms: number; timeout_ms: number } };

/** A rule pattern's concrete model names: its brace expansions that are not globs (`gpt-*` has none). */
export function concreteNames(pattern: string): string[] {
  let names: string[];
  try {
    names = micromatch.braces(pattern, { expand: true });
  } catch {
    return [];
  }
  return names.slice(0, MAX_NAMES_PER_PATTERN).filter((n) => n !== '' && !micromatch.scan(n).isGlob);
}

/** One provider's model ids (also the active health check), capped in number and length. */
export async function fetchModels(p: ProviderRuntime, timeoutMs: number): Promise<string[]> {
  const res = await p.agent.request({
    origin: p.origin,
    path: p.basePath + p.kind.modelsPath,
    method: 'GET',
    headers: { accept: 'application/json', ...p.requestHeaders() },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.body.text();
  if (res.statusCode >= 400)
    throw Object.assign(new Error(`HTTP ${res.statusCode} from ${p.kind.modelsPath}`), { status: res.statusCode });
  const ids = p.kind.parseModels(JSON.parse(text)).filter((id) => id.length <= MAX_ID_LENGTH);
  return ids.length > MAX_IDS_PER_PROVIDER ? ids.slice(0, MAX_IDS_PER_PROVIDER) : ids;
}

const sameIds = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((id, i) => id === b[i]);

export class ModelCatalog {
  private readonly lists = new Map<string, ProviderModels>();
  private readonly inflight = new Map<string, Promise<void>>();
  /** Bumped whenever a provider's list (or its error) changes: the per-app listings are then made again. */
  private version = 0;
  /** Per app rule (`''`: callers no app rule names): the listing, the router and the version it was made from. */
  private readonly forApp = new Map<string, { router: Router; version: number; listing: ModelListing }>();

  constructor(
    private readonly pool: ProviderPool,
    private readonly now: () => number = Date.now,
  ) {}

  /** After a config change: providers and rules may differ, so every list and listing is made afresh. */
  invalidate(): void {
    this.lists.clear();
    this.forApp.clear();
    this.version++;
  }

  /** A provider's list as fetched (by the health check or a listing), or why it could not be. */
  record(provider: string, ids: string[] | null, error: string | null): void {
    const old = this.lists.get(provider);
    const at = this.now();
    if (ids) {
      if (old && !old.error && sameIds(old.ids, ids)) {
        old.at = at;
        return;
      }
      this.lists.set(provider, { ids, created: Math.floor(at / 1000), at, error: null });
    } else {
      // A provider that goes down keeps its last list out of the listing (routing to it would fail).
      this.lists.set(provider, { ids: [], created: old?.created ?? 0, at, error: error ?? 'unavailable' });
      if (old?.error === error) return;
    }
    this.version++;
  }

  private refresh(p: ProviderRuntime, timeoutMs: number): Promise<void> {
    let pending = this.inflight.get(p.name);
    if (!pending) {
      pending = fetchModels(p, timeoutMs)
        .then(
          (ids) => this.record(p.name, ids, null),
          (err: Error) => this.record(p.name, null, err.message),
        )
        .finally(() => this.inflight.delete(p.name));
      this.inflight.set(p.name, pending);
    }
    return pending;
  }

  /**
   * Every enabled provider's list, fetched when missing (waited for) or stale (refreshed in the background: the
   * caller gets the last one, so a client with a short timeout, like Claude Code's 3 s discovery, is answered at once).
   */
  private async ensureLists(config: ListingConfig): Promise<void> {
    const { interval_ms, timeout_ms } = config.health_check;
    const ttl = Math.max(TTL_MS, interval_ms > 0 ? interval_ms + timeout_ms + 5_000 : 0);
    const now = this.now();
    const waits: Promise<void>[] = [];
    for (const p of this.pool.all()) {
      if (!p.config.enabled) continue;
      const list = this.lists.get(p.name);
      if (!list) waits.push(this.refresh(p, timeout_ms));
      else if (now - list.at > (list.error ? RETRY_FAILED_MS : ttl)) void this.refresh(p, timeout_ms);
    }
    if (waits.length) await Promise.all(waits);
  }

  /**
   * What routing would serve `app`: for an app rule with `model_override`, that one model; else every model a provider
   * lists whose route (app rules, rules, default) has that provider among its candidates, owned by the first such
   * candidate, then each rule pattern's concrete names that route somewhere, owned by the route's first provider.
   * Deduplicated by id, in config order. The providers whose list could not be fetched are named in `failed`.
   */
  async listFor(router: Router, app: string | null, config: ListingConfig): Promise<ModelListing> {
    await this.ensureLists(config);
    const key = router.appRuleFor(app)?.app.toLowerCase() ?? '';
    const hit = this.forApp.get(key);
    if (hit && hit.router === router && hit.version === this.version) return hit.listing;
    const listing = this.compute(router, app);
    this.forApp.set(key, { router, version: this.version, listing });
    return listing;
  }

  private compute(router: Router, app: string | null): ModelListing {
    const listing: ModelListing = { data: [], failed: [] };
    const listers = new Map<string, { providers: Set<string>; created: number }>();
    for (const p of this.pool.all()) {
      if (!p.config.enabled) continue;
      const list = this.lists.get(p.name);
      if (!list) continue;
      if (list.error) listing.failed.push({ provider: p.name, error: list.error });
      for (const id of list.ids) {
        const known = listers.get(id);
        if (known) known.providers.add(p.name);
        else listers.set(id, { providers: new Set([p.name]), created: list.created });
      }
    }
    const seen = new Set<string>();
    const add = (id: string, owner: string, created: number) => {
      seen.add(id);
      listing.data.push({ id, object: 'model', created, owned_by: owner });
    };
    const override = router.appRuleFor(app)?.model_override;
    if (override) {
      const route = router.preview(override, app);
      const owner = route.candidates.find((c) => listers.get(override)?.providers.has(c.provider));
      const first = owner ?? route.candidates[0];
      if (first) add(override, first.provider, listers.get(override)?.created ?? Math.floor(this.now() / 1000));
      return listing;
    }
    for (const [id, { providers, created }] of listers) {
      const owner = router.preview(id, app).candidates.find((c) => providers.has(c.provider));
      if (owner) add(id, owner.provider, created);
    }
    const created = Math.floor(this.now() / 1000);
    for (const pattern of router.patterns) {
      for (const name of concreteNames(pattern)) {
        if (seen.has(name)) continue;
        const first = router.preview(name, app).candidates[0];
        if (first) add(name, first.provider, created);
      }
    }
    return listing;
  }
}
