// A tool's provider from the tray (app-provider.ts): which apps are listed, which providers offered, and the edit of
// config.json's app_rules (the rest of the file untouched).
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { TOOLS } from '../connect/tools/index.ts';
import { providerChoices, TRAY_TOOLS, trayApps, withAppProvider } from './app-provider.ts';

describe('the tray tools', () => {
  it('are Connect tools, by the app name Connect gives each and its name', () => {
    for (const t of TRAY_TOOLS) expect(TOOLS.find((x) => x.app === t.app)?.name).toBe(t.label);
  });

  it('lists Claude Code, Codex and Gemini CLI, then apps whose rule sets a provider (names ignore case)', () => {
    const apps = trayApps([
      { app: 'Claude-Code', default_provider: 'anthropic' },
      { app: 'cursor', default_provider: 'openai' },
      { app: 'aider', model_override: 'gpt-4o' },
    ]);
    expect(apps).toEqual([
      { app: 'claude-code', label: 'Claude Code', provider: 'anthropic' },
      { app: 'codex', label: 'Codex CLI', provider: null },
      { app: 'gemini-cli', label: 'Gemini CLI', provider: null },
      { app: 'cursor', label: 'cursor', provider: 'openai' },
    ]);
  });

  it('offers the enabled providers, and the current one even when disabled', () => {
    const providers = [
      { name: 'a', enabled: true },
      { name: 'b', enabled: false },
      { name: 'c', enabled: false },
    ];
    expect(providerChoices(providers, 'b')).toEqual([
      { name: 'a', enabled: true },
      { name: 'b', enabled: false },
    ]);
    expect(providerChoices(providers, null)).toEqual([{ name: 'a', enabled: true }]);
  });
});

describe('withAppProvider', () => {
  const raw = {
    listen_port: 11434,
    providers: [{ name: 'alpha', type: 'openai', base_url: 'http://x/v1', api_key: 'sk-1' }],
    app_rules: [
      { app: 'Cursor', default_provider: 'alpha', model_override: 'gpt-4o' },
      { app: 'codex', default_provider: 'alpha' },
    ],
  };

  it('adds a rule for an app without one, and changes the provider of one that has a rule (any case)', () => {
    expect(withAppProvider(raw, 'claude-code', 'alpha').app_rules).toEqual([
      ...raw.app_rules,
      { app: 'claude-code', default_provider: 'alpha' },
    ]);
    expect(withAppProvider(raw, 'cursor', 'beta').app_rules).toEqual([
      { app: 'Cursor', default_provider: 'beta', model_override: 'gpt-4o' },
      { app: 'codex', default_provider: 'alpha' },
    ]);
  });

  it('"routing rules decide" drops the provider, and the rule when it overrides no model either', () => {
    expect(withAppProvider(raw, 'codex', null).app_rules).toEqual([raw.app_rules[0]]);
    expect(withAppProvider(raw, 'cursor', null).app_rules).toEqual([
      { app: 'Cursor', model_override: 'gpt-4o' },
      { app: 'codex', default_provider: 'alpha' },
    ]);
    expect(withAppProvider(raw, 'gemini-cli', null)).toEqual(raw);
  });

  it('leaves everything else as it was, and what it writes is a valid config', () => {
    const next = withAppProvider(raw, 'claude-code', 'alpha');
    expect({ ...next, app_rules: raw.app_rules }).toEqual(raw);
    expect(raw.app_rules).toHaveLength(2); // not changed in place
    expect(parseConfig(next).ok).toBe(true);
  });
});
