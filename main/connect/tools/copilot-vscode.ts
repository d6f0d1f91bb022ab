// VS Code Copilot Chat's Ollama endpoint: `github.copilot.chat.byok.ollamaEndpoint` in VS Code's user settings.json
// (%APPDATA%\Code\User, ~/Library/Application Support/Code/User, or $XDG_CONFIG_HOME/Code/User). The value is
// Switchboard's root: Copilot calls /api/tags, /api/show and /v1/chat/completions under it. It sends no app header and
// no key there, so Switchboard names it from its User-Agent (`GitHubCopilotChat/<version>` → "GitHubCopilotChat").
import { exists, onPath, pathsOf, pointsHere, vscodeUserDir } from '../env.ts';
import { at, parseJsonc, setJsonc } from '../formats/jsonc.ts';
import { describeValue, type FileTool } from './types.ts';

const SETTING = 'github.copilot.chat.byok.ollamaEndpoint';

export const copilotVscode: FileTool = {
  kind: 'file',
  id: 'copilot-vscode',
  name: 'VS Code Copilot (Ollama endpoint)',
  app: 'GitHubCopilotChat',
  format: 'ollama',
  async file(ctx) {
    return { path: pathsOf(ctx.env).join(vscodeUserDir(ctx.env), 'settings.json'), role: "VS Code's user settings" };
  },
  async installed(ctx) {
    return (await exists(vscodeUserDir(ctx.env))) || onPath(ctx.env, 'code');
  },
  read(text, ctx) {
    const value = text === null ? undefined : at(parseJsonc(text), SETTING);
    if (value === undefined)
      return {
        state: 'not_connected',
        current: null,
        detail: `${SETTING} is not set (Copilot uses http://localhost:11434)`,
      };
    const detail = `${SETTING} is ${describeValue(value)}`;
    if (pointsHere(value, ctx.port, '')) return { state: 'connected', current: String(value), detail };
    return { state: 'elsewhere', current: typeof value === 'string' ? value : null, detail };
  },
  write(text, ctx) {
    return setJsonc(text ?? '', [[[SETTING], ctx.urls.ollama]]);
  },
  values: (ctx) => [{ label: SETTING, value: ctx.urls.ollama }],
  steps: (ctx, file) => [
    `In ${file} (Preferences: Open User Settings (JSON)), set "${SETTING}": "${ctx.urls.ollama}".`,
    'In Copilot Chat, Manage Models → Ollama, and pick the models Switchboard lists.',
  ],
};
