// Prices in the UI (issue 34): an override of config.json's `prices[]` as the form edits it and back, where a new one
// goes in the list (the first entry that fits a request wins: one for a provider and a model before one for the whole
// provider), and a provider's price in words for its card. Pure (tested in Node).
import type { PriceOverride } from '../../shared/usage.ts';
import { formatUsd } from '../../shared/usage-text.ts';

export type PriceDraft = {
  provider: string;
  model: string;
  free: boolean;
  input: string;
  output: string;
  cache_read: string;
  cache_write: string;
};

export const EMPTY_PRICE: PriceDraft = {
  provider: '',
  model: '',
  free: false,
  input: '',
  output: '',
  cache_read: '',
  cache_write: '',
};

/** A typed number as a number; what is not one stays text, so the schema's error quotes what was typed. */
const num = (s: string): number => {
  const n = Number(s);
  return (s.trim() !== '' && Number.isFinite(n) ? n : s) as number;
};

/** The draft as a `prices[]` entry: empty fields left out (an empty provider or model covers every one). */
export function priceFromDraft(d: PriceDraft): PriceOverride {
  const where = {
    ...(d.provider ? { provider: d.provider } : {}),
    ...(d.model.trim() ? { model: d.model.trim() } : {}),
  };
  if (d.free) return { ...where, free: true };
  return {
    ...where,
    input: num(d.input),
    output: num(d.output),
    ...(d.cache_read.trim() ? { cache_read: num(d.cache_read) } : {}),
    ...(d.cache_write.trim() ? { cache_write: num(d.cache_write) } : {}),
  };
}

export function draftFromPrice(p: PriceOverride): PriceDraft {
  const s = (v: number | undefined) => (v === undefined ? '' : String(v));
  return {
    provider: p.provider ?? '',
    model: p.model ?? '',
    free: p.free === true,
    input: s(p.input),
    output: s(p.output),
    cache_read: s(p.cache_read),
    cache_write: s(p.cache_write),
  };
}

/**
 * `list` with `entry` in place of the one at `index`, or (index -1) added: one naming a model before the first entry
 * that names none (so it wins over a provider-wide or catch-all price), one naming none at the end.
 */
export function putPrice(list: PriceOverride[], entry: PriceOverride, index: number): PriceOverride[] {
  if (index >= 0) return list.map((p, i) => (i === index ? entry : p));
  if (entry.model === undefined) return [...list, entry];
  const at = list.findIndex((p) => p.model === undefined);
  return at < 0 ? [...list, entry] : [...list.slice(0, at), entry, ...list.slice(at)];
}

/** A price in words: "$2.50 in, $10.00 out per million tokens", "free". */
export function priceWords(p: PriceOverride): string {
  if (p.free) return 'free';
  const cache = [
    p.cache_read !== undefined ? `${formatUsd(p.cache_read)} cache read` : '',
    p.cache_write !== undefined ? `${formatUsd(p.cache_write)} cache write` : '',
  ].filter(Boolean);
  return `${formatUsd(p.input ?? 0)} in, ${formatUsd(p.output ?? 0)} out${cache.length ? `, ${cache.join(', ')}` : ''} per million tokens`;
}

/** What a provider's requests cost, in words, for its card: its own price, free on this machine, or the table's. */
export function providerPriceText(
  name: string,
  prices: PriceOverride[],
  local: boolean,
): { text: string; index: number } {
  const index = prices.findIndex((p) => p.provider === name && p.model === undefined);
  if (index >= 0) return { text: `${priceWords(prices[index]!)} (your price)`, index };
  const some = prices.filter((p) => p.provider === name).length;
  const table = local ? 'free (on this machine)' : "the price table's, per model";
  return { text: some ? `${table}; your price for ${some} of its model patterns` : table, index: -1 };
}
