// The registry of wire formats a provider may speak (the provider side of each format module).
import type { FormatName, ProviderFormat } from './hub.ts';
import { openaiFormat } from './openai.ts';

const PROVIDER_FORMATS: Partial<Record<FormatName, ProviderFormat>> = {
  openai: openaiFormat,
};

export function providerFormat(name: FormatName): ProviderFormat {
  const f = PROVIDER_FORMATS[name];
  if (!f) throw new Error(`no provider format "${name}"`);
  return f;
}
