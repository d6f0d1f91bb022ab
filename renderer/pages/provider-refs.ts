// Where a config names a provider (routing rules, the default provider, the offline fallback's local providers, app
// rules, price overrides, quirks' provider_hosts), in words, and the two changes the Providers page offers when one is renamed or deleted: rename
// every reference, or remove them (an app rule that also overrides the model keeps its override).
import { type ConfigInput, ruleProviders, ruleWith } from '../../shared/config.ts';

/** Each place `cfg` names provider `name`, in words ("routing rule 1 (gpt-*)"). */
export function providerRefs(cfg: ConfigInput, name: string): string[] {
  const out: string[] = [];
  (cfg.routing?.rules ?? []).forEach((r, i) => {
    if (ruleProviders(r).includes(name)) out.push(`routing rule ${i + 1} (${r.pattern})`);
  });
  if (cfg.routing?.default_provider === name) out.push('the default provider');
  if (cfg.routing?.offline?.providers?.includes(name)) out.push('the offline fallback');
  for (const r of cfg.app_rules ?? []) if (r.default_provider === name) out.push(`the app rule for ${r.app}`);
  (cfg.prices ?? []).forEach((p, i) => {
    if (p.provider === name) out.push(`price override ${i + 1}`);
  });
  if (cfg.quirks?.provider_hosts && name in cfg.quirks.provider_hosts) out.push('quirks.provider_hosts');
  return out;
}

/** Renames every reference to `from` into `to` (in place). */
export function renameProviderRefs(cfg: ConfigInput, from: string, to: string): void {
  if (cfg.routing) {
    if (cfg.routing.rules)
      cfg.routing.rules = cfg.routing.rules.map((r) =>
        ruleProviders(r).includes(from) ? { ...r, ...renamed(r, from, to) } : r,
      );
    if (cfg.routing.default_provider === from) cfg.routing.default_provider = to;
    const off = cfg.routing.offline;
    if (off?.providers) off.providers = off.providers.map((n) => (n === from ? to : n));
  }
  for (const r of cfg.app_rules ?? []) if (r.default_provider === from) r.default_provider = to;
  for (const p of cfg.prices ?? []) if (p.provider === from) p.provider = to;
  const hosts = cfg.quirks?.provider_hosts;
  if (hosts && from in hosts) {
    hosts[to] = hosts[from]!;
    delete hosts[from];
  }
}

/**
 * Removes every reference to `name` (in place): it leaves its routing rules' lists (a rule left with none goes), its
 * price overrides go, the default provider is
 * cleared, the offline fallback loses it (and is turned off when it has no local provider left), an app rule loses its provider (and goes when it has no model override left), its provider_hosts entry goes.
 */
export function removeProviderRefs(cfg: ConfigInput, name: string): void {
  if (cfg.routing) {
    // A rule loses the provider from its list; a rule left with none goes.
    if (cfg.routing.rules)
      cfg.routing.rules = cfg.routing.rules.flatMap((r) => {
        const list = ruleProviders(r);
        if (!list.includes(name)) return [r];
        const left = list.filter((n) => n !== name);
        return left.length ? [ruleWith(r.pattern, left)] : [];
      });
    if (cfg.routing.default_provider === name) cfg.routing.default_provider = '';
    const off = cfg.routing.offline;
    if (off?.providers?.includes(name)) {
      off.providers = off.providers.filter((n) => n !== name);
      if (off.providers.length === 0) off.enabled = false;
    }
  }
  if (cfg.app_rules)
    cfg.app_rules = cfg.app_rules.flatMap((r) => {
      if (r.default_provider !== name) return [r];
      const { default_provider: _gone, ...rest } = r;
      return rest.model_override ? [rest] : [];
    });
  if (cfg.prices) cfg.prices = cfg.prices.filter((p) => p.provider !== name);
  if (cfg.quirks?.provider_hosts) delete cfg.quirks.provider_hosts[name];
}

/** The rule's provider field(s) with `from` renamed `to`, in the form the rule had. */
function renamed(r: { provider?: string; providers?: string[] }, from: string, to: string) {
  return r.providers ? { providers: r.providers.map((n) => (n === from ? to : n)) } : { provider: to };
}
