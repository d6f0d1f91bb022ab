// Anthropic Messages (POST /v1/messages, and Anthropic-kind providers) assembled; decisions in DECISIONS.md.
import type { ClientContext, ClientFormat, HubRequest, ProviderFormat } from '../hub/index.ts';
import { inputTokenEstimate } from './extras.ts';
import { requestFromHub } from './request-from-hub.ts';
import { requestToHub } from './request-to-hub.ts';
import { errorBody, responseFromHub } from './response-from-hub.ts';
import { errorMessage, responseToHub } from './response-to-hub.ts';
import { AnthropicStreamDecoder } from './stream-decoder.ts';
import { AnthropicStreamEncoder } from './stream-encoder.ts';

export { anthropicModelList, countTokens } from './extras.ts';

/**
 * The client's hub request, kept on its context (the front door hands the reply a copy of that context, symbol keys
 * included) so a stream's message_start can carry the request's estimated input tokens; estimated once, on demand.
 */
const REQUEST = Symbol('anthropic client request');
type RequestSlot = { hub: HubRequest; estimate?: number };
type WithRequest = ClientContext & { [REQUEST]?: RequestSlot };

function inputEstimateOf(ctx: WithRequest): number {
  const slot = ctx[REQUEST];
  if (!slot) return 0;
  slot.estimate ??= inputTokenEstimate(slot.hub);
  return slot.estimate;
}

export const anthropicFormat: ClientFormat & ProviderFormat = {
  name: 'anthropic',
  requestToHub: (body, ctx: WithRequest) => {
    const hub = requestToHub(body);
    ctx[REQUEST] = { hub };
    return hub;
  },
  responseFromHub: (res, ctx) => responseFromHub(res, ctx.model),
  streamEncoder: (ctx) => new AnthropicStreamEncoder(ctx.model, inputEstimateOf(ctx)),
  errorBody,
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new AnthropicStreamDecoder(model),
  errorMessage,
};
