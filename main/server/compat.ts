// Routes that make Switchboard look like each vendor's server: Ollama's /api/* metadata, and model lists in the
// shape the caller's headers ask for (Anthropic, Gemini or OpenAI), as new-api does. The lists and /api/show answer for
// the calling app, named as a model request names it (header, `app:` key, OS process, User-Agent), with its app rule:
// what routing would serve that app (main/proxy/models.ts).
import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { anthropicModelList } from '../proxy/formats/anthropic/index.ts';
import { geminiModelList } from '../proxy/formats/gemini/index.ts';
import { parseJsonBounded, readApiBody } from '../proxy/body.ts';
import type { Engine } from '../proxy/engine.ts';
import { identifyApp } from '../proxy/identify-app.ts';
import type { ModelListing } from '../proxy/models.ts';
import { DEFAULT_CAPABILITIES, quirkTableFor } from '../proxy/quirks.ts';
import { VERSION } from '../version.ts';

/** The version /api/version reports: numeric, as Ollama's clients expect (some reject anything else). */
export const OLLAMA_COMPAT_VERSION = '0.12.0';
/** The context length /api/show reports when the quirks table does not say (most current models have at least this). */
export const DEFAULT_CONTEXT_LENGTH = 131072;
/** Bounded wait for the OS process lookup, as the front doors wait (main/server/front-door.ts). */
const PROCESS_LOOKUP_MS = 250;

type Ctx = Context<{ Bindings: HttpBindings }>;

/** The calling app's name, found as a model request finds it (an app rule's name wins). */
async function callingApp(engine: Engine, req: IncomingMessage): Promise<string | null> {
  const router = engine.router;
  const app = await identifyApp(req, {
    hasRule: router.hasAppRules ? router.hasAppRule : null,
    timeoutMs: PROCESS_LOOKUP_MS,
  });
  return app?.name ?? null;
}

/** What routing would serve the calling app. */
async function listingFor(engine: Engine, req: IncomingMessage): Promise<ModelListing> {
  const app = await callingApp(engine, req);
  return engine.models.listFor(engine.router, app, engine.config);
}

function unavailableHeader(listing: ModelListing): Record<string, string> {
  return listing.failed.length ? { 'x-switchboard-unavailable': listing.failed.map((f) => f.provider).join(',') } : {};
}

const idsOf = (listing: ModelListing): string[] => listing.data.map((m) => m.id);

/**
 * Which vendor's list shape a caller wants, from its headers: Anthropic's with `anthropic-version` or `x-api-key` (its
 * key header) or Claude Code's User-Agent (its model discovery reads only Anthropic's shape); Gemini's with a Google
 * key; else OpenAI's.
 */
export function modelListShape(
  headers: Record<string, string | string[] | undefined>,
  query: URLSearchParams,
): 'anthropic' | 'gemini' | 'openai' {
  const ua = headers['user-agent'];
  if (headers['anthropic-version'] || headers['x-api-key'] || (typeof ua === 'string' && ua.startsWith('claude-cli/')))
    return 'anthropic';
  if (headers['x-goog-api-key'] || query.has('key')) return 'gemini';
  return 'openai';
}

/** A model's capabilities and context length as the quirks table describes it for the provider it routes to. */
export function describeModel(
  engine: Engine,
  provider: string,
  model: string,
): { capabilities: string[]; contextLength: number } {
  const runtime = engine.pool.get(provider);
  const q = runtime ? quirkTableFor(engine.config).resolve(runtime, model) : null;
  return {
    capabilities: [...(q?.capabilities ?? DEFAULT_CAPABILITIES)],
    contextLength: q?.contextLength ?? DEFAULT_CONTEXT_LENGTH,
  };
}

export function compatRoutes(engine: () => Engine): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  const ollamaHeaders = { 'x-switchboard-version': VERSION };

  app.get('/', (c) => c.text('Ollama is running', 200, ollamaHeaders));
  app.on('HEAD', '/', (c) => c.body(null, 200, ollamaHeaders));
  app.get('/api/version', (c) => c.json({ version: OLLAMA_COMPAT_VERSION }, 200, ollamaHeaders));

  app.get('/api/tags', async (c) => {
    const listing = await listingFor(engine(), c.env.incoming);
    const ids = idsOf(listing);
    const modified_at = new Date().toISOString();
    const models = ids.map((id) => ({
      name: id,
      model: id,
      modified_at,
      size: 0,
      digest: '',
      details: { parent_model: '', format: '', family: '', families: null, parameter_size: '', quantization_level: '' },
    }));
    return c.json({ models }, 200, unavailableHeader(listing));
  });

  app.get('/api/ps', (c) => c.json({ models: [] }));

  app.post('/api/show', async (c: Ctx) => {
    let body: { model?: unknown; name?: unknown };
    const raw = await readApiBody(c); // 2 MB at most: 413 in Ollama's shape as it streams
    try {
      body = (parseJsonBounded(raw) ?? {}) as { model?: unknown; name?: unknown };
    } catch (err) {
      return c.json({ error: `the request body is not valid JSON: ${(err as Error).message}` }, 400);
    }
    const model = typeof body.model === 'string' ? body.model : typeof body.name === 'string' ? body.name : '';
    if (!model) return c.json({ error: 'model is required' }, 400);
    const e = engine();
    // The calling app's route, as /api/chat gives it (VS Code Copilot is named by its User-Agent).
    const route = e.router.resolve(model, await callingApp(e, c.env.incoming));
    if (route.candidates.length === 0) return c.json({ error: `model '${model}' not found` }, 404);
    const provider = route.candidates[0]!.provider;
    const { capabilities, contextLength } = describeModel(e, provider, route.model);
    // What Ollama's own /api/show answers, and what its clients read: VS Code Copilot takes `capabilities` (vision,
    // tools) and model_info["<general.architecture>.context_length"], named by model_info["general.basename"].
    return c.json({
      license: '',
      modelfile: `# served by Switchboard through ${provider}\nFROM ${model}\n`,
      parameters: '',
      template: '{{ .Prompt }}',
      details: {
        parent_model: '',
        format: '',
        family: 'switchboard',
        families: ['switchboard'],
        parameter_size: '',
        quantization_level: '',
      },
      model_info: {
        'general.architecture': 'switchboard',
        'general.basename': model,
        'switchboard.context_length': contextLength,
      },
      capabilities,
      modified_at: new Date().toISOString(),
    });
  });

  app.get('/v1/models', async (c) => {
    const listing = await listingFor(engine(), c.env.incoming);
    const headers = unavailableHeader(listing);
    const shape = modelListShape(c.env.incoming.headers, new URL(c.req.url).searchParams);
    if (shape === 'anthropic') return c.json(anthropicModelList(idsOf(listing)) as object, 200, headers);
    if (shape === 'gemini') return c.json(geminiModelList(idsOf(listing)) as object, 200, headers);
    return c.json({ object: 'list', data: listing.data }, 200, headers);
  });

  app.get('/v1beta/models', async (c) => {
    const listing = await listingFor(engine(), c.env.incoming);
    return c.json(geminiModelList(idsOf(listing)) as object, 200, unavailableHeader(listing));
  });

  return app;
}
