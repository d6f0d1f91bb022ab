// The Gemini provider kind: <base_url>/models/{model}:generateContent (SSE with alt=sse), key in x-goog-api-key.
import { geminiModelPath } from '../formats/gemini/urls.ts';
import { idsOf, type ProviderKind } from './kind.ts';

export const geminiKind: ProviderKind = {
  type: 'gemini',
  format: 'gemini',
  chatPath: (model, stream) =>
    stream ? geminiModelPath(model, 'streamGenerateContent', true) : geminiModelPath(model, 'generateContent'),
  modelsPath: '/models?pageSize=1000', // Gemini pages by 50 by default
  authHeaders: (key): Record<string, string> => (key ? { 'x-goog-api-key': key } : {}),
  parseModels: (json) => idsOf((json as { models?: unknown })?.models, 'name', 'models/'),
};
