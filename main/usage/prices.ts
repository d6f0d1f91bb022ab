// What a request cost: config.json's `prices` overrides first (a provider name and/or a model glob; the first that
// fits wins; `free: true` is 0), then local providers (type ollama, or a base_url on loopback, unless
// quirks.provider_hosts names a vendor's host for it) at 0, then the price
// table of @pydantic/genai-prices (updated by upgrading the package). No price found: null, never a guess.
//
// The table's provider is found by the base_url (each table provider's api_pattern, e.g. https://api.openai.com; a
// host that quirks.provider_hosts names for this provider counts as its base_url), else by our provider's type
// (openai → openai, anthropic → anthropic, gemini → google). Token counts are the hub's: prompt includes the cache
// reads and writes (the table's input_tokens is that total too), completion includes reasoning (billed as output).
// Cache writes kept 1 hour (Anthropic's, within the writes) are priced at the table's 1-hour write price; for a Claude
// model the table has no such price for (OpenRouter's, Bedrock's, Vertex's entries), at Anthropic's documented rule:
// a 1-hour write costs 2× the base input price, a 5-minute one 1.25× (the table's plain write price).
import { createRequire } from 'node:module';
import type { calcPrice as CalcPrice, ModelPrice } from '@pydantic/genai-prices';
import ipaddr from 'ipaddr.js';
import micromatch from 'micromatch';
import type { ProviderConfig, ProviderType } from '../../shared/config.ts';
import type { CostSource, PriceOverride } from '../../shared/usage.ts';
import { inferProviderType } from '../proxy/providers/index.ts';

type PriceTable = typeof import('@pydantic/genai-prices');
let priceTable: PriceTable | null = null;
/**
 * The price table (~0.8 MB of code and data), loaded on the first price that needs it (a cloud provider without an
 * override), never at start: a desktop user on local models never loads it. Its CommonJS build is required
 * synchronously, so priceOf stays synchronous; the first lookup pays ~40 ms once, after that request was answered.
 */
function table(): PriceTable {
  return (priceTable ??= createRequire(import.meta.url)('@pydantic/genai-prices') as PriceTable);
}

/** The counts a price needs (a UsageRecord fits). */
export type PriceInput = {
  model: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Within cache_write_tokens, the writes kept 1 hour (priced apart); absent: none. */
  cache_write_1h_tokens?: number | undefined;
};

export type Price = { cost_usd: number | null; source: CostSource };

/** What pricing reads of a provider's config. */
export type PricedProvider = Pick<ProviderConfig, 'name' | 'base_url' | 'type'>;

/** What pricing reads of config.json: the overrides, and the hosts quirks.provider_hosts gives providers. */
export type PriceConfig = { prices?: readonly PriceOverride[]; quirks?: { provider_hosts?: Record<string, string> } };

/** The table's provider for our provider's type, when its base_url matches none of the table's. */
const TABLE_PROVIDER_OF_TYPE: Record<ProviderType, string | null> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  ollama: null,
};

const GLOB = { bash: true, nocase: true } as const;
const MTOK = 1_000_000;
/** Bound on the memo of (table provider, model) prices; cleared whole when reached. */
const MEMO_MAX = 10_000;

/** A loopback host: localhost (and *.localhost), 127.0.0.0/8, ::1, an IPv4-mapped loopback. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(h)) return false;
  const a = ipaddr.process(h);
  return a.range() === 'loopback';
}

/** What pricing knows of one provider config (reloads make new config objects, so this follows them). */
type ProviderFacts = { local: boolean; tableIds: Map<string, string | null> };
const facts = new WeakMap<object, ProviderFacts>();

function factsOf(p: PricedProvider): ProviderFacts {
  let f = facts.get(p);
  if (!f) {
    let local = (p.type ?? inferProviderType(p.base_url)) === 'ollama';
    try {
      local ||= isLoopbackHost(new URL(p.base_url).hostname);
    } catch {
      // not a URL: not local
    }
    facts.set(p, (f = { local, tableIds: new Map() }));
  }
  return f;
}

/** True when requests to this provider cost nothing: type ollama, or a base_url on this machine's loopback. */
export function isLocalProvider(p: PricedProvider): boolean {
  return factsOf(p).local;
}

