// The Gemini generateContent format (front door and provider side) assembled; decisions in DECISIONS.md.
import type { ClientFormat, ProviderFormat } from '../hub/index.ts';
import { requestFromHub } from './request-from-hub.ts';
import { requestToHub } from './request-to-hub.ts';
import { errorBody, responseFromHub } from './response-from-hub.ts';
import { errorMessage, responseToHub } from './response-to-hub.ts';
import { GeminiStreamDecoder } from './stream-decoder.ts';
import { GeminiStreamEncoder } from './stream-encoder.ts';

export { countTokens, geminiModelList } from './extras.ts';

export const geminiFormat: ClientFormat & ProviderFormat = {
  name: 'gemini',
  requestToHub,
  responseFromHub,
  streamEncoder: (ctx) => new GeminiStreamEncoder(ctx),
  errorBody,
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new GeminiStreamDecoder(model),
  errorMessage,
};
