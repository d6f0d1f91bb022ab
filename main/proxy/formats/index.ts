// The registry of wire formats a provider may speak (the provider side of each format module).
import { anthropicFormat } from './anthropic/index.ts';
import { geminiFormat } from './gemini/index.ts';
import type { FormatName, ProviderFormat } from './hub/index.ts';
import { ollamaFormat } from './ollama/index.ts';
import { openaiFormat } from './openai/index.ts';
import { responsesFormat } from './responses/index.ts';

const PROVIDER_FORMATS: Record<FormatName, ProviderFormat> = {
  openai: openaiFormat,
  anthropic: anthropicFormat,
  gemini: geminiFormat,
  ollama: ollamaFormat,
  responses: responsesFormat,
};

export function providerFormat(name: FormatName): ProviderFormat {
  return PROVIDER_FORMATS[name];
}
