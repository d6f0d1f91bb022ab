// GET /v1/models: the union of enabled providers' model lists, fetched in parallel, cached, deduplicated.
import type { ProviderPool, ProviderRuntime } from './provider-pool.ts';

export type ModelEntry = { id: string; object: 'model'; created: number; owned_by: string };
export type ModelListing = { data: ModelEntry[]; failed: { provider: string; error: string }[] };

const TTL_MS = 60_000;

export class ModelCatalog {
  private cached: { at: number; listing: ModelListing } | null = null;
  private inflight: Promise<ModelListing> | null = null;

  constructor(
    private readonly pool: ProviderPool,
    private readonly timeoutMs = 5_000,
  ) {}

  invalidate(): void {
    this.cached = null;
  }

  async list(): Promise<ModelListing> {
    if (this.cached && Date.now() - this.cached.at < TTL_MS) return this.cached.listing;
    this.inflight ??= this.fetchAll().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetchAll(): Promise<ModelListing> {
    const providers = this.pool.all().filter((p) => p.config.enabled);
    const results = await Promise.all(
      providers.map((p) =>
        fetchModels(p, this.timeoutMs).then(
          (ids) => ({ p, ids, error: null as string | null }),
          (err: Error) => ({ p, ids: [] as string[], error: err.message }),
        ),
      ),
    );
    const seen = new Set<string>();
    const listing: ModelListing = { data: [], failed: [] };
    const created = Math.floor(Date.now() / 1000);
    for (const r of results) {
      if (r.error) listing.failed.push({ provider: r.p.name, error: r.error });
      for (const id of r.ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        listing.data.push({ id, object: 'model', created, owned_by: r.p.name });
      }
    }
    // A listing with failures is kept briefly so a down provider is retried soon.
    this.cached = { at: listing.failed.length ? Date.now() - TTL_MS + 5_000 : Date.now(), listing };
    return listing;
  }
}

/** One provider's model ids (also the active health check). */
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
  return p.kind.parseModels(JSON.parse(text));
}