/** The price table's provider id for one of ours (null: none fits). */
export function tableProviderOf(p: PricedProvider, providerHosts: Record<string, string> = {}): string | null {
  const ids = factsOf(p).tableIds;
  const hint = providerHosts[p.name] ?? '';
  const cached = ids.get(hint);
  if (cached !== undefined) return cached;
  const url = hint ? `https://${hint}` : p.base_url;
  const id =
    table().findProvider({ providerApiUrl: url })?.id ??
    TABLE_PROVIDER_OF_TYPE[p.type ?? inferProviderType(p.base_url)];
  ids.set(hint, id);
  return id;
}

type Compiled = { o: PriceOverride; model: ((m: string) => boolean) | null };
const compiledOverrides = new WeakMap<readonly PriceOverride[], Compiled[]>();

function overrideFor(
  list: readonly PriceOverride[],
  provider: string | null,
  model: string | null,
): PriceOverride | null {
  let compiled = compiledOverrides.get(list);
  if (!compiled) {
    compiled = list.map((o) => ({ o, model: o.model ? micromatch.matcher(o.model, GLOB) : null }));
    compiledOverrides.set(list, compiled);
  }
  for (const c of compiled) {
    if (c.o.provider !== undefined && c.o.provider !== provider) continue;
    if (c.model && (model === null || !c.model(model))) continue;
    return c.o;
  }
  return null;
}

/** Flat prices per million tokens (a 1-hour write without a price of its own costs the plain write price). */
type FlatPrices = {
  input: number;
  output: number;
  cache_read?: number | undefined;
  cache_write?: number | undefined;
  cache_write_1h?: number | undefined;
};

/** The 1-hour cache writes of a request, within its writes. */
const oneHourWrites = (r: PriceInput): number =>
  Math.min(Math.max(0, r.cache_write_1h_tokens ?? 0), Math.max(0, r.cache_write_tokens));

/** USD for counts at per-million prices; cache reads and writes without a price of their own cost the input price. */
function costAt(r: PriceInput, p: FlatPrices): number {
  const uncached = Math.max(0, r.prompt_tokens - r.cache_read_tokens - r.cache_write_tokens);
  const hour = oneHourWrites(r);
  const write = p.cache_write ?? p.input;
  return (
    (uncached * p.input +
      r.cache_read_tokens * (p.cache_read ?? p.input) +
      (r.cache_write_tokens - hour) * write +
      hour * (p.cache_write_1h ?? write) +
      r.completion_tokens * p.output) /
    MTOK
  );
}

/** Anthropic's documented price of a 1-hour cache write: twice the base input price. */
const ONE_HOUR_WRITE_PER_INPUT = 2;
const isClaude = (model: string): boolean => /claude/i.test(model);

/** A table price at a request's size: a number, or tiered prices by input tokens (the table's own rule). */
function priceAt(price: unknown, inputTokens: number): number | undefined {
  if (typeof price === 'number') return price;
  const tiered = price as { base?: unknown; tiers?: { start: number; price: number }[] } | null;
  if (!tiered || typeof tiered.base !== 'number' || !Array.isArray(tiered.tiers)) return undefined;
  let at = tiered.base;
  for (const t of tiered.tiers) if (inputTokens > t.start) at = t.price;
  return at;
}

/**
 * What the table leaves out for a Claude model it gives no 1-hour write price (it prices those writes as 5-minute
 * ones): the difference to Anthropic's documented 2× the input price. 0 when the table prices them, or for others.
 */
function oneHourSupplement(r: PriceInput, price: ModelPrice, models: string[]): number {
  const hour = oneHourWrites(r);
  if (hour === 0 || price.cache_write_1h_mtok !== undefined || !models.some(isClaude)) return 0;
  const input = priceAt(price.input_mtok, r.prompt_tokens);
  if (input === undefined) return 0;
  const write = priceAt(price.cache_write_mtok, r.prompt_tokens) ?? input;
  return (hour * (ONE_HOUR_WRITE_PER_INPUT * input - write)) / MTOK;
}

/** The table's usage object for our counts (cache counts clamped into the prompt, as the table requires). */
function tableUsage(r: PriceInput): Record<string, number> {
  const input = Math.max(0, r.prompt_tokens);
  const cacheRead = Math.min(Math.max(0, r.cache_read_tokens), input);
  const cacheWrite = Math.min(Math.max(0, r.cache_write_tokens), input - cacheRead);
  const hour = Math.min(oneHourWrites(r), cacheWrite);
  return {
    input_tokens: input,
    output_tokens: Math.max(0, r.completion_tokens),
    ...(cacheRead ? { cache_read_tokens: cacheRead } : {}),
    ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
    ...(hour ? { cache_write_1h_tokens: hour } : {}),
  };
}

