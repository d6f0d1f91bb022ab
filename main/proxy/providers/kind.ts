// What a provider kind is: its wire format, URL layout, auth headers and model-list shape.
import type { ProviderType } from '../../../shared/config.ts';
import type { FormatName } from '../formats/hub/index.ts';

export interface ProviderKind {
  readonly type: ProviderType;
  /** The wire format its chat endpoint speaks. */
  readonly format: FormatName;
  /** Path below base_url for a chat call (the model may be part of it). */
  chatPath(model: string, stream: boolean): string;
  /** Path below base_url of the model list (also the active health check). */
  readonly modelsPath: string;
  authHeaders(key: string): Record<string, string>;
  /** Model ids from the model list's JSON. */
  parseModels(json: unknown): string[];
}

export function idsOf(items: unknown, field: 'id' | 'name', strip = ''): string[] {
  if (!Array.isArray(items)) return [];
  return items
    .map((m) => (m && typeof m === 'object' ? (m as Record<string, unknown>)[field] : undefined))
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .map((v) => (strip && v.startsWith(strip) ? v.slice(strip.length) : v));
}
