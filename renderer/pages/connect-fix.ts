// The fix Connect offers for a tool's model that would not reach the provider meant for it (issue 34): enable the
// provider its rule names (when it has a key, or needs none), set it up from its preset (the key), send the model's
// pattern to an enabled provider of the right service, or add that service. Pure (tested in Node).
import { type ConfigInput, type ProviderConfig, ruleProviders, ruleWith } from '../../shared/config.ts';
import type { RouteProblem } from '../../shared/connect.ts';
import { presetById, vendorPresetOf } from '../../shared/presets.ts';

export type RouteFix =
  /** Enable this provider (it has a key, or is local): one save. */
  | { kind: 'enable'; provider: string; label: string }
  /** Put `provider` first for `pattern` (a new rule at the top, or first in the rule of that pattern): one save. */
  | { kind: 'route'; provider: string; pattern: string; label: string }
  /** Open the preset's form (a key is needed). */
  | { kind: 'preset'; preset: string; label: string }
  /** Nothing known: the Routing page. */
  | { kind: 'routing'; label: string };

const isLocal = (p: ProviderConfig) => {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(p.base_url).hostname) || p.type === 'ollama';
  } catch {
    return false;
  }
};
const hasKey = (p: ProviderConfig) => (p.api_key ?? '') !== '' || Object.keys(p.headers ?? {}).length > 0;

export function fixFor(problem: RouteProblem, cfg: ConfigInput): RouteFix {
  const providers = (cfg.providers ?? []) as ProviderConfig[];
  const preset = problem.preset ? presetById(problem.preset) : undefined;
  if (problem.kind === 'disabled' && problem.provider) {
    const p = providers.find((x) => x.name === problem.provider);
    if (p && (hasKey(p) || isLocal(p))) return { kind: 'enable', provider: p.name, label: `Enable "${p.name}"` };
    if (preset) return { kind: 'preset', preset: preset.id, label: `Set up ${preset.name} (add its key)…` };
  }
  // An enabled provider of the service that serves the model: send the model's pattern to it.
  const serving =
    preset &&
    providers.find(
      (p) => p.enabled !== false && (vendorPresetOf(p.base_url)?.id === preset.id || p.name === preset.id),
    );
  if (serving && problem.pattern)
    return {
      kind: 'route',
      provider: serving.name,
      pattern: problem.pattern,
      label: `Send ${problem.pattern} to "${serving.name}"`,
    };
  if (preset) return { kind: 'preset', preset: preset.id, label: `Add ${preset.name} (its key)…` };
  return { kind: 'routing', label: 'Open Routing' };
}

/** Applies a fix that is one save (enable, route) to `cfg`, in place. */
export function applyFix(cfg: ConfigInput, fix: RouteFix): void {
  if (fix.kind === 'enable')
    cfg.providers = (cfg.providers ?? []).map((p) => (p.name === fix.provider ? { ...p, enabled: true } : p));
  if (fix.kind === 'route') {
    const rules = [...(cfg.routing?.rules ?? [])];
    const i = rules.findIndex((r) => r.pattern === fix.pattern);
    if (i >= 0)
      rules[i] = ruleWith(fix.pattern, [fix.provider, ...ruleProviders(rules[i]!).filter((n) => n !== fix.provider)]);
    else rules.unshift({ pattern: fix.pattern, provider: fix.provider });
    cfg.routing = { default_provider: cfg.routing?.default_provider ?? '', rules };
  }
}
