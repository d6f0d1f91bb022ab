// The front doors: each client wire format, its route, and when a provider can take its bytes unchanged.
import { anthropicFormat } from '../proxy/formats/anthropic/index.ts';
import { completionsFormat } from '../proxy/formats/completions.ts';
import { embedCall, ollamaEmbedClient, ollamaLegacyEmbedClient } from '../proxy/formats/embeddings.ts';
import { openaiEmbedClient } from '../proxy/formats/embeddings.ts';
import type { EmbedClient, EmbedHubRequest } from '../proxy/formats/embeddings.ts';
import { geminiFormat } from '../proxy/formats/gemini/index.ts';
import { errorMessageOf, type FormatName } from '../proxy/formats/hub/index.ts';
import { ollamaFormat, ollamaGenerateFormat, ollamaLoadReply } from '../proxy/formats/ollama/index.ts';
import { openaiFormat } from '../proxy/formats/openai/index.ts';
import { responsesFormat } from '../proxy/formats/responses/index.ts';
import type { AttemptPlan, PlanTarget } from '../proxy/forward/index.ts';
import { geminiModelPath } from '../proxy/formats/gemini/urls.ts';
import type { FrontDoor, PlanInput } from '../proxy/door.ts';

/** A provider of this wire format takes the client's bytes at its own chat path; any other gets them translated. */
const nativeChat =
  (format: FormatName): FrontDoor['nativePath'] =>
  ({ kind }, model, stream) =>
    kind.format === format ? kind.chatPath(model, stream) : null;

/** A provider of this wire format takes the client's bytes at this path below its base_url. */
const nativeAt =
  (format: FormatName, path: string): FrontDoor['nativePath'] =>
  ({ kind }) =>
    kind.format === format ? path : null;

export const openaiChatDoor: FrontDoor = {
  format: openaiFormat,
  path: '/v1/chat/completions',
  nativePath: nativeChat('openai'),
  modelInBody: true,
};

export const anthropicMessagesDoor: FrontDoor = {
  passthroughUntranslatable: true,
  format: anthropicFormat,
  path: '/v1/messages',
  nativePath: nativeChat('anthropic'),
  modelInBody: true,
};

/** Gemini's model and streaming live in the URL; the JSON-array stream (no alt=sse) passes through as such. */
export const geminiGenerateDoor: FrontDoor = {
  passthroughUntranslatable: true,
  format: geminiFormat,
  path: '/v1beta/models/{model}:generateContent',
  nativePath: ({ kind }, model, stream, ctx) => {
    if (kind.format !== 'gemini') return null;
    if (!stream) return kind.chatPath(model, false);
    // The JSON-array stream (no alt=sse) passes through as such.
    return geminiModelPath(model, 'streamGenerateContent', ctx.query?.get('alt') === 'sse');
  },
  modelInBody: false,
};

export const ollamaChatDoor: FrontDoor = {
  passthroughUntranslatable: true,
  local: (body) => ollamaLoadReply(body, 'messages'),
  format: ollamaFormat,
  streamsByDefault: true,
  path: '/api/chat',
  nativePath: nativeChat('ollama'),
  modelInBody: true,
};

export const ollamaGenerateDoor: FrontDoor = {
  passthroughUntranslatable: true,
  local: (body) => ollamaLoadReply(body, 'prompt'),
  format: ollamaGenerateFormat,
  streamsByDefault: true,
  path: '/api/generate',
  nativePath: nativeAt('ollama', '/api/generate'),
  modelInBody: true,
};

/**
 * Providers that speak the Responses API natively get the client's bytes; others get chat completions. Only
 * OpenAI's own API is known to speak it (an OpenAI-compatible server usually does not).
 */
export function speaksResponses(target: PlanTarget): boolean {
  return target.kind.type === 'openai' && target.baseUrl.hostname === 'api.openai.com';
}

export const responsesDoor: FrontDoor = {
  passthroughUntranslatable: true,
  format: responsesFormat,
  path: '/v1/responses',
  nativePath: (target) => (speaksResponses(target) ? '/responses' : null),
  modelInBody: true,
};

/** Legacy text completions pass through to OpenAI-compatible providers (they all have /completions). */
export const completionsDoor: FrontDoor = {
  format: completionsFormat,
  path: '/v1/completions',
  nativePath: nativeAt('openai', '/completions'),
  modelInBody: true,
};

function embeddingsPlan(client: EmbedClient, nativeFor: 'openai' | 'ollama' | null) {
  return (t: PlanTarget, input: PlanInput): AttemptPlan | string => {
    const embed = { ...(input.hub as EmbedHubRequest).embed, model: input.model };
    const call = embedCall(t.kind.format, embed);
    if (!call) return `provider "${t.name}" (type ${t.kind.type}) has no embeddings endpoint`;
    if (nativeFor && t.kind.format === nativeFor) return { path: call.path, body: input.rawBody };
    return {
      path: call.path,
      body: Buffer.from(JSON.stringify(call.body)),
      translate: { json: (json) => client.fromEmbed(call.read(json), input.clientModel), errorMessage: errorMessageOf },
    };
  };
}

const noNative = () => null;

export const openaiEmbeddingsDoor: FrontDoor = {
  format: openaiEmbedClient,
  path: '/v1/embeddings',
  nativePath: noNative,
  modelInBody: true,
  plan: embeddingsPlan(openaiEmbedClient, 'openai'),
};

/** The old OpenAI engines path (model in the URL); listed with the third vendor's routes. */
export const enginesEmbeddingsDoor: FrontDoor = {
  format: openaiEmbedClient,
  path: '/v1/engines/{model}/embeddings',
  nativePath: noNative,
  modelInBody: false,
  plan: embeddingsPlan(openaiEmbedClient, null),
};

export const ollamaEmbedDoor: FrontDoor = {
  format: ollamaEmbedClient,
  path: '/api/embed',
  nativePath: noNative,
  modelInBody: true,
  plan: embeddingsPlan(ollamaEmbedClient, 'ollama'),
};

export const ollamaLegacyEmbedDoor: FrontDoor = {
  format: ollamaLegacyEmbedClient,
  path: '/api/embeddings',
  nativePath: noNative,
  modelInBody: true,
  plan: embeddingsPlan(ollamaLegacyEmbedClient, null),
};
