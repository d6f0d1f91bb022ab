// Which provider serves a tool, switched from the tray (as cc-switch's tray switches Claude Code's, Codex's and Gemini
// CLI's provider): the app rule's default_provider, written to config.json by the engine's store like any save
// (validated, atomic, a backup kept). Routing rules still come first: the app's provider serves the models no rule
// matches (docs/ARCHITECTURE.md, "Routing order"), which the submenu says.
import type { AppRule, ProviderConfig } from '../../shared/config.ts';

/**
 * The tools the tray always offers, by the app name Connect gives each (main/connect/tools: claude-code, codex,
 * gemini-cli) and its name; any other app with an app rule follows under its own name.
 */
export const TRAY_TOOLS: readonly { app: string; label: string }[] = [
  { app: 'claude-code', label: 'Claude Code' },
  { app: 'codex', label: 'Codex CLI' },
  { app: 'gemini-cli', label: 'Gemini CLI' },
];

/** At most this many apps in the tray (the first three tools, then app rules in config order). */
export const TRAY_APPS_MAX = 8;

export type TrayApp = {
  app: string;
  label: string;
  /** The app rule's default_provider; null: the routing rules decide. */
  provider: string | null;
};

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase(); // app names ignore case

/** The apps the tray lists, each with its app rule's provider. */
export function trayApps(appRules: readonly AppRule[]): TrayApp[] {
  const ruleFor = (app: string) => appRules.find((r) => same(r.app, app));
  const tools = TRAY_TOOLS.map((t) => ({ ...t, provider: ruleFor(t.app)?.default_provider ?? null }));
  const others = appRules
    .filter((r) => r.default_provider !== undefined && !TRAY_TOOLS.some((t) => same(t.app, r.app)))
    .map((r) => ({ app: r.app, label: r.app, provider: r.default_provider ?? null }));
  return [...tools, ...others].slice(0, TRAY_APPS_MAX);
}

/** The providers the tray offers an app: the enabled ones, and the app's current one even when it is disabled. */
export function providerChoices(
  providers: readonly Pick<ProviderConfig, 'name' | 'enabled'>[],
  current: string | null,
): { name: string; enabled: boolean }[] {
  return providers
    .filter((p) => p.enabled !== false || p.name === current)
    .map((p) => ({ name: p.name, enabled: p.enabled !== false }));
}

/**
 * config.json (as read, raw) with `app`'s provider set: its rule's default_provider changed, or a rule added for it;
 * `null` takes the provider off (the rule goes when it overrides no model either). Everything else is left as it was.
 */
export function withAppProvider(
  raw: Record<string, unknown>,
  app: string,
  provider: string | null,
): Record<string, unknown> {
  const rules = Array.isArray(raw.app_rules) ? (raw.app_rules as Record<string, unknown>[]) : [];
  const at = rules.findIndex((r) => typeof r?.app === 'string' && same(r.app, app));
  const next = rules.map((r) => ({ ...r }));
  if (provider !== null) {
    if (at === -1) next.push({ app, default_provider: provider });
    else next[at]!.default_provider = provider;
  } else if (at !== -1) {
    delete next[at]!.default_provider;
    if (next[at]!.model_override === undefined) next.splice(at, 1);
  }
  return { ...raw, app_rules: next };
}
