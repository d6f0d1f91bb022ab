// Continue: ~/.continue/config.yaml ($CONTINUE_GLOBAL_DIR), or the legacy config.json when only that exists (Continue
// reads config.yaml first: core/util/paths.ts). Connect appends one model named "Switchboard" (OpenAI provider,
// apiBase /v1, `model: AUTODETECT` so Continue lists Switchboard's /v1/models, apiKey `app:continue` to name the app).
// Other models are left as they are: Continue keeps several side by side, so another model's apiBase is not
// "elsewhere"; only a "Switchboard" entry pointing at another address is, and a forced connect updates that entry.
import { isMap, isSeq } from 'yaml';
import { continueDir, exists, isDir, pathsOf, pointsHere } from '../env.ts';
import { at, parseJsonc, setJsonc } from '../formats/jsonc.ts';
import { parseYamlDoc } from '../formats/yaml-doc.ts';
import { CannotEdit, describeValue, type FileTool } from './types.ts';

const NAME = 'Switchboard';
const KEY = 'app:continue';
const isJson = (file: string) => file.endsWith('.json');
const entry = (url: string, json: boolean) => ({
  [json ? 'title' : 'name']: NAME,
  provider: 'openai',
  model: 'AUTODETECT',
  apiBase: url,
  apiKey: KEY,
});

type Model = { name?: unknown; title?: unknown; apiBase?: unknown };
const isOurs = (m: Model) => m.name === NAME || m.title === NAME;

function modelsOf(text: string | null, file: string): unknown {
  if (text === null || text.trim() === '') return undefined;
  return isJson(file)
    ? at(parseJsonc(text), 'models')
    : (parseYamlDoc(text).toJS() as { models?: unknown } | null)?.models;
}

export const continueTool: FileTool = {
  kind: 'file',
  id: 'continue',
  name: 'Continue',
  app: 'continue',
  format: 'openai',
  async file(ctx) {
    const p = pathsOf(ctx.env);
    const yaml = p.join(continueDir(ctx.env), 'config.yaml');
    const json = p.join(continueDir(ctx.env), 'config.json');
    const path = (await exists(yaml)) || !(await exists(json)) ? yaml : json;
    return { path, role: "Continue's config" };
  },
  async installed(ctx) {
    return isDir(continueDir(ctx.env));
  },
  read(text, ctx, file) {
    const list = modelsOf(text, file);
    const models = (Array.isArray(list) ? list.filter((m) => m && typeof m === 'object') : []) as Model[];
    const here = models.find((m) => pointsHere(m.apiBase, ctx.port, '/v1'));
    if (here)
      return {
        state: 'connected',
        current: String(here.apiBase),
        detail: `the model "${String(here.name ?? here.title)}" uses ${String(here.apiBase)}`,
      };
    const ours = models.find(isOurs);
    if (ours) {
      const detail = `the model "${NAME}" has apiBase ${describeValue(ours.apiBase ?? null)}`;
      return { state: 'elsewhere', current: typeof ours.apiBase === 'string' ? ours.apiBase : null, detail };
    }
    return { state: 'not_connected', current: null, detail: `no model uses Switchboard (${models.length} others)` };
  },
  write(text, ctx, file) {
    const before = text ?? '';
    if (isJson(file)) {
      const list = at(parseJsonc(before), 'models');
      if (list !== undefined && !Array.isArray(list)) throw new CannotEdit('"models" in config.json is not a list');
      if (list === undefined) return setJsonc(before, [[['models'], [entry(ctx.urls.openai, true)]]]);
      const idx = list.findIndex((m) => m && typeof m === 'object' && isOurs(m as Model));
      return setJsonc(before, [[['models', idx], entry(ctx.urls.openai, true)]]);
    }
    if (before.trim() === '') {
      return `name: Local Config\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: ${NAME}\n    provider: openai\n    model: AUTODETECT\n    apiBase: ${ctx.urls.openai}\n    apiKey: "${KEY}"\n`;
    }
    const doc = parseYamlDoc(before);
    const models = doc.get('models');
    if (models !== undefined && models !== null && !isSeq(models))
      throw new CannotEdit('"models" in config.yaml is not a list');
    const node = doc.createNode(entry(ctx.urls.openai, false));
    if (!isSeq(models)) doc.set('models', doc.createNode([entry(ctx.urls.openai, false)]));
    else {
      const idx = models.items.findIndex((m) => isMap(m) && m.get('name') === NAME);
      if (idx >= 0) models.items[idx] = node;
      else models.add(node);
    }
    return doc.toString();
  },
  values: (ctx) => [
    { label: 'provider', value: 'openai' },
    { label: 'apiBase', value: ctx.urls.openai },
    { label: 'apiKey', value: KEY },
    { label: 'model', value: 'AUTODETECT' },
  ],
  steps: (ctx, file) => [
    `In ${file}, add to "models": name ${NAME}, provider openai, model AUTODETECT, apiBase ${ctx.urls.openai}, apiKey ${KEY}.`,
    'Continue reloads its config when the file is saved; pick a model of "Switchboard" in the model list.',
  ],
};
