// The OpenAI-compatible provider kind: any service that speaks /v1/chat/completions (OpenAI, OpenRouter, vLLM, LM Studio...).
import { idsOf, type ProviderKind } from './kind.ts';

export const openaiCompatible: ProviderKind = {
  type: 'openai',
  format: 'openai',
  chatPath: () => '/chat/completions',
  modelsPath: '/models',
  authHeaders: (key): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {}),
  parseModels: (json) => idsOf((json as { data?: unknown })?.data, 'id'),
};
