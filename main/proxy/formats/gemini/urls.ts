// The one place that builds Gemini's model URLs: chat and streams (the provider kind), embeddings, the front door's
// passthrough, and the model ids in lists. Gemini names a model "models/{id}"; a URL never carries the prefix twice.

/** A model id without Gemini's resource prefix: "models/gemini-2.5-flash" → "gemini-2.5-flash". */
export const geminiModelId = (model: string): string =>
  model.startsWith('models/') ? model.slice('models/'.length) : model;

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'batchEmbedContents';

/** The path below a Gemini base_url (…/v1beta) of a model method; `sse` asks a stream for SSE (`?alt=sse`). */
export function geminiModelPath(model: string, method: GeminiMethod, sse = false): string {
  return `/models/${encodeURIComponent(geminiModelId(model))}:${method}${sse ? '?alt=sse' : ''}`;
}
