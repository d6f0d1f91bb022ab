// Ollama's native API: /api/chat as a client front door and a provider kind (`<base_url>/api/chat`), and
// /api/generate as a front door. Decisions: DECISIONS.md beside this file.
import type { ClientFormat, ProviderFormat } from '../hub/index.ts';
import { requestFromHub } from './request-from-hub.ts';
import { requestToHub } from './request-to-hub.ts';
import { errorBody, responseFromHub } from './response-from-hub.ts';
import { errorMessage, responseToHub } from './response-to-hub.ts';
import { OllamaStreamDecoder } from './stream-decoder.ts';
import { NdjsonStreamEncoder } from './stream-encoder.ts';

export { ollamaLoadReply } from './extras.ts';
export { ollamaGenerateFormat, rawPromptOf } from './generate.ts';

/** Ollama's /api/chat, both as a client front door and as a provider kind. */
export const ollamaFormat: ClientFormat & ProviderFormat = {
  name: 'ollama',
  requestToHub: (body, ctx) => requestToHub(body, ctx),
  responseFromHub: (res, ctx) => responseFromHub(res, ctx.model),
  streamEncoder: (ctx) => new NdjsonStreamEncoder(ctx.model, 'chat'),
  errorBody,
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new OllamaStreamDecoder(model),
  errorMessage,
};
