// Claude Code: ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR/settings.json), its `env` block. ANTHROPIC_BASE_URL is
// Switchboard's root (Claude Code appends /v1/messages) and ANTHROPIC_AUTH_TOKEN is `app:claude-code`: Claude Code
// sends it as `Authorization: Bearer app:claude-code` without asking (an ANTHROPIC_API_KEY would need approving
// first), and Switchboard reads the app name from a Bearer key of the form `app:<name>`.
import { claudeDir, exists, onPath, pathsOf, pointsHere } from '../env.ts';
import { at, parseJsonc, setJsonc } from '../formats/jsonc.ts';
import { describeValue, type FileTool } from './types.ts';

const TOKEN = 'app:claude-code';

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
