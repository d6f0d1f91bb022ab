// Connect checks routing (issue 34): for each of a tool's usual models (Claude Code's opus/sonnet/haiku tiers and its
// subagent model, Codex's and Gemini CLI's default model), who will answer it as the tool names itself, and why that
// is likely not what the user wants: no enabled provider serves it, the rule meant for it names a disabled provider
// (so its requests silently go elsewhere), or it would reach a vendor's own API that has no such model (a Claude model
// to api.openai.com answers model-not-found). Each problem carries the preset of the service that serves the model,
// so the page can offer the fix (enable, set up, add, or route the model there).
import micromatch from 'micromatch';
import type { RouteExplanation } from '../../shared/admin.ts';
import { type ProviderConfig, type RoutingRule, ruleProviders } from '../../shared/config.ts';
import type { RouteProblem, ToolRoute } from '../../shared/connect.ts';
import { PROVIDER_PRESETS, type ProviderPreset, vendorPresetOf } from '../../shared/presets.ts';

/** One of a tool's usual models, before its route is known. */
export type UsualModel = { label: string; model: string; source: string };

const matches = (model: string, glob: string) => micromatch.isMatch(model, glob, { bash: true, nocase: true });

/** The preset whose own models include `model` (its vendor first), and the glob that matched. */
export function presetServing(model: string): { preset: ProviderPreset; pattern: string } | null {
  const ordered = [...PROVIDER_PRESETS].sort((a, b) => Number(!!b.vendor_host) - Number(!!a.vendor_host));
  for (const preset of ordered)
    for (const pattern of preset.models) if (matches(model, pattern)) return { preset, pattern };
  return null;
}

/** The preset a provider was made from: its vendor by host, else the preset of its name. */
function presetOfProvider(p: ProviderConfig | undefined): ProviderPreset | undefined {
  if (!p) return undefined;
  return vendorPresetOf(p.base_url) ?? PROVIDER_PRESETS.find((x) => x.id === p.name);
}

/**
 * Where a route's provider stands in the order routing adds them (rules in order, each rule's providers in order,
 * then the app's and the default provider): to tell a disabled primary from a disabled backup behind one that serves.
 */
function placeOf(provider: string, reason: string, rules: RoutingRule[]): number {
  const rule = /^rule:(.*?)(?:, but .*)?$/.exec(reason)?.[1];
  if (rule === undefined) return Number.MAX_SAFE_INTEGER;
  const i = rules.findIndex((r) => r.pattern === rule && ruleProviders(r).includes(provider));
  return i < 0 ? Number.MAX_SAFE_INTEGER - 1 : i * 1000 + ruleProviders(rules[i]!).indexOf(provider);
}

export function checkRoute(
  usual: UsualModel,
  route: Pick<RouteExplanation, 'candidates' | 'skipped'>,
  config: { providers: ProviderConfig[]; routing: { rules: RoutingRule[] } },
  toolName: string,
): ToolRoute {
  const first = route.candidates[0] ?? null;
  const serving = presetServing(usual.model);
  const byName = new Map(config.providers.map((p) => [p.name, p]));
  const rules = config.routing.rules;
  const firstAt = first ? placeOf(first.provider, first.reason, rules) : Number.MAX_SAFE_INTEGER;
  const problem = ((): RouteProblem | null => {
    // A rule's provider that is disabled and would have come before the one that answers (a primary, not a backup).
    const meant = route.skipped.find(
      (s) => /^rule:.*, but it is disabled/.test(s.reason) && placeOf(s.provider, s.reason, rules) < firstAt,
    );
    if (meant) {
      const rule = /^rule:(.*), but it is disabled/.exec(meant.reason)![1]!;
      const vendor = first ? vendorPresetOf(byName.get(first.provider)?.base_url ?? '') : undefined;
      const wrong = vendor && !vendor.models.some((g) => matches(usual.model, g));
      const goes = !first
        ? 'fail: no other provider takes them'
        : `go to "${first.provider}" instead${wrong ? `, ${vendor.name}'s API, which has no such model (model not found)` : ''}`;
      return {
        kind: 'disabled',
        message: `the rule ${rule} names "${meant.provider}", which is disabled, so ${toolName}'s requests ${goes}.`,
        provider: meant.provider,
        preset: presetOfProvider(byName.get(meant.provider))?.id ?? serving?.preset.id ?? null,
        pattern: rule,
      };
    }
    if (!first)
      return {
        kind: 'no_route',
        message: `no enabled provider serves it, so ${toolName}'s requests get an error (no_route).`,
        provider: null,
        preset: serving?.preset.id ?? null,
        pattern: serving?.pattern ?? null,
      };
    const vendor = vendorPresetOf(byName.get(first.provider)?.base_url ?? '');
    if (vendor && !vendor.models.some((g) => matches(usual.model, g)))
      return {
        kind: 'wrong_vendor',
        message: `it would go to "${first.provider}", ${vendor.name}'s API, which has no such model, so ${toolName}'s requests would fail (model not found).`,
        provider: first.provider,
        preset: serving?.preset.id ?? null,
        pattern: serving?.pattern ?? null,
      };
    return null;
  })();
  return { ...usual, provider: first?.provider ?? null, via: first?.reason ?? null, problem };
}
