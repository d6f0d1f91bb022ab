// Adding a provider from a preset, in one step (issue 34): the provider (a template of the same name that is not set
// up yet is set up in place rather than added twice), the routing rules its models need (each put first: a pattern
// with a rule already gets the new provider as its primary, the others staying as backups; a new pattern gets a rule
// of its own at the top), and, when offered, the default provider. Pure (tested in Node): the page shows the plan,
// then applies the user's choice to a copy of the config and saves it.
import { type ConfigInput, type ProviderConfig, ruleProviders, ruleWith } from '../../shared/config.ts';
import { type DetectedService, localModelRules, type ProviderPreset } from '../../shared/presets.ts';

/** What adding `preset` would do to `cfg`, for the form to show (and pre-tick). */
export type PresetPlan = {
  /** The provider's name: the preset's id, or the template of that name, or the id with a number when it is taken. */
  name: string;
  /** A provider of that name that is set up in place (a disabled template, or the one at this address). */
  updates: string | null;
  /** It has a key stored already (the field may stay empty to keep it). */
  keyStored: boolean;
  base_url: string;
  /** Each model pattern offered: `already` when its rule sends it there first already. */
  rules: { pattern: string; already: boolean }[];
  /** The default provider now ('' for none). */
  defaultNow: string;
  /** Offered ticked: there is no default provider, or it is not enabled, or it is this one. */
  defaultTicked: boolean;
};

const enabledNames = (cfg: ConfigInput) =>
  new Set((cfg.providers ?? []).filter((p) => p.enabled !== false).map((p) => p.name));

export function presetPlan(cfg: ConfigInput, preset: ProviderPreset, detected?: DetectedService): PresetPlan {
  const providers = (cfg.providers ?? []) as ProviderConfig[];
  const base_url = detected?.base_url ?? preset.base_url;
  // The provider already at this address (a local service added before), else a template of the preset's name that
  // is not in use (disabled), else a new name.
  const sameAddress = providers.find((p) => p.base_url.replace(/\/+$/, '') === base_url.replace(/\/+$/, ''));
  const sameName = providers.find((p) => p.name === preset.id);
  let updates: ProviderConfig | undefined =
    sameAddress ?? (sameName && sameName.enabled === false ? sameName : undefined);
  let name = updates?.name ?? preset.id;
  if (!updates && sameName) {
    let n = 2;
    while (providers.some((p) => p.name === `${preset.id}-${n}`)) n++;
    name = `${preset.id}-${n}`;
  }
  if (updates && updates.name !== name) updates = undefined;
  const patterns = detected ? localModelRules(detected.models) : preset.models;
  const rules = (cfg.routing?.rules ?? []) as { pattern: string; provider?: string; providers?: string[] }[];
  const defaultNow = cfg.routing?.default_provider ?? '';
  const enabled = enabledNames(cfg);
  return {
    name,
    updates: updates?.name ?? null,
    keyStored: !!updates && ((updates.api_key ?? '') !== '' || Object.keys(updates.headers ?? {}).length > 0),
    base_url: updates && updates.enabled !== false ? updates.base_url : base_url,
    rules: patterns.map((pattern) => ({
      pattern,
      already: rules.some((r) => r.pattern === pattern && ruleProviders(r)[0] === name),
    })),
    defaultNow,
    defaultTicked: defaultNow === '' || defaultNow === name || !enabled.has(defaultNow),
  };
}

/** What the user chose in the form. */
export type PresetChoice = {
  preset: ProviderPreset;
  name: string;
  base_url: string;
  /** As typed; empty keeps a stored one (the masked value is sent back) or means none (a local service). */
  key: string;
  /** The patterns ticked. */
  patterns: string[];
  makeDefault: boolean;
};

/** Applies the choice to `cfg` (a copy of the stored config, in place). */
export function applyPreset(cfg: ConfigInput, choice: PresetChoice): void {
  const { preset, name } = choice;
  const providers = [...((cfg.providers ?? []) as ProviderConfig[])];
  const at = providers.findIndex((p) => p.name === name);
  const before = at >= 0 ? providers[at]! : undefined;
  const key = choice.key.trim();
  const entry: ProviderConfig = {
    ...(before ?? {}),
    name,
    type: preset.type,
    base_url: choice.base_url.trim(),
    api_key: preset.key_header ? '' : key || (before?.api_key ?? ''),
    enabled: true,
  } as ProviderConfig;
  if (preset.key_header) {
    const kept = before?.headers?.[preset.key_header];
    entry.headers = { ...(before?.headers ?? {}), [preset.key_header]: key || kept || '' };
  }
  if (at >= 0) providers[at] = entry;
  else providers.push(entry);
  cfg.providers = providers;

  const rules = [...(cfg.routing?.rules ?? [])];
  const added: typeof rules = [];
  for (const pattern of choice.patterns) {
    const i = rules.findIndex((r) => r.pattern === pattern);
    if (i >= 0) {
      const chain = ruleProviders(rules[i]!).filter((n) => n !== name);
      rules[i] = ruleWith(pattern, [name, ...chain]);
    } else added.push(ruleWith(pattern, [name]));
  }
  cfg.routing = {
    default_provider: choice.makeDefault ? name : (cfg.routing?.default_provider ?? ''),
    rules: [...added, ...rules],
  };
}
