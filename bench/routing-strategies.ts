// Routing strategies bench (issue 37): what choosing a provider costs per request with 20 providers on the rule, for
// each strategy, as a ratio to `ordered` measured in the same run (and to a rule without a strategy, the code before
// issue 37). A decision is what the request path does before the first upstream call: resolve the route (cached per
// app and model), estimate the request's size, order the candidates by the strategy (prices, measured latencies) and
// check the first candidate's quota. Every provider has prices and measured latencies, so no score is short-cut.
// Run: node --import tsx bench/routing-strategies.ts   (or npm run bench -- routing-strategies)
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseConfig, type Config, type Strategy } from '../shared/config.ts';
import { ProviderPool } from '../main/proxy/provider-pool.ts';
import { chooseCandidates, requestSize } from '../main/proxy/request.ts';
import { Router } from '../main/proxy/routing.ts';
import type { Engine } from '../main/proxy/engine.ts';
import { priceBook } from '../main/usage/price-book.ts';
import { check } from './targets.ts';

export type RoutingBenchOptions = { providers: number; decisions: number; rounds: number; maxUsPerDecision: number };
export const DEFAULT_OPTIONS: RoutingBenchOptions = {
  providers: 20,
  decisions: 200_000,
  rounds: 5,
  maxUsPerDecision: 5,
};

const VARIANTS = ['none', 'ordered', 'cheapest', 'fastest', 'balanced'] as const;
type Variant = (typeof VARIANTS)[number];

function configWith(n: number): Config {
  const names = Array.from({ length: n }, (_, i) => `p${i}`);
  const rule = (v: Variant) => ({
    pattern: `${v}-*`,
    providers: names,
    ...(v === 'none' ? {} : { strategy: v as Strategy }),
  });
  const parsed = parseConfig({
    providers: names.map((name) => ({ name, base_url: `https://${name}.example.com/v1`, api_key: 'sk-bench' })),
    routing: { default_provider: '', rules: VARIANTS.map(rule) },
    prices: names.map((provider, i) => ({ provider, input: 1 + ((i * 7) % 13), output: 4 + ((i * 5) % 11) })),
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

export async function main(overrides: Partial<RoutingBenchOptions> = {}) {
  const opts = { ...DEFAULT_OPTIONS, ...overrides };
  const config = configWith(opts.providers);
  const pool = new ProviderPool(config);
  const now = Date.now();
  pool.all().forEach((p, i) => {
    // Measured: each provider a different time to first byte and speed, recently.
    for (const v of VARIANTS) p.latency?.record(`${v}-model`, 100 + i * 13, 1000 + i * 31, 200, true, now - 1000);
  });
  const engine = {
    config,
    router: new Router(config, 'config.json'),
    pool,
    prices: priceBook,
  } as unknown as Engine;
  const bytes = 4000; // a 1,000-token prompt

  let sink = 0;
  const decide = (model: string): void => {
    const route = engine.router.resolve(model, null);
    const size = requestSize(route, bytes, 512);
    const order = chooseCandidates(engine, route, size);
    const first = pool.get(order[0]!.provider)!;
    if (first.quota !== null && first.quota.spent(size?.promptTokens ?? 0, Date.now()) !== null) sink++;
    sink += order.length;
  };

  const perVariant: Record<Variant, number[]> = { none: [], ordered: [], cheapest: [], fastest: [], balanced: [] };
  for (const v of VARIANTS) for (let i = 0; i < 20_000; i++) decide(`${v}-model`); // warm-up
  for (let r = 0; r < opts.rounds; r++)
    for (const v of VARIANTS) {
      const model = `${v}-model`;
      const t0 = performance.now();
      for (let i = 0; i < opts.decisions; i++) decide(model);
      perVariant[v].push(((performance.now() - t0) * 1000) / opts.decisions);
    }
  if (sink < 0) console.log(sink);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const us = Object.fromEntries(VARIANTS.map((v) => [v, median(perVariant[v])])) as Record<Variant, number>;
  const ordered = us.ordered;
  const f = (n: number, d = 2) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const targets = (['ordered', 'cheapest', 'fastest', 'balanced'] as const).map((v) =>
    check(
      `routing decision, strategy ${v}, ${opts.providers} providers`,
      `≤ ${opts.maxUsPerDecision} µs`,
      `${f(us[v])} µs (${f(us[v] / ordered)}× ordered)`,
      us[v] / ordered,
      us[v] <= opts.maxUsPerDecision,
    ),
  );
  const pass = targets.every((t) => t.holds);
  const table = [
    '## Routing strategies: decision cost per request',
    '',
    `One rule listing ${opts.providers} providers, all priced and measured; a decision = resolve the route (cached), ` +
      `estimate the request, order the candidates, check the first one's quota. ${opts.decisions.toLocaleString('en-US')} ` +
      `decisions per run, ${opts.rounds} interleaved rounds (medians); ${os.cpus().length} cores, Node ${process.versions.node}.`,
    '',
    '| strategy | µs per decision | ÷ ordered |',
    '|---|--:|--:|',
    ...VARIANTS.map(
      (v) => `| ${v === 'none' ? 'no strategy (before issue 37)' : v} | ${f(us[v], 3)} | ${f(us[v] / ordered)}× |`,
    ),
    '',
    `Check: every strategy ≤ ${opts.maxUsPerDecision} µs a decision: ${pass ? 'pass' : '**FAIL**'}.`,
    '',
  ].join('\n');
  await pool.close();
  return { name: 'routing-strategies', options: opts, us, pass, targets, table };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await main();
  console.log(result.table);
  if (!result.pass) process.exitCode = 1;
}
