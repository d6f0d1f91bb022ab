// The front door's other Gemini methods: `:countTokens` (answered locally) and `GET /v1beta/models`.
import { invalid, isObject, type Json } from '../hub/index.ts';
import { camelizeRequest } from './schema.ts';
import { geminiModelId } from './urls.ts';

/** Gemini's token count for a small image; an estimate for any inline or file media part. */
const TOKENS_PER_MEDIA_PART = 258;

/**
 * `:countTokens` answered locally: an ESTIMATE, not the model's tokenizer. A quarter of the characters of every
 * text, function call, function response, system instruction and function declaration, rounded up, plus 258 per
 * inline or file media part (Gemini's count for an image up to 384 px). Reads `contents` or
 * `generateContentRequest`, in either casing.
 */
export function countTokens(rawBody: unknown): { totalTokens: number } {
  if (!isObject(rawBody)) {
    throw invalid(
      'The countTokens body must be a JSON object with contents.',
      'Send {"contents": [{"role": "user", "parts": [{"text": "…"}]}]}.',
    );
  }
  const body = camelizeRequest(rawBody) as Json;
  const request = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
  let chars = 0;
  let media = 0;
  const countParts = (parts: unknown): void => {
    if (!Array.isArray(parts)) return;
    for (const p of parts) {
      if (!isObject(p)) continue;
      if (typeof p.text === 'string') chars += p.text.length;
      if (p.functionCall !== undefined) chars += JSON.stringify(p.functionCall).length;
      if (p.functionResponse !== undefined) chars += JSON.stringify(p.functionResponse).length;
      if (p.inlineData !== undefined || p.fileData !== undefined) media++;
    }
  };
  if (Array.isArray(request.contents)) for (const c of request.contents) if (isObject(c)) countParts(c.parts);
  if (typeof request.systemInstruction === 'string') chars += request.systemInstruction.length;
  else if (isObject(request.systemInstruction)) countParts(request.systemInstruction.parts);
  if (Array.isArray(request.tools)) {
    for (const t of request.tools) {
      if (isObject(t) && t.functionDeclarations !== undefined) chars += JSON.stringify(t.functionDeclarations).length;
    }
  }
  return { totalTokens: Math.ceil(chars / 4) + media * TOKENS_PER_MEDIA_PART };
}

/** Limits shown in the model list: the router does not know each provider's, so Gemini 2.5's are shown. */
const LISTED_INPUT_TOKEN_LIMIT = 1_048_576;
const LISTED_OUTPUT_TOKEN_LIMIT = 65_536;

/** `GET /v1beta/models`: the routable model ids in Gemini's ListModelsResponse shape. */
export function geminiModelList(ids: string[]): unknown {
  return {
    models: ids.map((raw) => {
      const id = geminiModelId(raw);
      return {
        name: `models/${id}`,
        version: '001',
        displayName: id,
        inputTokenLimit: LISTED_INPUT_TOKEN_LIMIT,
        outputTokenLimit: LISTED_OUTPUT_TOKEN_LIMIT,
        supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
      };
    }),
  };
}
