// Aider: ~/.aider.conf.yml (aider also reads one at the root of the git repo and in the current folder, later ones
// winning: aider.chat/docs/config/aider_conf.html). Connect sets openai-api-base (Switchboard's /v1) and
// openai-api-key `app:aider` (sent as a Bearer key, which names the app); the model stays the user's choice.
import { exists, onPath, pathsOf, pointsHere } from '../env.ts';
import { parseYamlDoc } from '../formats/yaml-doc.ts';
import { describeValue, type FileTool } from './types.ts';

const KEY = 'app:aider';

export const aider: FileTool = {
  kind: 'file',
  id: 'aider',
  name: 'Aider',
  app: 'aider',
  format: 'openai',
  async file(ctx) {
    return { path: pathsOf(ctx.env).join(ctx.env.home, '.aider.conf.yml'), role: "Aider's user config" };
  },
  async installed(ctx) {
    const p = pathsOf(ctx.env);
    return (
      (await exists(p.join(ctx.env.home, '.aider.conf.yml'))) ||
      (await exists(p.join(ctx.env.home, '.aider'))) ||
      onPath(ctx.env, 'aider')
    );
  },
  read(text, ctx) {
    const data = text === null ? null : (parseYamlDoc(text).toJS() as Record<string, unknown> | null);
    const value = data?.['openai-api-base'];
    if (value === undefined || value === null)
      return { state: 'not_connected', current: null, detail: 'openai-api-base is not set' };
    const detail = `openai-api-base is ${describeValue(value)}`;
    if (pointsHere(value, ctx.port, '/v1')) return { state: 'connected', current: String(value), detail };
    return { state: 'elsewhere', current: typeof value === 'string' ? value : null, detail };
  },
  write(text, ctx) {
    if (text === null || text.trim() === '') return `openai-api-base: ${ctx.urls.openai}\nopenai-api-key: "${KEY}"\n`;
    const doc = parseYamlDoc(text);
    doc.set('openai-api-base', ctx.urls.openai);
    doc.set('openai-api-key', KEY);
    return doc.toString();
  },
  values: (ctx) => [
    { label: 'openai-api-base', value: ctx.urls.openai },
    { label: 'openai-api-key', value: KEY },
  ],
  steps: (ctx, file) => [
    `In ${file}, set openai-api-base: ${ctx.urls.openai} and openai-api-key: "${KEY}".`,
    'Run aider with a model Switchboard routes (aider --model <name>); an .aider.conf.yml in the repo or the current folder overrides these keys.',
  ],
};
