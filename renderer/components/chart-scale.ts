// The y axis of a usage chart: round steps (1, 2 or 5 × a power of ten) from 0 to just above the highest value, whole
// numbers only for counts (an empty chart of requests reads 0 and 1, never "1, 1, 0"), and the colours of the axes
// and grid as the page's colour scheme sets them (renderer/styles.css: --chart-grid, --chart-axis).

/** The smallest round step (1, 2 or 5 × 10^k) at least `x`. */
export function roundStep(x: number): number {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x - 1e-12) return m * p;
  return 10 * p;
}

/**
 * The ticks of a y axis whose highest value is `max`: 0, then about four round steps up to a little above it; `whole`
 * (counts of requests or tokens) keeps every tick a whole number. An empty chart (max 0) goes from 0 to 1.
 */
export function yTicks(max: number, whole: boolean): number[] {
  const top = max > 0 ? max * 1.05 : 1;
  let step = roundStep(top / 4);
  if (whole) step = roundStep(Math.max(1, Math.ceil(step)));
  const n = Math.max(1, Math.ceil(top / step - 1e-9));
  return Array.from({ length: n + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** The chart colours of the scheme in force, read from the page's CSS variables (defaults: the light ones). */
export function chartColours(style: { getPropertyValue(name: string): string }): { grid: string; axis: string } {
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return { grid: read('--chart-grid', '#e5e7eb'), axis: read('--chart-axis', '#4b5563') };
}
