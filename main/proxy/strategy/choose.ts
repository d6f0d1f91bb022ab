// The per-request choice among a rule's providers (routing.rules[].strategy): the candidates of each rule that has a
// strategy are reordered by it, before the failover loop tries them in that order. A route whose rules name no
// strategy is never passed here (its candidates are the cached list, as they always were).
//
// - ordered: the list as written (spent quotas are skipped by the failover loop, as for every strategy);
// - cheapest: the price of this request's estimated tokens (the price table and config.json's prices; local
//   providers cost 0); providers without a price come after every priced one, in listed order;
// - fastest: the expected time to answer (measured time to first token, plus the expected output at the measured
//   tokens a second: latency.ts); a provider with nothing measured recently comes first, to be measured;
// - balanced: cost and time, each scaled from 0 (the best candidate) to 1 (the worst), added; an unknown cost counts
//   as the worst, an unmeasured time as the best (to be measured). Ties keep the listed order in every strategy.
import type { Config, ProviderConfig, Strategy } from '../../../shared/config.ts';
import type { ProviderPool, ProviderRuntime } from '../provider-pool.ts';
import type { ResolvedCandidate } from '../routing.ts';

/** Prices per million tokens of a provider and model (null: not known), from the usage room's price table. */
export interface PriceBook {
  perMillion(provider: ProviderConfig, model: string, config: Config): { input: number; output: number } | null;
}

/** What a strategy knows of the request: its prompt's estimated tokens and the output it expects. */
export type RequestSize = { promptTokens: number; outputTokens: number };

/** The output a request is expected to produce: its max_tokens, capped (an agent's 32k cap is rarely reached). */
export const DEFAULT_OUTPUT_TOKENS = 1024;
export const MAX_EXPECTED_OUTPUT_TOKENS = 4096;

export function expectedOutput(maxTokens: number | undefined): number {
  if (maxTokens === undefined || !(maxTokens > 0)) return DEFAULT_OUTPUT_TOKENS;
  return Math.min(maxTokens, MAX_EXPECTED_OUTPUT_TOKENS);
}

/** One rule's stretch of a route's candidates [from, to), chosen among by `strategy`. */
export type StrategyGroup = { strategy: Strategy; rule: number; pattern: string; from: number; to: number };

/**
 * A route's strategies (cached with the route, so built once per config, app and model), and what a decision reads
 * that does not change per request: each candidate's runtime and prices (looked up on the first decision that needs
 * them).
 */
export class RouteChoice {
  /** [input, output] USD per million tokens per candidate; NaN: no price. Filled on first use. */
  prices: Float64Array | null = null;
  runtimes: (ProviderRuntime | undefined)[] | null = null;
  /** Whether a group needs prices (cheapest, balanced) or latencies (fastest, balanced). */
  readonly needsPrices: boolean;

  constructor(
    readonly groups: StrategyGroup[],
    readonly model: string,
  ) {
    this.needsPrices = groups.some((g) => g.strategy === 'cheapest' || g.strategy === 'balanced');
  }

  /** The candidates' runtimes, looked up once (the pool keeps its runtimes across reloads; a route does not outlive its config). */
  runtimesOf(candidates: ResolvedCandidate[], pool: ProviderPool): (ProviderRuntime | undefined)[] {
    return (this.runtimes ??= candidates.map((c) => pool.get(c.provider)));
  }

  pricesOf(candidates: ResolvedCandidate[], book: PriceBook | null, config: Config): Float64Array {
    if (this.prices) return this.prices;
    const out = new Float64Array(candidates.length * 2).fill(Number.NaN);
    if (book)
      candidates.forEach((c, i) => {
        const p = book.perMillion(c.config, this.model, config);
        if (p) {
          out[2 * i] = p.input;
          out[2 * i + 1] = p.output;
        }
      });
    if (book) this.prices = out; // kept once a price table is known (none yet: asked again next time)
    return out;
  }
}

/** The estimated USD of a request at a candidate's prices (NaN: not priced). */
export function costOf(prices: Float64Array, i: number, size: RequestSize): number {
  return (prices[2 * i]! * size.promptTokens + prices[2 * i + 1]! * size.outputTokens) / 1e6;
}

