// The Anthropic provider kind: the Messages API at <base_url>/messages, key in x-api-key.
import { idsOf, type ProviderKind } from './kind.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

export const anthropicKind: ProviderKind = {
  type: 'anthropic',
  format: 'anthropic',
  chatPath: () => '/messages',
  modelsPath: '/models?limit=1000', // Anthropic pages by 20 by default
  authHeaders: (key) => ({ ...(key ? { 'x-api-key': key } : {}), 'anthropic-version': ANTHROPIC_VERSION }),
  parseModels: (json) => idsOf((json as { data?: unknown })?.data, 'id'),
};
