// Claude Code: ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR/settings.json), its `env` block. ANTHROPIC_BASE_URL is
// Switchboard's root (Claude Code appends /v1/messages) and ANTHROPIC_AUTH_TOKEN is `app:claude-code`: Claude Code
// sends it as `Authorization: Bearer app:claude-code` without asking (an ANTHROPIC_API_KEY would need approving
// first), and Switchboard reads the app name from a Bearer key of the form `app:<name>`.
import { claudeDir, exists, onPath, pathsOf, pointsHere } from '../env.ts';
import { at, parseJsonc, setJsonc } from '../formats/jsonc.ts';
import type { UsualModel } from '../route-check.ts';
import { describeValue, type FileTool } from './types.ts';

const TOKEN = 'app:claude-code';

/**
 * The models Claude Code asks for when its settings name none (its opus, sonnet and haiku tiers; subagents use the
 * sonnet tier): the current Claude 4 models' dated ids, as Claude Code sends them.
 */
export const CLAUDE_CODE_DEFAULTS = {
  opus: 'claude-opus-4-1-20250805',
  sonnet: 'claude-sonnet-4-5-20250929',
  haiku: 'claude-haiku-4-5-20251001',
};
const TIER_ALIASES = new Set(['opus', 'sonnet', 'haiku', 'opusplan', 'default', 'sonnet[1m]']);

/** Claude Code's tiers, subagent model and main model, from settings.json's env and model (else its defaults). */
export function claudeCodeModels(text: string | null): UsualModel[] {
  let cfg: unknown = {};
  try {
    cfg = text === null ? {} : parseJsonc(text);
  } catch {
    return [];
  }
  const env = (at(cfg, 'env') ?? {}) as Record<string, unknown>;
  const pick = (label: string, name: string, fallback: string): UsualModel =>
    typeof env[name] === 'string' && env[name] !== ''
      ? { label, model: env[name], source: `settings.json env.${name}` }
      : { label, model: fallback, source: "Claude Code's default" };
  const sonnet = pick('Sonnet tier', 'ANTHROPIC_DEFAULT_SONNET_MODEL', CLAUDE_CODE_DEFAULTS.sonnet);
  const out = [
    pick('Opus tier', 'ANTHROPIC_DEFAULT_OPUS_MODEL', CLAUDE_CODE_DEFAULTS.opus),
    sonnet,
    pick('Haiku tier (background tasks)', 'ANTHROPIC_DEFAULT_HAIKU_MODEL', CLAUDE_CODE_DEFAULTS.haiku),
    typeof env.CLAUDE_CODE_SUBAGENT_MODEL === 'string' && env.CLAUDE_CODE_SUBAGENT_MODEL !== ''
      ? {
          label: 'Subagents',
          model: env.CLAUDE_CODE_SUBAGENT_MODEL,
          source: 'settings.json env.CLAUDE_CODE_SUBAGENT_MODEL',
        }
      : { label: 'Subagents', model: sonnet.model, source: 'the Sonnet tier (Claude Code’s default for subagents)' },
  ];
  const main = at(cfg, 'model');
  if (typeof main === 'string' && main !== '' && !TIER_ALIASES.has(main.toLowerCase()))
    out.unshift({ label: 'Main model', model: main, source: 'settings.json model' });
  return out;
}

export const claudeCode: FileTool = {
  kind: 'file',
  id: 'claude-code',
  name: 'Claude Code',
  app: 'claude-code',
  format: 'anthropic',
  async file(ctx) {
    return { path: pathsOf(ctx.env).join(claudeDir(ctx.env), 'settings.json'), role: "Claude Code's user settings" };
  },
  async installed(ctx) {
    return (await exists(claudeDir(ctx.env))) || onPath(ctx.env, 'claude');
  },
  read(text, ctx) {
    const value = text === null ? undefined : at(parseJsonc(text), 'env', 'ANTHROPIC_BASE_URL');
    if (value === undefined)
      return { state: 'not_connected', current: null, detail: 'env.ANTHROPIC_BASE_URL is not set' };
    const detail = `env.ANTHROPIC_BASE_URL is ${describeValue(value)}`;
    if (pointsHere(value, ctx.port, '')) return { state: 'connected', current: String(value), detail };
    return { state: 'elsewhere', current: typeof value === 'string' ? value : null, detail };
  },
  write(text, ctx) {
    return setJsonc(text ?? '', [
      [['env', 'ANTHROPIC_BASE_URL'], ctx.urls.anthropic],
      [['env', 'ANTHROPIC_AUTH_TOKEN'], TOKEN],
    ]);
  },
  usual: claudeCodeModels,
  values: (ctx) => [
    { label: 'ANTHROPIC_BASE_URL', value: ctx.urls.anthropic },
    { label: 'ANTHROPIC_AUTH_TOKEN', value: TOKEN },
  ],
  steps: (ctx, file) => [
    `In ${file}, add to the "env" object: "ANTHROPIC_BASE_URL": "${ctx.urls.anthropic}" and "ANTHROPIC_AUTH_TOKEN": "${TOKEN}".`,
    'Start a new Claude Code session (claude reads its settings at start); /status shows the base URL in use.',
    'Or for one shell only: export ANTHROPIC_BASE_URL=' + ctx.urls.anthropic + ' ANTHROPIC_AUTH_TOKEN=' + TOKEN,
  ],
};
