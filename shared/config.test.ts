// The config schema's cross-field checks and its warnings (issue 15, bug 3).
import { describe, expect, it } from 'vitest';
import { ConfigSchema, configWarnings, parseConfig } from './config.ts';

const providers = [
  { name: 'a', base_url: 'http://127.0.0.1:1/v1' },
  { name: 'b', base_url: 'http://127.0.0.1:2/v1', enabled: false },
];

describe('app_rules', () => {
  it('refuses a second rule for the same app in another case (matching ignores case: it would never apply)', () => {
    const r = ConfigSchema.safeParse({
      providers,
      app_rules: [
        { app: 'cursor', default_provider: 'a' },
        { app: 'Cursor', default_provider: 'a' },
      ],
    });
    expect(r.success).toBe(false);
    const issue = r.error!.issues.find((i) => i.path.join('.') === 'app_rules.1.app');
    expect(issue?.message).toContain('same app as app_rules[0] ("cursor")');
  });

  it('counts a path or .exe as the same app too', () => {
    const r = ConfigSchema.safeParse({
      providers,
      app_rules: [
        { app: 'code', default_provider: 'a' },
        { app: 'C:\\Program Files\\Microsoft VS Code\\Code.exe', default_provider: 'a' },
      ],
    });
    expect(r.success).toBe(false);
  });

  it('takes a rule with only a model override (no provider), and says nothing of it in the warnings', () => {
    const r = ConfigSchema.safeParse({ providers, app_rules: [{ app: 'cursor', model_override: 'gpt-4o-mini' }] });
    expect(r.success).toBe(true);
    expect(configWarnings(r.data!)).toEqual([]);
  });

  it('refuses a rule that sets neither a provider nor a model override (it would do nothing), at default_provider', () => {
    const r = ConfigSchema.safeParse({ providers, app_rules: [{ app: 'cursor' }] });
    expect(r.success).toBe(false);
    const issue = r.error!.issues.find((i) => i.path.join('.') === 'app_rules.0.default_provider');
    expect(issue?.message).toContain('neither is model_override');
    // An empty provider is refused too (leave the field out instead).
    expect(ConfigSchema.safeParse({ providers, app_rules: [{ app: 'cursor', default_provider: '' }] }).success).toBe(
      false,
    );
  });

  it('takes different apps', () => {
    const r = ConfigSchema.safeParse({
      providers,
      app_rules: [
        { app: 'cursor', default_provider: 'a' },
        { app: 'code', default_provider: 'a' },
      ],
    });
    expect(r.success).toBe(true);
  });
});

describe('configWarnings', () => {
  it('names every rule, app rule and default that points at a disabled provider', () => {
    const cfg = ConfigSchema.parse({
      providers,
      routing: {
        default_provider: 'b',
        rules: [
          { pattern: 'gpt-*', provider: 'b' },
          { pattern: '*', provider: 'a' },
        ],
      },
      app_rules: [{ app: 'cursor', default_provider: 'b' }],
    });
    const w = configWarnings(cfg);
    expect(w.map((x) => x.path)).toEqual([
      'routing.default_provider',
      'routing.rules[0].provider',
      'app_rules[0].default_provider',
    ]);
    expect(w[1]!.message).toContain('"b", which is disabled');
  });

  it('says nothing when every named provider is enabled', () => {
    const cfg = ConfigSchema.parse({ providers, routing: { default_provider: 'a', rules: [] } });
    expect(configWarnings(cfg)).toEqual([]);
  });
});

describe('secret_guard and capture names', () => {
  it('says what is wrong with a name in a policy table (not "Invalid key in record") and quotes the name', () => {
    const long = 'x'.repeat(129);
    const r = parseConfig({
      secret_guard: { apps: { '': 'warn', [long]: 'block' } },
      capture: { apps: [''], days: -1 },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toEqual(
      expect.arrayContaining([
        { path: 'secret_guard.apps.', value: '', message: 'must not be empty' },
        { path: `secret_guard.apps.${long}`, value: long, message: 'must be at most 128 characters' },
        { path: 'capture.apps[0]', value: '', message: 'must not be empty' },
        { path: 'capture.days', value: -1, message: 'must be more than 0' },
      ]),
    );
  });
});

describe('routing.offline', () => {
  const offline = (o: Record<string, unknown>) =>
    ConfigSchema.safeParse({ providers, routing: { default_provider: 'a', rules: [], offline: o } });
  const issues = (o: Record<string, unknown>) => {
    const r = offline(o);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('needs a local provider when enabled, and each one a provider of the list', () => {
    expect(issues({ enabled: true, providers: [] })).toEqual([
      'routing.offline.providers: must name at least one provider when the offline fallback is enabled',
    ]);
    expect(issues({ enabled: true, providers: ['a', 'nope'] })).toEqual([
      'routing.offline.providers.1: names no provider; use one of: a, b',
    ]);
    // Off, it may be empty (kept for later); a disabled provider is a provider.
    expect(issues({ enabled: false, providers: [] })).toEqual([]);
    expect(issues({ enabled: true, providers: ['b'], model_map: { '*': 'qwen3:8b' } })).toEqual([]);
  });
});

describe('providers[].api_keys', () => {
  const pool = (api_keys: string[]) =>
    ConfigSchema.safeParse({ providers: [{ name: 'p', base_url: 'http://127.0.0.1:1/v1', api_keys }] });

  it('refuses a key listed twice in full', () => {
    const r = pool(['sk-pool-same-key-1111', 'sk-pool-same-key-1111']);
    expect(r.success).toBe(false);
    expect(r.error!.issues.find((i) => i.path.join('.') === 'providers.0.api_keys')?.message).toBe('lists a key twice');
  });

  it('takes two masked keys with one mask (the admin API masks short keys alike; the UI checks its masked copy)', () => {
    expect(pool(['****', '****', 'sk-****2222']).success).toBe(true);
  });
});
