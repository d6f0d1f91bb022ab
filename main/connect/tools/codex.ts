// Codex CLI: $CODEX_HOME/config.toml (~/.codex/config.toml). Connect adds a `[model_providers.switchboard]` table
// (Responses wire API, the app named by a static `x-switchboard-app: codex` header; no key is needed, so no env_key
// and no login screen) and sets the root `model_provider = "switchboard"`, the default every session uses. TOML is
// edited as text (formats/toml.ts) and the result re-parsed: the rest of the file must read exactly as before.
import { isDeepStrictEqual } from 'node:util';
import { codexHome, exists, onPath, pathsOf, pointsHere } from '../env.ts';
import { parseToml, setRootKey, setTable, tomlString } from '../formats/toml.ts';
import { CannotEdit, describeValue, type FileTool } from './types.ts';

const ID = 'switchboard';
/** The model Codex CLI asks for when config.toml names none. */
export const CODEX_DEFAULT_MODEL = 'gpt-5-codex';
/** Codex's built-in providers and where they point when config.toml does not say (codex-rs model_provider_info.rs). */
const BUILT_IN: Record<string, string> = { ollama: 'http://localhost:11434/v1', lmstudio: 'http://localhost:1234/v1' };

const table = (url: string) => [
  `[model_providers.${ID}]`,
  'name = "Switchboard"',
  `base_url = ${tomlString(url)}`,
  'wire_api = "responses"',
  'http_headers = { "x-switchboard-app" = "codex" }',
];
const expected = (url: string) => ({
  name: 'Switchboard',
  base_url: url,
  wire_api: 'responses',
  http_headers: { 'x-switchboard-app': 'codex' },
});

/** Deep equality of parsed TOML (smol-toml's tables have no prototype; dates compare as their text). */
const same = (a: unknown, b: unknown) =>
  isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));

/** The parsed file without what Connect sets, to check that nothing else moved. */
function rest(data: Record<string, unknown>): Record<string, unknown> {
  const { model_provider: _mp, model_providers, ...others } = data;
  const providers = { ...(model_providers as Record<string, unknown> | undefined) };
  delete providers[ID];
  return Object.keys(providers).length ? { ...others, model_providers: providers } : others;
}

export const codex: FileTool = {
  kind: 'file',
  id: 'codex',
  name: 'Codex CLI',
  app: 'codex',
  format: 'responses',
  async file(ctx) {
    return { path: pathsOf(ctx.env).join(codexHome(ctx.env), 'config.toml'), role: "Codex's config" };
  },
  async installed(ctx) {
    return (await exists(codexHome(ctx.env))) || onPath(ctx.env, 'codex');
  },
  read(text, ctx) {
    const data = text === null ? {} : parseToml(text);
    const mp = typeof data.model_provider === 'string' ? data.model_provider : 'openai';
    const providers = (data.model_providers ?? {}) as Record<string, { base_url?: unknown } | undefined>;
    const url = providers[mp]?.base_url;
    if (mp === ID) {
      const detail = `model_provider is "${ID}", whose base_url is ${describeValue(url ?? null)}`;
      if (pointsHere(url, ctx.port, '/v1')) return { state: 'connected', current: String(url), detail };
      return { state: 'elsewhere', current: typeof url === 'string' ? url : null, detail };
    }
    if (mp === 'openai' && typeof data.openai_base_url !== 'string')
      return { state: 'not_connected', current: null, detail: "model_provider is Codex's own OpenAI provider" };
    const current =
      mp === 'openai' ? String(data.openai_base_url) : typeof url === 'string' ? url : (BUILT_IN[mp] ?? null);
    const where = mp === 'openai' ? 'openai_base_url' : `model_provider "${mp}"`;
    return { state: 'elsewhere', current, detail: `${where} points at ${current ?? 'a provider with no base_url'}` };
  },
  write(text, ctx) {
    const before = text ?? '';
    const original = parseToml(before);
    const out = setRootKey(
      setTable(before, `model_providers.${ID}`, table(ctx.urls.openai)),
      'model_provider',
      '"switchboard"',
    );
    let data: Record<string, unknown>;
    try {
      data = parseToml(out);
    } catch {
      data = {};
    }
    const mine = (data.model_providers as Record<string, unknown> | undefined)?.[ID];
    if (data.model_provider !== ID || !same(mine, expected(ctx.urls.openai)) || !same(rest(data), rest(original)))
      throw new CannotEdit(
        'config.toml defines model_providers.switchboard in a form Connect does not edit (an inline table, dotted keys or sub-tables)',
      );
    return out;
  },
  usual(text) {
    let model: unknown;
    try {
      model = text === null ? undefined : parseToml(text).model;
    } catch {
      return [];
    }
    return typeof model === 'string' && model !== ''
      ? [{ label: 'Default model', model, source: 'config.toml model' }]
      : [{ label: 'Default model', model: CODEX_DEFAULT_MODEL, source: "Codex's default" }];
  },
  values: (ctx) => [
    { label: 'model_provider', value: ID },
    { label: `[model_providers.${ID}] base_url`, value: ctx.urls.openai },
    { label: 'wire_api', value: 'responses' },
    { label: 'http_headers', value: '{ "x-switchboard-app" = "codex" }' },
  ],
  steps: (ctx, file) => [
    `In ${file}, put model_provider = "${ID}" at the top (before any [table]).`,
    `Add at the end:\n${table(ctx.urls.openai).join('\n')}`,
    'Start a new Codex session: it reads config.toml at start.',
  ],
};
