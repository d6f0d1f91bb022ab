// Renaming or deleting a provider that rules use (issue 15): every reference is found, renamed or removed, and the
// result is a config the shared schema takes.
import { describe, expect, it } from 'vitest';
import { type ConfigInput, parseConfig } from '../../shared/config.ts';
import { providerRefs, removeProviderRefs, renameProviderRefs } from './provider-refs.ts';

const config = (): ConfigInput => ({
  providers: [
    { name: 'alpha', base_url: 'http://127.0.0.1:1/v1' },
    { name: 'beta', base_url: 'http://127.0.0.1:2/v1' },
  ],
  routing: {
    default_provider: 'alpha',
    rules: [
      { pattern: 'gpt-*', provider: 'alpha' },
      { pattern: '*', provider: 'beta' },
    ],
  },
  app_rules: [
    { app: 'cursor', default_provider: 'alpha' },
    { app: 'code', default_provider: 'alpha', model_override: 'gpt-4o' },
    { app: 'zed', default_provider: 'beta' },
  ],
  prices: [{ provider: 'alpha', input: 1, output: 2 }],
  quirks: { provider_hosts: { alpha: 'api.openai.com' }, entries: [] },
});

describe('provider references', () => {
  it('lists every place a provider is named, in words', () => {
    expect(providerRefs(config(), 'alpha')).toEqual([
      'routing rule 1 (gpt-*)',
      'the default provider',
      'the app rule for cursor',
      'the app rule for code',
      'price override 1',
      'quirks.provider_hosts',
    ]);
    expect(providerRefs(config(), 'gamma')).toEqual([]);
  });

  it('renames every reference, and the renamed config is valid', () => {
    const cfg = config();
    cfg.providers![0]!.name = 'omega';
    renameProviderRefs(cfg, 'alpha', 'omega');
    expect(providerRefs(cfg, 'alpha')).toEqual([]);
    expect(providerRefs(cfg, 'omega')).toHaveLength(6);
    expect(cfg.quirks!.provider_hosts).toEqual({ omega: 'api.openai.com' });
    expect(parseConfig(cfg).ok).toBe(true);
  });

  it('removes every reference (an app rule with an override keeps it), and the config without it is valid', () => {
    const cfg = config();
    cfg.providers = cfg.providers!.filter((p) => p.name !== 'alpha');
    removeProviderRefs(cfg, 'alpha');
    expect(cfg.routing).toEqual({ default_provider: '', rules: [{ pattern: '*', provider: 'beta' }] });
    expect(cfg.app_rules).toEqual([
      { app: 'code', model_override: 'gpt-4o' },
      { app: 'zed', default_provider: 'beta' },
    ]);
    expect(cfg.prices).toEqual([]);
    expect(cfg.quirks!.provider_hosts).toEqual({});
    expect(parseConfig(cfg).ok).toBe(true);
  });
});

describe('provider references in failover chains (routing.rules[].providers)', () => {
  const chained = (): ConfigInput => ({
    providers: [
      { name: 'alpha', base_url: 'http://127.0.0.1:1/v1' },
      { name: 'beta', base_url: 'http://127.0.0.1:2/v1' },
    ],
    routing: {
      default_provider: '',
      rules: [
        { pattern: 'gpt-*', providers: ['alpha', 'beta'] },
        { pattern: 'o*', providers: ['alpha'] },
      ],
    },
  });
  it('finds, renames in place (order kept) and removes from the list; a rule left with none goes', () => {
    expect(providerRefs(chained(), 'beta')).toEqual(['routing rule 1 (gpt-*)']);
    const renamed = chained();
    renamed.providers![1]!.name = 'gamma';
    renameProviderRefs(renamed, 'beta', 'gamma');
    expect(renamed.routing!.rules).toEqual([
      { pattern: 'gpt-*', providers: ['alpha', 'gamma'] },
      { pattern: 'o*', providers: ['alpha'] },
    ]);
    expect(parseConfig(renamed).ok).toBe(true);
    const removed = chained();
    removed.providers = removed.providers!.filter((p) => p.name !== 'alpha');
    removeProviderRefs(removed, 'alpha');
    expect(removed.routing!.rules).toEqual([{ pattern: 'gpt-*', provider: 'beta' }]);
    expect(parseConfig(removed).ok).toBe(true);
  });
});

describe('provider references in the offline fallback (routing.offline.providers)', () => {
  const withOffline = (): ConfigInput => ({
    providers: [
      { name: 'cloud', base_url: 'https://api.example.com/v1' },
      { name: 'ollama', type: 'ollama', base_url: 'http://127.0.0.1:11435' },
      { name: 'lmstudio', base_url: 'http://localhost:1234/v1' },
    ],
    routing: {
      default_provider: 'cloud',
      rules: [],
      offline: { enabled: true, providers: ['ollama', 'lmstudio'], model_map: { '*': 'qwen3:8b' } },
    },
  });
  it('finds, renames in place (order kept) and removes; the last one gone turns the fallback off', () => {
    const cfg = withOffline();
    expect(providerRefs(cfg, 'ollama')).toEqual(['the offline fallback']);
    cfg.providers![1]!.name = 'local';
    renameProviderRefs(cfg, 'ollama', 'local');
    expect(cfg.routing!.offline!.providers).toEqual(['local', 'lmstudio']);
    expect(parseConfig(cfg).ok).toBe(true);
    cfg.providers = cfg.providers!.filter((p) => p.name !== 'local');
    removeProviderRefs(cfg, 'local');
    expect(cfg.routing!.offline).toMatchObject({ enabled: true, providers: ['lmstudio'] });
    cfg.providers = cfg.providers.filter((p) => p.name !== 'lmstudio');
    removeProviderRefs(cfg, 'lmstudio');
    expect(cfg.routing!.offline).toMatchObject({ enabled: false, providers: [] });
    expect(parseConfig(cfg).ok).toBe(true);
  });
});
