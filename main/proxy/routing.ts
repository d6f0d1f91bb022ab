// Route resolution: app_rules, then every matching routing rule in order, then the default provider.
import micromatch from 'micromatch';
import type { RouteCandidate, RouteExplanation, RouteSkip } from '../../shared/admin.ts';
import { type AppRule, type Config, type ProviderConfig, ruleProviders } from '../../shared/config.ts';
import { bareAppName } from './apps/os-process.ts';
import { mapModel } from './offline.ts';
import { RouteChoice, type StrategyGroup } from './strategy/choose.ts';

/** Globs: `*` matches any run of characters (slashes too, so a lone `*` matches every model); case-insensitive. */
const GLOB_OPTIONS = { bash: true, nocase: true } as const;

/**
 * A candidate with its provider's config; `label` is what x-switchboard-route and the request log say when it serves
 * (its reason, and the strategy that chose it: "rule:claude-*; strategy=cheapest"), absent when that is the reason.
 */
export type ResolvedCandidate = RouteCandidate & { config: ProviderConfig; label?: string };
/** A route; `choice` holds its rules' strategies (null when none has one: the candidates are tried as listed). */
export type ResolvedRoute = Omit<RouteExplanation, 'candidates'> & {
  candidates: ResolvedCandidate[];
  choice: RouteChoice | null;
  /** A matching rule has continue_on_cut: a stream cut after its text started is continued (forward/continuation.ts). */
  continueOnCut: boolean;
  /** A candidate holds a key pool (api_keys): the request's session is then asked for (strategy/sticky.ts). */
  keyPools: boolean;
};

/** Compiled routing for one config: glob matchers built once, routes cached per (app, model). */
export class Router {
  private readonly matchers: ((model: string) => boolean)[];
  private readonly providers: Map<string, ProviderConfig>;
  private readonly appRules: Map<string, AppRule>;
  private readonly cache = new Map<string, ResolvedRoute>();

  constructor(
    private readonly config: Config,
    private readonly configPath: string,
  ) {
    this.matchers = config.routing.rules.map((r) => micromatch.matcher(r.pattern, GLOB_OPTIONS));
    this.providers = new Map(config.providers.map((p) => [p.name, p]));
    this.appRules = new Map();
    for (const rule of config.app_rules) {
      const key = bareAppName(rule.app);
      if (!this.appRules.has(key)) this.appRules.set(key, rule);
    }
  }

  /** True when some app rule exists, i.e. knowing the calling app can change a route. */
  get hasAppRules(): boolean {
    return this.appRules.size > 0;
  }

  /** Bound so it can be passed around as a predicate. */
  readonly hasAppRule = (app: string): boolean => this.appRules.has(bareAppName(app));

  appRuleFor(app: string | null): AppRule | null {
    if (!app || this.appRules.size === 0) return null;
    return this.appRules.get(bareAppName(app)) ?? null;
  }

  resolve(requestedModel: string, app: string | null): ResolvedRoute {
    const appRule = this.appRuleFor(app);
    const key = `${appRule?.app ?? ''}\u0000${requestedModel}`;
    const hit = this.cache.get(key);
    if (hit) return app === hit.app ? hit : { ...hit, app };
    const route = this.compute(requestedModel, app, appRule);
    if (this.cache.size >= 2000) this.cache.clear();
    this.cache.set(key, route);
    return route;
  }

  /** The route of a model for an app, computed afresh: for model listings, which must not churn resolve()'s cache. */
  preview(requestedModel: string, app: string | null): ResolvedRoute {
    return this.compute(requestedModel, app, this.appRuleFor(app));
  }

  /** The routing rules' patterns, in order. */
  get patterns(): string[] {
    return this.config.routing.rules.map((r) => r.pattern);
  }