/**
 * What the table says of one (provider, model): not priced; priced by flat per-token prices (computed here, checked
 * once against the table's own result); or priced some other way (tiers, dated or time-of-day prices: the table
 * computes every request).
 */
type Memo = { kind: 'none' } | ({ kind: 'flat' } & FlatPrices) | { kind: 'table' };
const memo = new Map<string, Memo>();

function tablePrice(r: PriceInput, providerId: string, model: string): number | null {
  const key = `${providerId}\u0000${model}`;
  const known = memo.get(key);
  if (known?.kind === 'none') return null;
  if (known?.kind === 'flat') return costAt(r, known);
  let result: ReturnType<typeof CalcPrice>;
  try {
    result = table().calcPrice(tableUsage(r), model, { providerId });
  } catch {
    return null; // counts the table refuses (it checks them): not priced rather than a guess
  }
  if (memo.size >= MEMO_MAX) memo.clear();
  if (!result) {
    memo.set(key, { kind: 'none' });
    return null;
  }
  const total = result.total_price + oneHourSupplement(r, result.model_price, [model, result.model.id]);
  // Flat prices are taken only once checked on counts that exercise them (a prompt and a completion).
  if (known || r.prompt_tokens <= 0 || r.completion_tokens <= 0) return total;
  const flat = flatPrices(result.model.prices, result.model_price);
  if (flat && agrees(costAt(r, flat), result.total_price)) {
    // A Claude model without the table's 1-hour price: Anthropic's (see oneHourSupplement).
    if (flat.cache_write_1h === undefined && (isClaude(model) || isClaude(result.model.id)))
      flat.cache_write_1h = ONE_HOUR_WRITE_PER_INPUT * flat.input;
    memo.set(key, { kind: 'flat', ...flat });
  } else memo.set(key, { kind: 'table' });
  return total;
}

/** Flat prices for the token counts we report, or null when the model's prices depend on more (tiers, dates). */
function flatPrices(declared: unknown, p: ModelPrice): FlatPrices | null {
  if (Array.isArray(declared)) return null; // conditional (dated or time-of-day) prices
  const { input_mtok: input, output_mtok: output, cache_read_mtok: cacheRead, cache_write_mtok: cacheWrite } = p;
  const hour = p.cache_write_1h_mtok;
  const plain = (v: unknown): v is number | undefined => v === undefined || typeof v === 'number';
  if (typeof input !== 'number' || typeof output !== 'number') return null;
  if (!plain(cacheRead) || !plain(cacheWrite) || !plain(hour)) return null;
  return {
    input,
    output,
    ...(cacheRead !== undefined ? { cache_read: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cache_write: cacheWrite } : {}),
    ...(hour !== undefined ? { cache_write_1h: hour } : {}),
  };
}

const agrees = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-12 + 1e-9 * Math.abs(b);

/**
 * A request's cost in USD and where it came from: an override of config.json, 0 for a local provider, the price
 * table, or unknown (cost null: no price for the model). A request that used no tokens costs 0 whatever its source.
 */
export function priceOf(r: PriceInput, provider: PricedProvider | null | undefined, config: PriceConfig = {}): Price {
  const noTokens = r.prompt_tokens <= 0 && r.completion_tokens <= 0;
  const o = config.prices?.length ? overrideFor(config.prices, provider?.name ?? null, r.model) : null;
  if (o)
    return {
      cost_usd: o.free || noTokens ? 0 : costAt(r, { ...o, input: o.input ?? 0, output: o.output ?? 0 }),
      source: 'override',
    };
  if (!provider) return { cost_usd: noTokens ? 0 : null, source: 'unknown' };
  // A provider quirks.provider_hosts names a vendor's host for (a local proxy standing in for that vendor) is priced
  // as that vendor, even on loopback.
  const named = config.quirks?.provider_hosts?.[provider.name] !== undefined;
  if (!named && isLocalProvider(provider)) return { cost_usd: 0, source: 'local' };
  const id = tableProviderOf(provider, config.quirks?.provider_hosts);
  const cost = id && r.model ? tablePrice(r, id, r.model) : null;
  if (cost === null) return { cost_usd: noTokens ? 0 : null, source: 'unknown' };
  return { cost_usd: cost, source: 'price_table' };
}
