// Connect's routing check (issue 34) and the tools it reads: Claude Code's tiers and subagent model, Codex's and
// Gemini CLI's default model, each checked against a real Router; a disabled primary, no route and a vendor that
// has no such model are said with the fix's preset; Zed's settings are written and read back in place.
import { describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../shared/config.ts';
import { Router } from '../proxy/routing.ts';
import { checkRoute, presetServing } from './route-check.ts';
import { CLAUDE_CODE_DEFAULTS, claudeCodeModels } from './tools/claude-code.ts';
import { codex, CODEX_DEFAULT_MODEL } from './tools/codex.ts';
import { zed } from './tools/zed.ts';
import { baseUrlsFor } from './env.ts';

function config(input: unknown): Config {
  const r = parseConfig(input);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}
/** The first run's templates with OpenAI set up: claude-* still names the disabled anthropic. */
const firstRunWithOpenai = config({
  providers: [
    { name: 'openai', base_url: 'https://api.openai.com/v1', api_key: 'sk-x' },
    { name: 'anthropic', type: 'anthropic', base_url: 'https://api.anthropic.com/v1', enabled: false },
    { name: 'openrouter', base_url: 'https://openrouter.ai/api/v1', enabled: false },
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
const check = (cfg: Config, model: string, app = 'claude-code') =>
  checkRoute(
    { label: 'Sonnet tier', model, source: 'x' },
    new Router(cfg, '/c.json').preview(model, app),
    cfg,
    'Claude Code',
  );

describe("Connect's routing check", () => {
  it('a claude-* rule naming a disabled provider: its requests go to the default instead, said with the fix', () => {
    const r = check(firstRunWithOpenai, CLAUDE_CODE_DEFAULTS.sonnet);
    expect(r.provider).toBe('openai');
    expect(r.problem).toEqual({
      kind: 'disabled',
      message: `the rule claude-* names "anthropic", which is disabled, so Claude Code's requests go to "openai" instead, OpenAI's API, which has no such model (model not found).`,
      provider: 'anthropic',
      preset: 'anthropic',
      pattern: 'claude-*',
    });
  });

  it("no rule for Claude's models and OpenAI as the default: a model OpenAI's API does not have", () => {
    const cfg = config({ ...firstRunWithOpenai, routing: { default_provider: 'openai', rules: [] } });
    expect(check(cfg, 'claude-sonnet-4-5').problem).toMatchObject({
      kind: 'wrong_vendor',
      provider: 'openai',
      preset: 'anthropic',
      pattern: 'claude-*',
    });
  });

  it('no enabled provider at all: no route; served well: no problem; a disabled backup behind a primary: no problem', () => {
    const none = config({ ...firstRunWithOpenai, routing: { default_provider: '', rules: [] } });
    expect(check(none, 'claude-x').problem).toMatchObject({ kind: 'no_route', preset: 'anthropic' });
    const good = config({
      providers: [
        { name: 'anthropic', type: 'anthropic', base_url: 'https://api.anthropic.com/v1', api_key: 'k' },
        { name: 'off', base_url: 'https://openrouter.ai/api/v1', enabled: false },
      ],
      routing: { default_provider: '', rules: [{ pattern: 'claude-*', providers: ['anthropic', 'off'] }] },
    });
    expect(check(good, 'claude-opus-4-1')).toMatchObject({
      provider: 'anthropic',
      via: 'rule:claude-*',
      problem: null,
    });
    expect(presetServing('deepseek-chat')?.preset.id).toBe('deepseek');
  });
});

describe("the tools' usual models", () => {
  it("Claude Code: its tiers and subagent model from settings.json's env, else its defaults", () => {
    expect(claudeCodeModels(null).map((m) => [m.label, m.model])).toEqual([
      ['Opus tier', CLAUDE_CODE_DEFAULTS.opus],
      ['Sonnet tier', CLAUDE_CODE_DEFAULTS.sonnet],
      ['Haiku tier (background tasks)', CLAUDE_CODE_DEFAULTS.haiku],
      ['Subagents', CLAUDE_CODE_DEFAULTS.sonnet],
    ]);
    const text = JSON.stringify({
      model: 'claude-opus-4-1',
      env: { ANTHROPIC_DEFAULT_HAIKU_MODEL: 'glm-4.5-air', CLAUDE_CODE_SUBAGENT_MODEL: 'glm-4.6' },
    });
    expect(claudeCodeModels(text).map((m) => `${m.label}: ${m.model} (${m.source})`)).toEqual([
      'Main model: claude-opus-4-1 (settings.json model)',
      `Opus tier: ${CLAUDE_CODE_DEFAULTS.opus} (Claude Code's default)`,
      `Sonnet tier: ${CLAUDE_CODE_DEFAULTS.sonnet} (Claude Code's default)`,
      'Haiku tier (background tasks): glm-4.5-air (settings.json env.ANTHROPIC_DEFAULT_HAIKU_MODEL)',
      'Subagents: glm-4.6 (settings.json env.CLAUDE_CODE_SUBAGENT_MODEL)',
    ]);
    expect(claudeCodeModels('{ not json')).toEqual([]);
  });
  it("Codex: config.toml's model, else its default", () => {
    expect(codex.usual!(null)).toEqual([
      { label: 'Default model', model: CODEX_DEFAULT_MODEL, source: "Codex's default" },
    ]);
    expect(codex.usual!('model = "o3"\n')[0]!.model).toBe('o3');
  });
});

describe('Zed', () => {
  const ctx = {
    env: { home: '/h', env: {}, platform: 'linux' as const },
    port: 11500,
    urls: baseUrlsFor(11500),
    models: [],
  };
  it("points Zed's Ollama provider at Switchboard, keeping the comments and the rest", () => {
    const before =
      '// Zed settings\n{\n  "theme": "One Dark", // mine\n  "language_models": { "ollama": { "low_speed_timeout_in_seconds": 60 } }\n}\n';
    expect(zed.read(before, ctx, 'f').state).toBe('not_connected');
    const after = zed.write(before, ctx, 'f');
    expect(after).toContain('// Zed settings');
    expect(after).toContain('"theme": "One Dark", // mine');
    expect(after).toContain('"low_speed_timeout_in_seconds": 60');
    expect(zed.read(after, ctx, 'f')).toMatchObject({ state: 'connected', current: 'http://localhost:11500' });
    expect(zed.read('{"language_models": {"ollama": {"api_url": "http://localhost:11434"}}}', ctx, 'f').state).toBe(
      'elsewhere',
    );
  });
});