  private compute(requestedModel: string, app: string | null, appRule: AppRule | null): ResolvedRoute {
    const steps: string[] = [];
    const candidates: ResolvedCandidate[] = [];
    const skipped: RouteSkip[] = [];
    const seen = new Set<string>();
    let model = requestedModel;

    if (appRule) {
      steps.push(`app "${app}" matches app rule "${appRule.app}"`);
      if (appRule.model_override) {
        model = appRule.model_override;
        steps.push(`model_override rewrites "${requestedModel}" to "${model}"`);
      }
    } else if (app) {
      steps.push(`app "${app}" has no app rule`);
    }

    const groups: StrategyGroup[] = [];
    const add = (name: string, reason: string, label?: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const p = this.providers.get(name);
      if (!p) skipped.push({ provider: name, reason: `${reason}, but no provider has this name` });
      else if (!p.enabled) skipped.push({ provider: name, reason: `${reason}, but it is disabled (enabled: false)` });
      else
        candidates.push(label ? { provider: name, reason, config: p, label } : { provider: name, reason, config: p });
    };

    let matched = 0;
    let continueOnCut = false;
    this.config.routing.rules.forEach((rule, i) => {
      if (this.matchers[i]!(model)) {
        matched++;
        if (rule.continue_on_cut === true && !continueOnCut) {
          continueOnCut = true;
          steps.push(
            `rule ${i + 1} "${rule.pattern}" has continue_on_cut: a stream cut after its text started is continued on the next provider`,
          );
        }
        // A rule's providers in order: its primary, then its backups (routing.rules[].providers).
        const list = ruleProviders(rule);
        const strategy = rule.strategy;
        steps.push(
          `rule ${i + 1} "${rule.pattern}" matches → ${list.join(strategy ? ', ' : ', then ')}${strategy ? ` (strategy ${strategy})` : ''}`,
        );
        const from = candidates.length;
        const reason = `rule:${rule.pattern}`;
        const label = strategy ? `${reason}; strategy=${strategy}` : undefined;
        for (const name of list) add(name, reason, label);
        if (strategy) groups.push({ strategy, rule: i, pattern: rule.pattern, from, to: candidates.length });
      }
    });
    if (matched === 0) {
      steps.push(`no routing rule matches "${model}"`);
      if (appRule?.default_provider) {
        steps.push(`app default_provider → ${appRule.default_provider}`);
        add(appRule.default_provider, `app:${appRule.app}`);
      } else if (appRule) {
        steps.push(`app rule "${appRule.app}" sets no default_provider (model_override only)`);
      }
    }
    const def = this.config.routing.default_provider;
    if (def) {
      steps.push(`routing.default_provider → ${def}`);
      add(def, 'default');
    } else {
      steps.push('routing.default_provider is not set');
    }

    const off = this.config.routing.offline;
    if (off?.enabled && off.providers.length) {
      const local = mapModel(off.model_map, model);
      steps.push(
        local === null
          ? `routing.offline is on, but no glob of its model_map matches "${model}": not served locally in an outage`
          : `if every provider above is out of reach (cannot connect, timeout, circuit open, 5xx/529): routing.offline → ${off.providers.join(', then ')} as "${local}"`,
      );
    }

    return {
      requested_model: requestedModel,
      model,
      app,
      app_rule: appRule ? { ...appRule } : null,
      candidates,
      skipped,
      steps,
      choice: groups.length ? new RouteChoice(groups, model) : null,
      continueOnCut,
      keyPools: candidates.some((c) => c.config.api_keys !== undefined),
    };
  }

  /** The sentence a client reads when no provider can take its model. */
  noRouteMessage(route: ResolvedRoute): { message: string; action: string } {
    const why = route.skipped.length
      ? ` (${route.skipped.map((s) => `${s.provider}: ${s.reason.replace(/^rule:|^app:|^default$/, (m) => m)}`).join('; ')})`
      : '';
    return {
      message: `No enabled provider can serve model "${route.model}"${why}.`,
      action: `Add a routing rule whose pattern matches "${route.model}", set routing.default_provider, or enable the provider, in ${this.configPath}.`,
    };
  }
}
