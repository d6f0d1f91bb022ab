// The Ollama provider kind: its native API at <base_url>/api/chat (base_url is the server root, e.g. http://127.0.0.1:11435).
import { idsOf, type ProviderKind } from './kind.ts';

export const ollamaKind: ProviderKind = {
  type: 'ollama',
  format: 'ollama',
  chatPath: () => '/api/chat',
  modelsPath: '/api/tags',
  authHeaders: (key): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {}),
  parseModels: (json) => idsOf((json as { models?: unknown })?.models, 'name'),
};
