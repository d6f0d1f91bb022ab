// Gemini CLI: ~/.gemini/.env. GOOGLE_GEMINI_BASE_URL is Switchboard's root (the Gemini SDK appends /v1beta/...);
// GEMINI_CLI_CUSTOM_HEADERS carries `x-switchboard-app: gemini-cli` (merged into any headers already there); and
// GEMINI_API_KEY gets a placeholder when the file has none (Gemini CLI wants a key for API-key auth; Switchboard never
// forwards client keys). Gemini CLI reads the first .env it finds walking up from the working folder (a project's
// .gemini/.env or .env first) and ~/.gemini/.env last, and only in trusted folders; variables already set in the
// shell win over the file (gemini-cli packages/cli/src/config/settings.ts, findEnvFile and loadEnvironment).
import { exists, geminiDir, onPath, pathsOf, pointsHere } from '../env.ts';
import { parseDotenv, setDotenv } from '../formats/dotenv.ts';
import { describeValue, type FileTool } from './types.ts';

const HEADER = 'x-switchboard-app: gemini-cli';
/** The model Gemini CLI asks for when GEMINI_MODEL is not set. */
export const GEMINI_CLI_DEFAULT_MODEL = 'gemini-2.5-pro';

/** The custom headers with x-switchboard-app set to gemini-cli (others kept, in Gemini CLI's `name: value, …` form). */
function withAppHeader(existing: string | undefined): string {
  const others = (existing ?? '')
    .split(/,(?=\s*[^,:]+:)/)
    .map((h) => h.trim())
    .filter((h) => h && !/^x-switchboard-app\s*:/i.test(h));
  return [...others, HEADER].join(', ');
}

export const geminiCli: FileTool = {
  kind: 'file',
  id: 'gemini-cli',
  name: 'Gemini CLI',
  app: 'gemini-cli',
  format: 'gemini',
  async file(ctx) {
    return { path: pathsOf(ctx.env).join(geminiDir(ctx.env), '.env'), role: "Gemini CLI's user .env file" };
  },
  async installed(ctx) {
    return (await exists(geminiDir(ctx.env))) || onPath(ctx.env, 'gemini');
  },
  read(text, ctx) {
    const value = text === null ? undefined : parseDotenv(text).get('GOOGLE_GEMINI_BASE_URL');
    if (value === undefined)
      return { state: 'not_connected', current: null, detail: 'GOOGLE_GEMINI_BASE_URL is not set' };
    const detail = `GOOGLE_GEMINI_BASE_URL is ${describeValue(value)}`;
    if (pointsHere(value, ctx.port, '')) return { state: 'connected', current: value, detail };
    return { state: 'elsewhere', current: value, detail };
  },
  usual(text) {
    const model = text === null ? undefined : parseDotenv(text).get('GEMINI_MODEL');
    return model
      ? [{ label: 'Default model', model, source: '.env GEMINI_MODEL' }]
      : [{ label: 'Default model', model: GEMINI_CLI_DEFAULT_MODEL, source: "Gemini CLI's default" }];
  },
  write(text, ctx) {
    const vars = parseDotenv(text ?? '');
    const set: [string, string][] = [
      ['GOOGLE_GEMINI_BASE_URL', ctx.urls.ollama],
      ['GEMINI_CLI_CUSTOM_HEADERS', withAppHeader(vars.get('GEMINI_CLI_CUSTOM_HEADERS'))],
    ];
    if (!vars.get('GEMINI_API_KEY')) set.push(['GEMINI_API_KEY', 'app:gemini-cli']);
    return setDotenv(text ?? '', set);
  },
  values: (ctx) => [
    { label: 'GOOGLE_GEMINI_BASE_URL', value: ctx.urls.ollama },
    { label: 'GEMINI_CLI_CUSTOM_HEADERS', value: HEADER },
    { label: 'GEMINI_API_KEY (any value)', value: 'app:gemini-cli' },
  ],
  steps: (ctx, file) => [
    `In ${file}, add the lines GOOGLE_GEMINI_BASE_URL=${ctx.urls.ollama} and GEMINI_CLI_CUSTOM_HEADERS="${HEADER}" (and GEMINI_API_KEY=app:gemini-cli if there is no key).`,
    'In Gemini CLI, choose "Use Gemini API key" in /auth: the base URL applies to API-key authentication, not to "Login with Google".',
    'A .env in the project folder (or its .gemini/ folder) hides ~/.gemini/.env, and variables set in the shell win over the file.',
  ],
};
