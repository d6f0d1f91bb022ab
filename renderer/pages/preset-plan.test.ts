// Adding a provider from a preset in one step: the plan the form shows, and the config it saves (valid by the schema).
import { describe, expect, it } from 'vitest';
import { type ConfigInput, parseConfig } from '../../shared/config.ts';
import { presetById } from '../../shared/presets.ts';
import { applyPreset, presetPlan } from './preset-plan.ts';

/** The config of a first run: templates, all disabled (main/config/defaults.ts). */
const firstRun = (): ConfigInput => ({
  providers: [
    { name: 'openai', type: 'openai', base_url: 'https://api.openai.com/v1', api_key: '', enabled: false },
    { name: 'anthropic', type: 'anthropic', base_url: 'https://api.anthropic.com/v1', api_key: '', enabled: false },
    { name: 'openrouter', type: 'openai', base_url: 'https://openrouter.ai/api/v1', api_key: '', enabled: false },
  ],
  routing: {
    default_provider: 'openai',
    rules: [
      { pattern: 'gpt-*', provider: 'openai' },
      { pattern: 'claude-*', provider: 'anthropic' },
      { pattern: '*/*', provider: 'openrouter' },
    ],
  },
});

describe('a preset added in one step', () => {
  it("sets up the first run's template of the same name in place: enabled, keyed, its rules and the default", () => {
    const cfg = firstRun();
    const openai = presetById('openai')!;
    const plan = presetPlan(cfg, openai);
    expect(plan).toMatchObject({ name: 'openai', updates: 'openai', keyStored: false, defaultNow: 'openai' });
    expect(plan.defaultTicked).toBe(true);
    expect(plan.rules).toEqual([
      { pattern: 'gpt-*', already: true },
      { pattern: 'o[0-9]*', already: false },
      { pattern: 'chatgpt-*', already: false },
      { pattern: 'codex-*', already: false },
    ]);
    applyPreset(cfg, {
      preset: openai,
      name: plan.name,
      base_url: plan.base_url,
      key: 'sk-test-0123456789',
      patterns: plan.rules.map((r) => r.pattern),
      makeDefault: true,
    });
    expect(cfg.providers!.filter((p) => p.name === 'openai')).toEqual([
      {
        name: 'openai',
        type: 'openai',
        base_url: 'https://api.openai.com/v1',
        api_key: 'sk-test-0123456789',
        enabled: true,
      },
    ]);
    expect(cfg.routing!.rules!.map((r) => r.pattern)).toEqual([
      'o[0-9]*',
      'chatgpt-*',
      'codex-*',
      'gpt-*',
      'claude-*',
      '*/*',
    ]);
    expect(cfg.routing!.default_provider).toBe('openai');
    expect(parseConfig(cfg).ok).toBe(true);
  });

  it('a pattern another provider serves gets the new one as its primary, the other as its backup', () => {
    const cfg = firstRun();
    cfg.providers!.push({ name: 'azure', base_url: 'https://x.openai.azure.com/openai/v1', api_key: 'k' });
    cfg.routing!.rules!.unshift({ pattern: 'gpt-*', provider: 'azure' });
    cfg.routing!.rules = cfg.routing!.rules!.filter((r, i) => !(i > 0 && r.pattern === 'gpt-*'));
    cfg.routing!.default_provider = 'azure';
    const openai = presetById('openai')!;
    const plan = presetPlan(cfg, openai);
    expect(plan.defaultTicked).toBe(false); // azure is enabled and the default: not taken over unasked
    applyPreset(cfg, {
      preset: openai,
      name: 'openai',
      base_url: plan.base_url,
      key: 'sk-x',
      patterns: ['gpt-*'],
      makeDefault: false,
    });
    expect(cfg.routing!.rules![0]).toEqual({ pattern: 'gpt-*', providers: ['openai', 'azure'] });
    expect(cfg.routing!.default_provider).toBe('azure');
    expect(parseConfig(cfg).ok).toBe(true);
  });

  it('a name in use by an enabled provider elsewhere gets a number; an empty key keeps a stored one', () => {
    const cfg = firstRun();
    cfg.providers![0] = {
      ...cfg.providers![0]!,
      base_url: 'https://proxy.example.com/v1',
      enabled: true,
      api_key: 'sk-****abcd',
    };
    expect(presetPlan(cfg, presetById('openai')!)).toMatchObject({ name: 'openai-2', updates: null });
    const again = firstRun();
    again.providers![1] = { ...again.providers![1]!, api_key: 'sk-****abcd' };
    const plan = presetPlan(again, presetById('anthropic')!);
    expect(plan).toMatchObject({ name: 'anthropic', updates: 'anthropic', keyStored: true });
    applyPreset(again, {
      preset: presetById('anthropic')!,
      name: 'anthropic',
      base_url: plan.base_url,
      key: '',
      patterns: [],
      makeDefault: false,
    });
    expect(again.providers![1]).toMatchObject({ api_key: 'sk-****abcd', enabled: true });
  });

  it('a local service found running is added at the address it answered, with rules for its models', () => {
    const cfg = firstRun();
    const ollama = presetById('ollama')!;
    const found = {
      preset: 'ollama',
      base_url: 'http://127.0.0.1:11435',
      label: 'Ollama 0.9.1',
      models: ['llama3.2:latest', 'qwen2.5-coder:7b'],
      provider: null,
    };
    const plan = presetPlan(cfg, ollama, found);
    expect(plan.base_url).toBe('http://127.0.0.1:11435');
    expect(plan.rules.map((r) => r.pattern)).toEqual(['llama3.2', 'llama3.2:latest', 'qwen2.5-coder:7b']);
    applyPreset(cfg, {
      preset: ollama,
      name: plan.name,
      base_url: plan.base_url,
      key: '',
      patterns: ['llama3.2'],
      makeDefault: false,
    });
    expect(cfg.providers!.at(-1)).toEqual({
      name: 'ollama',
      type: 'ollama',
      base_url: 'http://127.0.0.1:11435',
      api_key: '',
      enabled: true,
    });
    expect(parseConfig(cfg).ok).toBe(true);
  });

  it("Azure's key goes in its api-key header", () => {
    const cfg = firstRun();
    const azure = presetById('azure-openai')!;
    applyPreset(cfg, {
      preset: azure,
      name: 'azure-openai',
      base_url: 'https://me.openai.azure.com/openai/v1',
      key: 'azkey123',
      patterns: [],
      makeDefault: false,
    });
    expect(cfg.providers!.at(-1)).toMatchObject({ api_key: '', headers: { 'api-key': 'azkey123' } });
    expect(parseConfig(cfg).ok).toBe(true);
  });
});
