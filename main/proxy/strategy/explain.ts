// The route tester's account of a route's decisions (GET/POST /admin/v1/route, `decisions`): for a request of a given
// size, the order its strategies give now and, for each candidate, what that order read (the estimated cost, the
// expected time and what it was measured from, what its rate-limit headers said) and whether it would be called or
// skipped, and why, in a sentence. Read-only: nothing is counted or measured.
import type { RouteDecision } from '../../../shared/admin.ts';
import type { Config } from '../../../shared/config.ts';
import type { ProviderPool } from '../provider-pool.ts';
import type { ResolvedRoute } from '../routing.ts';
import { chooseOrder, costOf, type PriceBook, type RequestSize, timeOf } from './choose.ts';

/** What the explanation reads: the running pool (its measurements), the prices, and the config explained. */
export type ExplainContext = { pool: ProviderPool; book: PriceBook | null; config: Config };

const usd = (n: number) => (n < 0.01 ? `$${n.toPrecision(2)}` : `$${n.toFixed(4)}`);

/** The decisions of a route for a request of `size`, in the order they would be tried. */
export function explainDecisions(
  ctx: ExplainContext,
  route: ResolvedRoute,
  size: RequestSize,
  now: number,
): RouteDecision[] {
  const choice = route.choice;
  const candidates = route.candidates;
  // Index of each candidate in the listed order, and the group (rule with a strategy) it belongs to.
  const groupOf = (i: number) => choice?.groups.find((g) => i >= g.from && i < g.to) ?? null;
  const prices = choice?.needsPrices ? choice.pricesOf(candidates, ctx.book, ctx.config) : null;
  const ordered = choice === null ? candidates : chooseOrder(candidates, choice, { ...ctx, size, now });
  const decisions: RouteDecision[] = [];
  let chosen = false;
  for (const cand of ordered) {
    const i = candidates.indexOf(cand);
    const g = groupOf(i);
    const rt = ctx.pool.get(cand.provider);
    const cost = prices ? costOf(prices, i, size) : Number.NaN;
    const time = g && g.strategy !== 'cheapest' && g.strategy !== 'ordered' ? timeOf(rt, route.model, size, now) : -2;
    const why: string[] = [];
    if (g === null) why.push(`${cand.reason}: tried in the order written`);
    else if (g.strategy === 'ordered') why.push(`rule "${g.pattern}" (ordered): as listed`);
    else if (g.strategy === 'cheapest')
      why.push(
        Number.isNaN(cost)
          ? `rule "${g.pattern}" (cheapest): no price known, so after every priced provider`
          : `rule "${g.pattern}" (cheapest): ~${usd(cost)} for this request`,
      );
    else {
      const t =
        time < 0
          ? 'nothing measured in the last 15 minutes, so tried early to be measured'
          : `~${Math.round(time)} ms expected`;
      why.push(
        g.strategy === 'fastest'
          ? `rule "${g.pattern}" (fastest): ${t}`
          : `rule "${g.pattern}" (balanced): ${Number.isNaN(cost) ? 'no price known' : `~${usd(cost)}`}, ${t}`,
      );
    }
    let skip: string | null = null;
    const quota = rt?.quota ?? null;
    if (quota !== null && choice !== null) {
      const spent = quota.spent(size.promptTokens, now);
      if (spent !== null) skip = quota.describe(spent, size.promptTokens, now);
    }
    const keys = rt?.keyPool ?? null;
    if (
      skip === null &&
      keys !== null &&
      keys.keys.every((k) => k.benchedUntil > now || k.quota.spent(0, now) !== null)
    )
      skip = `every key is benched (${keys.keys.map((k, n) => `key ${n + 1}: ${k.benchedWhy || 'quota spent'}`).join('; ')})`;
    if (skip === null && rt && rt.breaker.state === 'open') skip = 'its circuit is open after repeated failures';
    const action = skip !== null ? 'skip' : chosen ? 'backup' : 'call';
    if (action === 'call') chosen = true;
    const latency = rt?.latency?.snapshot(route.model, now) ?? null;
    const q = quota?.snapshot(now) ?? null;
    decisions.push({
      provider: cand.provider,
      action,
      why:
        action === 'skip'
          ? `skipped before calling: ${skip}`
          : action === 'call'
            ? `called first: ${why.join('; ')}`
            : `backup if the ones before fail: ${why.join('; ')}`,
      strategy: g?.strategy ?? null,
      estimated_cost_usd: Number.isNaN(cost) ? null : Math.round(cost * 1e8) / 1e8,
      expected_ms: time >= 0 ? Math.round(time) : null,
      latency,
      quota: q,
    });
  }
  return decisions;
}
