// Which secret-guard policy applies to a request for one provider (docs/insight.md, "Secret guard"): a local provider is
// exempt unless `secret_guard.providers` names it; for a cloud provider, the app's entry or the provider's entry
// replaces `default`, and when both are set the stricter applies.
import ipaddr from 'ipaddr.js';
import { bareAppName } from '../../../shared/app-name.ts';
import type { Config } from '../../../shared/config.ts';
import type { GuardPolicy } from '../../../shared/insight.ts';
import type { PlanTarget } from '../forward/index.ts';

const STRICTNESS: Record<GuardPolicy, number> = { off: 0, warn: 1, redact: 2, block: 3 };

export function stricter(a: GuardPolicy, b: GuardPolicy): GuardPolicy {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

/**
 * A provider on this machine: type ollama, or a base_url on loopback (localhost, 127.0.0.0/8, ::1), unless
 * `quirks.provider_hosts` names a vendor's host for it (a local proxy standing in for a cloud vendor), the rule prices
 * follow too (main/usage/prices.ts).
 */
export function isLocalTarget(t: Pick<PlanTarget, 'kind' | 'baseUrl' | 'name'>, config: Config): boolean {
  // Kept per config and provider URL (the pool keeps one URL object per provider): nothing made per request.
  let byUrl = localByConfig.get(config);
  if (!byUrl) localByConfig.set(config, (byUrl = new WeakMap()));
  let local = byUrl.get(t.baseUrl);
  if (local === undefined) byUrl.set(t.baseUrl, (local = localNow(t, config)));
  return local;
}
const localByConfig = new WeakMap<Config, WeakMap<URL, boolean>>();

function localNow(t: Pick<PlanTarget, 'kind' | 'baseUrl' | 'name'>, config: Config): boolean {
  if (config.quirks.provider_hosts[t.name] !== undefined) return false;
  if (t.kind.type === 'ollama') return true;
  const h = t.baseUrl.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  return ipaddr.isValid(h) && ipaddr.process(h).range() === 'loopback';
}

/** The apps of `secret_guard.apps` by bare name (made once per config object). */
const appTables = new WeakMap<object, Map<string, GuardPolicy>>();
function appPolicy(config: Config, app: string | null): GuardPolicy | undefined {
  if (app === null) return undefined;
  const table = config.secret_guard.apps;
  let byBare = appTables.get(table);
  if (!byBare) {
    byBare = new Map(Object.entries(table).map(([name, p]) => [bareAppName(name), p]));
    appTables.set(table, byBare);
  }
  return byBare.get(bareAppName(app));
}

/** The policy for a request of `app` to the provider `t`. */
export function guardPolicy(
  config: Config,
  t: Pick<PlanTarget, 'kind' | 'baseUrl' | 'name'>,
  app: string | null,
): GuardPolicy {
  const g = config.secret_guard;
  const own = g.providers[t.name];
  if (isLocalTarget(t, config)) return own ?? 'off';
  const forApp = appPolicy(config, app);
  if (own !== undefined && forApp !== undefined) return stricter(own, forApp);
  return own ?? forApp ?? g.default;
}

/** Whether no provider of this config can get a policy other than off (the guard then costs nothing at all). */
export function guardAlwaysOff(config: Config): boolean {
  let off = alwaysOff.get(config);
  if (off === undefined) {
    const g = config.secret_guard;
    off =
      g.default === 'off' &&
      Object.values(g.providers).every((p) => p === 'off') &&
      Object.values(g.apps).every((p) => p === 'off');
    alwaysOff.set(config, off);
  }
  return off;
}
const alwaysOff = new WeakMap<Config, boolean>();
