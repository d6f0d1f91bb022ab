// Anthropic Messages (POST /v1/messages, and Anthropic-kind providers) assembled; decisions in DECISIONS.md.
import type { ClientFormat, ProviderFormat } from '../hub/index.ts';
import { inputTokenEstimate } from './extras.ts';
import { requestFromHub } from './request-from-hub.ts';
import { requestToHub } from './request-to-hub.ts';
import { errorBody, responseFromHub } from './response-from-hub.ts';
import { errorMessage, responseToHub } from './response-to-hub.ts';
import { AnthropicStreamDecoder } from './stream-decoder.ts';
import { AnthropicStreamEncoder } from './stream-encoder.ts';

export { anthropicModelList, countTokens } from './extras.ts';

export const anthropicFormat: ClientFormat & ProviderFormat = {
  name: 'anthropic',
  requestToHub: (body, ctx) => requestToHub(body, ctx),
  responseFromHub: (res, ctx) => responseFromHub(res, ctx.model),
  // message_start goes out before the provider's usage: it carries the request's estimated input tokens.
  streamEncoder: (ctx) => new AnthropicStreamEncoder(ctx.model, ctx.request ? inputTokenEstimate(ctx.request) : 0),
  errorBody,
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new AnthropicStreamDecoder(model),
  errorMessage,
};
