import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { Router } from './routing.ts';

function router(input: unknown): Router {
  const r = parseConfig(input);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return new Router(r.config, '/cfg/config.json');
}

const providers = ['a', 'b', 'c', 'off'].map((name) => ({
  name,
  base_url: `http://127.0.0.1/${name}`,
  enabled: name !== 'off',
}));

describe('Router.resolve', () => {
  const r = router({
    providers,
    routing: {
      default_provider: 'c',
      rules: [
        { pattern: 'gpt-*', provider: 'a' },
        { pattern: '*', provider: 'b' },
        { pattern: 'gpt-4*', provider: 'off' },
      ],
    },
    app_rules: [
      { app: 'Code', default_provider: 'b', model_override: 'gpt-4o' },
      { app: 'cursor', default_provider: 'a' },
    ],
  });

  it('adds every matching rule in listed order, then the default; skips disabled providers', () => {
    const route = r.resolve('gpt-4o', null);
    expect(route.candidates.map((c) => c.provider)).toEqual(['a', 'b', 'c']);
    expect(route.candidates.map((c) => c.reason)).toEqual(['rule:gpt-*', 'rule:*', 'default']);
    expect(route.skipped).toEqual([{ provider: 'off', reason: 'rule:gpt-4*, but it is disabled (enabled: false)' }]);
  });

  it('a lone * matches every model, slashes included; matching ignores case', () => {
    expect(r.resolve('meta-llama/llama-3', null).candidates.map((c) => c.provider)).toEqual(['b', 'c']);
    expect(r.resolve('GPT-4O', null).candidates[0]!.provider).toBe('a');
  });

  it('applies model_override before the rules; app names match case-insensitively and without .exe', () => {
    const route = r.resolve('whatever', 'Code.exe');
    expect(route.model).toBe('gpt-4o');
    expect(route.candidates[0]!.provider).toBe('a');
  });

  it('uses the app default_provider only when no rule matches, before routing.default_provider', () => {
    const only = router({
      providers,
      routing: { default_provider: 'c', rules: [{ pattern: 'gpt-*', provider: 'a' }] },
      app_rules: [{ app: 'cursor', default_provider: 'b' }],
    });
    expect(only.resolve('llama', 'cursor').candidates.map((c) => c.reason)).toEqual(['app:cursor', 'default']);
    expect(only.resolve('gpt-4o', 'cursor').candidates.map((c) => c.provider)).toEqual(['a', 'c']);
  });

  it('an app rule with only a model override rewrites the model, then falls through to the rules and the default', () => {
    const only = router({
      providers,
      routing: { default_provider: 'c', rules: [{ pattern: 'gpt-*', provider: 'a' }] },
      app_rules: [{ app: 'cursor', model_override: 'gpt-4o-mini' }],
    });
    const matched = only.resolve('claude-3', 'Cursor');
    expect(matched.model).toBe('gpt-4o-mini');
    expect(matched.candidates.map((c) => c.reason)).toEqual(['rule:gpt-*', 'default']);
    const fallThrough = router({
      providers,
      routing: { default_provider: 'c', rules: [{ pattern: 'gpt-*', provider: 'a' }] },
      app_rules: [{ app: 'cursor', model_override: 'llama3' }],
    }).resolve('gpt-4o', 'cursor');
    expect(fallThrough.model).toBe('llama3');
    expect(fallThrough.candidates.map((c) => c.reason)).toEqual(['default']);
    expect(fallThrough.steps).toContain('app rule "cursor" sets no default_provider (model_override only)');
  });

  it('has no candidate when nothing matches and there is no default; the message names the config path', () => {
    const none = router({
      providers,
      routing: { default_provider: '', rules: [{ pattern: 'gpt-*', provider: 'off' }] },
    });
    const route = none.resolve('gpt-4o', null);
    expect(route.candidates).toEqual([]);
    const { message, action } = none.noRouteMessage(route);
    expect(message).toContain('gpt-4o');
    expect(message).toContain('disabled');
    expect(action).toContain('/cfg/config.json');
  });
});

describe('failover chains per rule (routing.rules[].providers)', () => {
  it('a rule sends to its providers in order: primary, then its backups; a disabled one is skipped and said', () => {
    const r = router({
      providers,
      routing: {
        default_provider: 'c',
        rules: [
          { pattern: 'gpt-*', providers: ['b', 'off', 'a'] },
          { pattern: '*', provider: 'c' },
        ],
      },
    });
    const route = r.resolve('gpt-4o', null);
    expect(route.candidates.map((c) => c.provider)).toEqual(['b', 'a', 'c']);
    expect(route.candidates.map((c) => c.reason)).toEqual(['rule:gpt-*', 'rule:gpt-*', 'rule:*']);
    expect(route.skipped).toEqual([{ provider: 'off', reason: 'rule:gpt-*, but it is disabled (enabled: false)' }]);
    expect(route.steps).toContain('rule 1 "gpt-*" matches → b, then off, then a');
  });

  it('a single provider is a list of one; both fields, none, or a name twice are refused in words', () => {
    const base = { providers, routing: { default_provider: '', rules: [] as unknown[] } };
    const check = (rule: unknown) => parseConfig({ ...base, routing: { ...base.routing, rules: [rule] } });
    expect(check({ pattern: 'x', provider: 'a' }).ok).toBe(true);
    expect(check({ pattern: 'x', providers: ['a'] }).ok).toBe(true);
    const both = check({ pattern: 'x', provider: 'a', providers: ['b'] });
    expect(both.ok ? [] : both.problems.map((p) => p.path)).toEqual(['routing.rules[0].providers']);
    const none = check({ pattern: 'x' });
    expect(none.ok ? [] : none.problems.map((p) => `${p.path} ${p.message}`)).toEqual([
      'routing.rules[0].provider must name a provider (or list several in providers: the first is the primary, the rest its backups)',
    ]);
    const twice = check({ pattern: 'x', providers: ['a', 'a'] });
    expect(twice.ok ? [] : twice.problems.map((p) => p.path)).toEqual(['routing.rules[0].providers[1]']);
    const unknown = check({ pattern: 'x', providers: ['a', 'zzz'] });
    expect(unknown.ok ? [] : unknown.problems.map((p) => p.path)).toEqual(['routing.rules[0].providers[1]']);
    expect(check({ pattern: 'x', providers: [] }).ok).toBe(false);
  });
});
