// The registry of provider kinds, and the kind inferred from a base_url when config.json names none.
import type { ProviderConfig, ProviderType } from '../../../shared/config.ts';
import { anthropicKind } from './anthropic.ts';
import { geminiKind } from './gemini.ts';
import type { ProviderKind } from './kind.ts';
import { ollamaKind } from './ollama.ts';
import { openaiCompatible } from './openai.ts';

export type { ProviderKind } from './kind.ts';

const KINDS: Record<ProviderType, ProviderKind> = {
  openai: openaiCompatible,
  anthropic: anthropicKind,
  gemini: geminiKind,
  ollama: ollamaKind,
};

/**
 * The type a provider gets when `type` is omitted: api.anthropic.com → anthropic; Google's generativelanguage
 * host → gemini (unless the path is its /openai compatibility layer); a server on port 11434 whose base_url has
 * no /v1 → ollama; everything else → openai (any OpenAI-compatible service).
 */
export function inferProviderType(baseUrl: string): ProviderType {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return 'openai';
  }
  const path = u.pathname.replace(/\/+$/, '');
  if (u.hostname === 'api.anthropic.com') return 'anthropic';
  if (u.hostname === 'generativelanguage.googleapis.com') return path.endsWith('/openai') ? 'openai' : 'gemini';
  if (u.port === '11434' && !/\/v1$/.test(path)) return 'ollama';
  return 'openai';
}

export function providerKind(config: Pick<ProviderConfig, 'type' | 'base_url'>): ProviderKind {
  return KINDS[config.type ?? inferProviderType(config.base_url)];
}
