// The tools Connect cannot write: their settings live in a database, the editor's secret storage or a web page. The
// Connect page shows the values (with copy buttons) and the steps; the API key `app:<name>` names the app.
import { exists, hasExtension, onPath, pathsOf } from '../env.ts';
import type { ManualTool, ToolCtx } from './types.ts';

/** Up to five model names Switchboard serves, in words ("gpt-4o-mini, llama3.2, …"), for the steps. */
export const servedNames = (ctx: ToolCtx): string =>
  ctx.models.length
    ? `one Switchboard serves, e.g. ${ctx.models.slice(0, 5).join(', ')}`
    : 'a model your routing rules match';

const openaiValues = (ctx: ToolCtx, app: string) => [
  { label: 'Base URL', value: ctx.urls.openai },
  { label: 'API key (any value; this one names the app)', value: `app:${app}` },
  ...(ctx.models.length
    ? ctx.models.slice(0, 3).map((m, i) => ({ label: i === 0 ? 'Model (one Switchboard serves)' : 'or', value: m }))
    : [{ label: 'Model', value: 'a model name your routing rules match' }]),
];

/** Cline and Roo Code keep their provider in VS Code's global state and the key in its secret storage. */
const vscodeExtension = (id: 'cline' | 'roo-code', name: string, extension: string): ManualTool => ({
  kind: 'manual',
  id,
  name,
  app: id,
  format: 'openai',
  installed: (ctx) => hasExtension(ctx.env, extension),
  detail: `${name} keeps its provider settings in VS Code's extension state and secret storage, not in a file: set these values in its settings`,
  values: (ctx) => openaiValues(ctx, id),
  steps: (ctx) => [
    `Open ${name}'s settings (the gear in its panel) and choose the API provider "OpenAI Compatible".`,
    `Base URL: ${ctx.urls.openai}; API Key: app:${id}; Model ID: ${servedNames(ctx)}.`,
    'Save. Requests now go through Switchboard and are logged as app "' + id + '".',
  ],
});

export const cline = vscodeExtension('cline', 'Cline', 'saoudrizwan.claude-dev');
export const rooCode = vscodeExtension('roo-code', 'Roo Code', 'rooveterinaryinc.roo-cline');

export const openWebui: ManualTool = {
  kind: 'manual',
  id: 'open-webui',
  name: 'Open WebUI',
  app: 'open-webui',
  format: 'openai',
  installed: (ctx) => onPath(ctx.env, 'open-webui'),
  detail: 'Open WebUI keeps its connections in its own database (or reads them from its environment at first start)',
  values: (ctx) => [
    { label: 'OPENAI_API_BASE_URL', value: ctx.urls.openai },
    { label: 'OPENAI_API_KEY', value: 'app:open-webui' },
    { label: 'OLLAMA_BASE_URL (instead)', value: ctx.urls.ollama },
    { label: 'From a Docker container', value: `http://host.docker.internal:${ctx.port}/v1` },
  ],
  steps: (ctx) => [
    `Admin Panel → Settings → Connections → OpenAI API: add ${ctx.urls.openai} with the key app:open-webui (from Docker: http://host.docker.internal:${ctx.port}/v1).`,
    `Or the Ollama API connection: ${ctx.urls.ollama} (Switchboard serves /api/tags and /api/chat).`,
    'At first start only, the environment does the same: OPENAI_API_BASE_URL, OPENAI_API_KEY or OLLAMA_BASE_URL.',
  ],
};

export const cursor: ManualTool = {
  kind: 'manual',
  id: 'cursor',
  name: 'Cursor',
  app: 'cursor',
  format: 'openai',
  installed: async (ctx) => (await exists(pathsOf(ctx.env).join(ctx.env.home, '.cursor'))) || onPath(ctx.env, 'cursor'),
  detail: 'Cursor keeps its settings in its own database: set these values by hand',
  values: (ctx) => openaiValues(ctx, 'cursor'),
  steps: (ctx) => [
    'Cursor Settings → Models → API Keys: enter app:cursor as the OpenAI API key and turn on "Override OpenAI Base URL".',
    `Base URL: ${ctx.urls.openai}, then add the model names: ${servedNames(ctx)}.`,
    "Cursor calls this URL from its own servers, which cannot reach localhost: it needs Switchboard at a public HTTPS address (a tunnel, with gateway mode and a key), as Cursor's issue #1380 reports.",
  ],
};

export const openaiCompatible: ManualTool = {
  kind: 'manual',
  id: 'openai-compatible',
  name: 'Any OpenAI-compatible app',
  app: 'my-app',
  format: 'openai',
  installed: async () => true,
  detail: 'Any tool with a base URL setting: give it these values',
  values: (ctx) => openaiValues(ctx, 'my-app'),
  steps: (ctx) => [
    `Set the tool's OpenAI base URL to ${ctx.urls.openai} (Anthropic clients: ${ctx.urls.anthropic}; Gemini: ${ctx.urls.gemini}; Ollama: ${ctx.urls.ollama}).`,
    'Set its API key to app:<its name> (e.g. app:my-app): Switchboard never forwards it and shows the name in the request log and app rules.',
    `Use model names: ${servedNames(ctx)} (GET /v1/models lists them all).`,
  ],
};
