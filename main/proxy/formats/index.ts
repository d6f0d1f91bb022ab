// The registry of wire formats a provider may speak (the provider side of each format module).
import { ANTHROPIC_ACCEPTED } from './anthropic/accepted.ts';
import { anthropicFormat } from './anthropic/index.ts';
import { GEMINI_ACCEPTED } from './gemini/accepted.ts';
import { geminiFormat } from './gemini/index.ts';
import type { AcceptedFields } from './hub/accepted.ts';
import type { FormatName, ProviderFormat } from './hub/index.ts';
import { OLLAMA_ACCEPTED } from './ollama/accepted.ts';
import { ollamaFormat } from './ollama/index.ts';
import { OPENAI_ACCEPTED } from './openai/accepted.ts';
import { openaiFormat } from './openai/index.ts';
import { RESPONSES_ACCEPTED } from './responses/accepted.ts';
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

/** What each provider format makes of every hub request field (translated, dropped, refused: hub/accepted.ts). */
const ACCEPTED: Record<FormatName, AcceptedFields> = {
  openai: OPENAI_ACCEPTED,
  anthropic: ANTHROPIC_ACCEPTED,
  gemini: GEMINI_ACCEPTED,
  ollama: OLLAMA_ACCEPTED,
  responses: RESPONSES_ACCEPTED,
};

export function acceptedFields(name: FormatName): AcceptedFields {
  return ACCEPTED[name];
}
