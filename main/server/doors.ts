// The front doors: each client wire format, its route, and when a provider can take its bytes unchanged.
import { anthropicFormat } from '../proxy/formats/anthropic/index.ts';
import {
  completionsFormat,
  completionsRequestFromHub,
  completionsResponseToHub,
} from '../proxy/formats/completions.ts';
import { CompletionsStreamDecoder } from '../proxy/formats/completions.ts';
import { embedCall, ollamaEmbedClient, ollamaLegacyEmbedClient } from '../proxy/formats/embeddings.ts';
import { openaiEmbedClient } from '../proxy/formats/embeddings.ts';
import type { EmbedClient, EmbedHubRequest } from '../proxy/formats/embeddings.ts';
import { geminiFormat } from '../proxy/formats/gemini/index.ts';
import { errorMessageOf, type FormatName } from '../proxy/formats/hub/index.ts';
import { ollamaFormat, ollamaGenerateFormat, ollamaLoadReply, rawPromptOf } from '../proxy/formats/ollama/index.ts';
import { openaiFormat } from '../proxy/formats/openai/index.ts';
import { responsesFormat } from '../proxy/formats/responses/index.ts';
import { type AttemptPlan, chatPlan, type PlanTarget } from '../proxy/forward/index.ts';
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

/** Why a request the hub could not read cannot be translated (its 400's message, read again: the rare path). */
function untranslatableReason(input: PlanInput): string {
  try {
    ollamaGenerateFormat.requestToHub(JSON.parse(input.rawBody.toString()), input.ctx);
  } catch (err) {
    if (err instanceof Error) return err.message.replace(/\.$/, '');
  }
  return 'this request cannot be translated';
}

/**
 * /api/generate: an Ollama provider takes the client's bytes. A raw or fill-in-the-middle prompt (Continue's
 * autocomplete: `raw`, `suffix`) is a text completion: an OpenAI-type provider gets it at /v1/completions as
 * `prompt` and `suffix`, its reply written back as Ollama's; a chat-only provider cannot take it (refused). Any
 * other prompt is a chat.
 */
function ollamaGeneratePlan(t: PlanTarget, input: PlanInput): AttemptPlan | string {
  if (t.kind.format === 'ollama') return { path: '/api/generate', body: input.rawBody, ends: 'ollama' };
  const { hub } = input;
  const provider = `provider "${t.name}" (type ${t.kind.type})`;
  if (hub.messages.length === 0) return `${untranslatableReason(input)}; ${provider} would need it translated`;
  const replyCtx = { ...input.ctx, model: input.clientModel };
  const raw = rawPromptOf(hub);
  if (!raw) return chatPlan(t, null, input.rawBody, hub, ollamaGenerateFormat, replyCtx, input.stream, input.quirks);
  if (t.kind.format !== 'openai') {
    const what = raw.suffix !== undefined ? '"suffix" (fill-in-the-middle)' : '"raw": true';
    return (
      `${what} needs a text completion (/v1/completions) or Ollama's /api/generate, which ${provider} does not ` +
      'offer: route this model to an OpenAI-type or Ollama provider'
    );
  }
  return {
    path: '/completions',
    body: Buffer.from(JSON.stringify(completionsRequestFromHub(hub, raw.prompt, raw.suffix))),
    translate: {
      json: (body) => ollamaGenerateFormat.responseFromHub(completionsResponseToHub(body, hub.model), replyCtx),
      decoder: () => new CompletionsStreamDecoder(hub.model),
      encoder: () => ollamaGenerateFormat.streamEncoder(replyCtx),
      errorMessage: errorMessageOf,
    },
  };
}

export const ollamaGenerateDoor: FrontDoor = {
  passthroughUntranslatable: true,
  local: (body) => ollamaLoadReply(body, 'prompt'),
  format: ollamaGenerateFormat,
  streamsByDefault: true,
  path: '/api/generate',
  nativePath: nativeAt('ollama', '/api/generate'),
  modelInBody: true,
  plan: ollamaGeneratePlan,
};

/**
 * Providers that speak the Responses API natively get the client's bytes; others get chat completions. A provider
 * says so in config.json (`native_formats: ["responses"]`: OpenRouter, Ollama, vLLM, LM Studio…; `[]` says it does
 * not); without the field only OpenAI's own API is taken to speak it.
 */
export function speaksResponses(target: PlanTarget): boolean {
  if (target.nativeFormats) return target.nativeFormats.includes('responses');
  return target.kind.type === 'openai' && target.baseUrl.hostname === 'api.openai.com';
}

/** Where a provider serves Responses: below its base_url, which for an Ollama-type provider is the server's root. */
const responsesPath = (target: PlanTarget): string => (target.kind.type === 'ollama' ? '/v1/responses' : '/responses');

export const responsesDoor: FrontDoor = {
  passthroughUntranslatable: true,
  format: responsesFormat,
  path: '/v1/responses',
  nativePath: (target) => (speaksResponses(target) ? responsesPath(target) : null),
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
