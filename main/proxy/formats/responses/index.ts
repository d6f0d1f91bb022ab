// Assembles responsesFormat: the OpenAI Responses wire format (`POST /v1/responses`), both sides. See DECISIONS.md.
import { openaiParamErrorBody } from '../completions.ts';
import type { ClientFormat, ProviderFormat } from '../hub/index.ts';
import { requestFromHub } from './request-from-hub.ts';
import { requestToHub } from './request-to-hub.ts';
import { responseFromHub } from './response-from-hub.ts';
import { errorMessage, responseToHub } from './response-to-hub.ts';
import { ResponsesStreamDecoder } from './stream-decoder.ts';
import { ResponsesStreamEncoder } from './stream-encoder.ts';

export const responsesFormat: ClientFormat & ProviderFormat = {
  name: 'responses',
  requestToHub: (body, ctx) => requestToHub(body, ctx),
  responseFromHub: (res, ctx) => responseFromHub(res, ctx.model, ctx.clientTools),
  streamEncoder: (ctx) => new ResponsesStreamEncoder(ctx.model, ctx.clientTools),
  errorBody: openaiParamErrorBody,
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new ResponsesStreamDecoder(model),
  errorMessage,
};
