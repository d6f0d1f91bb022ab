// Message content helpers: text of parts, data: URLs.
import type { HubContentPart } from './types.ts';

/** Text of a content value (string or parts), for formats without parts. */
export function contentText(content: string | HubContentPart[] | null | undefined, separator = ''): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join(separator);
}

/** Parts as hub content: text-only parts joined into one string (the form every provider accepts), else the parts. */
export function flattenParts(parts: HubContentPart[], separator = ''): string | HubContentPart[] {
  return parts.every((p) => p.type === 'text') ? contentText(parts, separator) : parts;
}

/** Splits a `data:` URL into its media type and base64 data; undefined for other URLs. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1]!, data: m[2]! } : undefined;
}
