// OpenCode: <XDG config>/opencode/opencode.json (or opencode.jsonc, or the legacy config.json; OpenCode merges the
// three, opencode.jsonc last, so Connect writes the last one that exists). Connect adds the provider "switchboard"
// (@ai-sdk/openai-compatible, baseURL /v1, apiKey `app:opencode` to name the app) with the models Switchboard routes
// by name; the default model stays the user's choice (pick "Switchboard" models with /models).
import { exists, onPath, opencodeDir, pathsOf, pointsHere } from '../env.ts';
import { at, parseJsonc, setJsonc } from '../formats/jsonc.ts';
import { describeValue, type FileTool, type ToolCtx } from './types.ts';

const KEY = 'app:opencode';
const provider = (ctx: ToolCtx) => ({
  npm: '@ai-sdk/openai-compatible',
  name: 'Switchboard',
  options: { baseURL: ctx.urls.openai, apiKey: KEY },
  models: Object.fromEntries(ctx.models.map((m) => [m, { name: m }])),
});

export const opencode: FileTool = {
  kind: 'file',
  id: 'opencode',
  name: 'OpenCode',
  app: 'opencode',
  format: 'openai',
  async file(ctx) {
    const p = pathsOf(ctx.env);
    const dir = opencodeDir(ctx.env);
    for (const name of ['opencode.jsonc', 'opencode.json', 'config.json'])
      if (await exists(p.join(dir, name))) return { path: p.join(dir, name), role: "OpenCode's global config" };
    return { path: p.join(dir, 'opencode.json'), role: "OpenCode's global config" };
  },
  async installed(ctx) {
    return (await exists(opencodeDir(ctx.env))) || onPath(ctx.env, 'opencode');
  },
  read(text, ctx) {
    const value = text === null ? undefined : at(parseJsonc(text), 'provider', 'switchboard');
    if (value === undefined) return { state: 'not_connected', current: null, detail: 'no provider "switchboard"' };
    const url = at(value, 'options', 'baseURL');
    const detail = `the provider "switchboard" has options.baseURL ${describeValue(url ?? null)}`;
    if (pointsHere(url, ctx.port, '/v1')) return { state: 'connected', current: String(url), detail };
    return { state: 'elsewhere', current: typeof url === 'string' ? url : null, detail };
  },
  write(text, ctx) {
    return setJsonc(text ?? '', [[['provider', 'switchboard'], provider(ctx)]]);
  },
  values: (ctx) => [
    { label: 'provider.switchboard.npm', value: '@ai-sdk/openai-compatible' },
    { label: 'options.baseURL', value: ctx.urls.openai },
    { label: 'options.apiKey', value: KEY },
  ],
  steps: (ctx, file) => [
    `In ${file}, add under "provider": ${JSON.stringify({ switchboard: provider(ctx) })}`,
    'List the model names you route under "models", then pick one with /models.',
  ],
};
