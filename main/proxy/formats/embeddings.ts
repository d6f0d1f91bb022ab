// Embeddings in every dialect: OpenAI /v1/embeddings (and the old /v1/engines/{model}/embeddings), Ollama
// /api/embed and /api/embeddings on the client side; OpenAI, Ollama and Gemini providers on the other.
import { geminiModelId, geminiModelPath } from './gemini/urls.ts';
import { invalid, type Json, requireModel, requireObject } from './hub/index.ts';
import type { ClientContext, ClientFormat, FormatName, HubRequest } from './hub/index.ts';
import { errorBody as ollamaErrorBody } from './ollama/response-from-hub.ts';
import { openaiErrorBody } from './openai/index.ts';

/** The hub of embeddings: a model and a list of texts in; a vector per text out. */
export type EmbedRequest = { model: string; inputs: string[]; dimensions?: number };
export type EmbedResult = { vectors: number[][]; promptTokens: number | null };

/** Carried through the chat-shaped hub request of the front door (the `messages` are unused). */
export type EmbedHubRequest = HubRequest & { embed: EmbedRequest };

function inputs(value: unknown, field: string): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  if (Array.isArray(value) && value.every((v) => Array.isArray(v) || typeof v === 'number')) {
    throw invalid(
      `"${field}" holds token ids; Switchboard forwards text only when it translates between formats.`,
      'Send the text itself.',
    );
  }
  throw invalid(`"${field}" must be a string or an array of strings.`, `Send "${field}": "text" or ["text", ...].`);
}

/** The body (an object) and its model, from the URL (/v1/engines/{model}/embeddings) or the body. */
function bodyAndModel(body: unknown, ctx: ClientContext): { b: Json; model: string } {
  const b = requireObject(body, '{"model": "...", "input": "text"}');
  return { b, model: requireModel(ctx.pathModel ?? b.model, '"text-embedding-3-small"') };
}

const toHub = (model: string, embed: EmbedRequest): EmbedHubRequest => ({ model, messages: [], embed });

// ---- client side ----

export type EmbedClient = ClientFormat & { fromEmbed(r: EmbedResult, model: string): unknown };

const noStream = {
  contentType: 'application/json',
  chunk: () => '',
  end: () => '',
  error: () => '',
};

export const openaiEmbedClient: EmbedClient = {
  name: 'openai',
  requestToHub(body, ctx) {
    const { b, model } = bodyAndModel(body, ctx);
    const dims = typeof b.dimensions === 'number' ? { dimensions: b.dimensions } : {};
    return toHub(model, { model, inputs: inputs(b.input, 'input'), ...dims });
  },
  fromEmbed: (r, model) => ({
    object: 'list',
    data: r.vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model,
    usage: { prompt_tokens: r.promptTokens ?? 0, total_tokens: r.promptTokens ?? 0 },
  }),
  responseFromHub: () => ({}),
  streamEncoder: () => noStream,
  errorBody: openaiErrorBody,
};

/** Ollama's current endpoint: {model, input} → {model, embeddings}. */
export const ollamaEmbedClient: EmbedClient = {
  name: 'ollama',
  requestToHub(body, ctx) {
    const { b, model } = bodyAndModel(body, ctx);
    return toHub(model, { model, inputs: inputs(b.input, 'input') });
  },
  fromEmbed: (r, model) => ({
    model,
    embeddings: r.vectors,
    total_duration: 0,
    load_duration: 0,
    prompt_eval_count: r.promptTokens ?? 0,
  }),
  responseFromHub: () => ({}),
  streamEncoder: () => noStream,
  errorBody: ollamaErrorBody,
};

/** Ollama's older endpoint: {model, prompt} → {embedding}. */
export const ollamaLegacyEmbedClient: EmbedClient = {
  name: 'ollama',
  requestToHub(body, ctx) {
    const { b, model } = bodyAndModel(body, ctx);
    if (typeof b.prompt !== 'string')
      throw invalid('"prompt" must be a string.', 'Send {"model": "...", "prompt": "text"}, or use /api/embed.');
    return toHub(model, { model, inputs: [b.prompt] });
  },
  fromEmbed: (r) => ({ embedding: r.vectors[0] ?? [] }),
  responseFromHub: () => ({}),
  streamEncoder: () => noStream,
  errorBody: ollamaErrorBody,
};

// ---- provider side ----

export type EmbedProviderCall = { path: string; body: unknown; read(json: unknown): EmbedResult };

function numbers(v: unknown): number[] {
  return Array.isArray(v) ? v.map(Number) : [];
}

/** How a provider of this wire format embeds, or null when it has no embeddings endpoint (Anthropic). */
export function embedCall(format: FormatName, req: EmbedRequest): EmbedProviderCall | null {
  switch (format) {
    case 'openai':
      return {
        path: '/embeddings',
        body: { model: req.model, input: req.inputs, ...(req.dimensions ? { dimensions: req.dimensions } : {}) },
        read: (json) => {
          const j = json as { data?: { index?: number; embedding?: unknown }[]; usage?: { prompt_tokens?: number } };
          const data = [...(j.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
          return { vectors: data.map((d) => numbers(d.embedding)), promptTokens: j.usage?.prompt_tokens ?? null };
        },
      };
    case 'ollama':
      return {
        path: '/api/embed',
        body: { model: req.model, input: req.inputs, ...(req.dimensions ? { dimensions: req.dimensions } : {}) },
        read: (json) => {
          const j = json as { embeddings?: unknown[]; prompt_eval_count?: number };
          return { vectors: (j.embeddings ?? []).map(numbers), promptTokens: j.prompt_eval_count ?? null };
        },
      };
    case 'gemini':
      return {
        path: geminiModelPath(req.model, 'batchEmbedContents'),
        body: {
          requests: req.inputs.map((text) => ({
            model: `models/${geminiModelId(req.model)}`,
            content: { parts: [{ text }] },
            ...(req.dimensions ? { outputDimensionality: req.dimensions } : {}),
          })),
        },
        read: (json) => ({
          vectors: ((json as { embeddings?: { values?: unknown }[] }).embeddings ?? []).map((e) => numbers(e.values)),
          promptTokens: null,
        }),
      };
    default:
      return null;
  }
}
