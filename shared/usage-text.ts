// Usage and cost in words, shared by the UI (Overview) and the desktop tray: money, counts, and the one-line summary
// of today ("142 requests · $0.37 today"). Unpriced requests are said, never shown as $0.
import type { UsageTotals } from './usage.ts';

const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const CENTS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** 12345 → "12,345". */
export function formatCount(n: number): string {
  return INT.format(n);
}

/**
 * USD for people: cents from a cent up ("$0.37", "$12.50"), four decimals below a cent so a cheap request is not
 * shown as free ("$0.0042"), "$1,234.50" with thousands, "$0.00" only for nothing at all.
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  const abs = Math.abs(usd);
  const text = abs < 0.01 ? abs.toFixed(4) : CENTS.format(abs);
  return `${usd < 0 ? '-' : ''}$${text}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** "3 requests without a known price" (null when every request was priced). */
export function unpricedText(unpriced: number): string | null {
  return unpriced > 0 ? `${plural(unpriced, 'request')} without a known price` : null;
}

/**
 * Today in one line, for the tray: "142 requests · $0.37 today", "… · 3 without a known price" when some had no
 * price, "No requests today" before the first.
 */
export function todayLine(t: Pick<UsageTotals, 'requests' | 'cost_usd' | 'unpriced'>): string {
  if (t.requests === 0) return 'No requests today';
  const line = `${plural(t.requests, 'request')} · ${formatUsd(t.cost_usd)} today`;
  return t.unpriced > 0 ? `${line} · ${formatCount(t.unpriced)} without a known price` : line;
}