/** The expected ms to answer at a candidate (-1: nothing recent measured). */
export function timeOf(rt: ProviderRuntime | undefined, model: string, size: RequestSize, now: number): number {
  return rt?.latency ? rt.latency.estimate(model, size.outputTokens, now) : -1;
}

/** Scores of one group, lower first (the keys the sort reads), into `scores` at [from, to). */
export function scoreGroup(
  g: StrategyGroup,
  choice: RouteChoice,
  candidates: ResolvedCandidate[],
  ctx: { pool: ProviderPool; book: PriceBook | null; config: Config; size: RequestSize; now: number },
  scores: Float64Array,
): void {
  const { from, to } = g;
  if (g.strategy === 'cheapest') {
    const prices = choice.pricesOf(candidates, ctx.book, ctx.config);
    for (let i = from; i < to; i++) {
      const c = costOf(prices, i, ctx.size);
      scores[i] = Number.isNaN(c) ? Number.POSITIVE_INFINITY : c;
    }
    return;
  }
  const rts = choice.runtimesOf(candidates, ctx.pool);
  if (g.strategy === 'fastest') {
    for (let i = from; i < to; i++) scores[i] = timeOf(rts[i], choice.model, ctx.size, ctx.now);
    return;
  }
  // balanced: cost and time each scaled to [0, 1] across the group, added.
  const prices = choice.pricesOf(candidates, ctx.book, ctx.config);
  let cMin = Number.POSITIVE_INFINITY;
  let cMax = Number.NEGATIVE_INFINITY;
  let tMin = Number.POSITIVE_INFINITY;
  let tMax = Number.NEGATIVE_INFINITY;
  for (let i = from; i < to; i++) {
    const c = costOf(prices, i, ctx.size);
    const t = timeOf(rts[i], choice.model, ctx.size, ctx.now);
    // Kept apart until scaled: the cost in scores, the time beside it (a second pass reads both).
    scores[i] = c;
    if (!Number.isNaN(c)) {
      if (c < cMin) cMin = c;
      if (c > cMax) cMax = c;
    }
    if (t >= 0) {
      if (t < tMin) tMin = t;
      if (t > tMax) tMax = t;
    }
  }
  for (let i = from; i < to; i++) {
    const c = scores[i]!;
    const t = timeOf(rts[i], choice.model, ctx.size, ctx.now);
    scores[i] = balancedScore(c, cMin, cMax) + (t < 0 ? 0 : scaled(t, tMin, tMax));
  }
}

/** A value scaled to [0, 1] between the group's least and most (0 when they are equal). */
export function scaled(v: number, min: number, max: number): number {
  return max > min ? (v - min) / (max - min) : 0;
}

/** A cost's share of balanced's score: scaled, and 1 (the worst) when not priced. */
export function balancedScore(c: number, min: number, max: number): number {
  return Number.isNaN(c) ? 1 : scaled(c, min, max);
}

/**
 * The route's candidates in the order its strategies give for this request: a new array (the cached one is never
 * changed); the stretches of rules without a strategy, and of `ordered` rules, stay as listed.
 */
export function chooseOrder(
  candidates: ResolvedCandidate[],
  choice: RouteChoice,
  ctx: { pool: ProviderPool; book: PriceBook | null; config: Config; size: RequestSize; now: number },
): ResolvedCandidate[] {
  const out = candidates.slice();
  let scores: Float64Array | null = null;
  for (const g of choice.groups) {
    if (g.strategy === 'ordered' || g.to - g.from < 2) continue;
    scores ??= new Float64Array(candidates.length);
    scoreGroup(g, choice, candidates, ctx, scores);
    // Insertion sort, stable (ties keep the listed order): a group is a handful of providers.
    for (let i = g.from + 1; i < g.to; i++) {
      const cand = out[i]!;
      const s = scores[i]!;
      let j = i - 1;
      while (j >= g.from && scores[j]! > s) {
        out[j + 1] = out[j]!;
        scores[j + 1] = scores[j]!;
        j--;
      }
      out[j + 1] = cand;
      scores[j + 1] = s;
    }
  }
  return out;
}
