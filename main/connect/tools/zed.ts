// Zed: its user settings.json ($XDG_CONFIG_HOME/zed, ~/.config/zed on Linux and macOS, %APPDATA%\Zed on Windows), JSON
// with comments. Connect points Zed's Ollama provider at Switchboard: `language_models.ollama.api_url` is Switchboard's
// root (Zed lists /api/tags and chats on /api/chat under it, no key), so every model Switchboard serves shows in Zed's
// model picker under Ollama. Zed sends no app header there; Switchboard names it from its User-Agent (`Zed/<version>`).
import { exists, onPath, pathsOf, pointsHere, xdgConfigHome } from '../env.ts';
import { at, parseJsonc, setJsonc } from '../formats/jsonc.ts';
import type { ToolEnv } from '../env.ts';
import { describeValue, type FileTool } from './types.ts';

const SETTING = ['language_models', 'ollama', 'api_url'];
const NAME = SETTING.join('.');

/** Zed's config folder. */
export function zedDir(e: ToolEnv): string {
  const p = pathsOf(e);
  if (e.platform === 'win32') return p.join(e.env.APPDATA ?? p.join(e.home, 'AppData', 'Roaming'), 'Zed');
  return p.join(xdgConfigHome(e), 'zed');
}

export const zed: FileTool = {
  kind: 'file',
  id: 'zed',
  name: 'Zed',
  app: 'zed',
  format: 'ollama',
  async file(ctx) {
    return { path: pathsOf(ctx.env).join(zedDir(ctx.env), 'settings.json'), role: "Zed's user settings" };
  },
  async installed(ctx) {
    return (await exists(zedDir(ctx.env))) || (await onPath(ctx.env, 'zed')) || onPath(ctx.env, 'zeditor');
  },
  read(text, ctx) {
    const value = text === null ? undefined : at(parseJsonc(text), ...SETTING);
    if (value === undefined)
      return {
        state: 'not_connected',
        current: null,
        detail: `${NAME} is not set (Zed's Ollama provider uses http://localhost:11434)`,
      };
    const detail = `${NAME} is ${describeValue(value)}`;
    if (pointsHere(value, ctx.port, '')) return { state: 'connected', current: String(value), detail };
    return { state: 'elsewhere', current: typeof value === 'string' ? value : null, detail };
  },
  write(text, ctx) {
    return setJsonc(text ?? '', [[SETTING, ctx.urls.ollama]]);
  },
  values: (ctx) => [{ label: 'language_models.ollama.api_url', value: ctx.urls.ollama }],
  steps: (ctx, file) => [
    `In ${file} (zed: open settings), set "language_models": { "ollama": { "api_url": "${ctx.urls.ollama}" } }.`,
    "Open the Agent panel's model picker: the models Switchboard serves are listed under Ollama.",
  ],
};
