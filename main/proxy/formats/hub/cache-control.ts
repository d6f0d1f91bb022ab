// Prompt-cache markers in the hub: Anthropic's `cache_control` ({"type": "ephemeral", "ttl"?: "5m" | "1h"}) on a text
// part, where an Anthropic client put it on a system, text or tool-result block (anthropic/request-to-hub.ts), or
// where an OpenAI client put it (OpenRouter's convention). Some OpenAI-compatible providers read them (OpenRouter,
// Alibaba's DashScope: the quirks table's `cache_control: true`); for every other provider they are taken out before
// the request is written (forward/plan.ts), and the reply's x-switchboard-dropped says so.
import { isObject } from './json.ts';
import type { HubContentPart, HubMessage, HubRequest } from './types.ts';

/** Whether a part carries a marker. */
const marked = (p: HubContentPart): boolean => p.type === 'text' && p.cache_control !== undefined;

/** Whether any message's content part carries a marker (a loop, no allocation: it runs on every translated request). */
export function hasCacheMarkers(req: HubRequest): boolean {
  const messages = req.messages;
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]!.content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) if (marked(content[j]!)) return true;
  }
  return false;
}

/** The part without its marker. */
function unmarked(p: HubContentPart): HubContentPart {
  if (!marked(p)) return p;
  const { cache_control: _marker, ...rest } = p as Extract<HubContentPart, { type: 'text' }>;
  return rest;
}

/**
 * The request with every marker taken out (the request given is not changed; unmarked messages are shared). Content
 * that is parts only to hold a marker goes back to text, as it was before markers were kept: a system prompt's text
 * parts joined by a blank line (as an Anthropic system prompt's blocks are), a lone text part as its text. Some
 * OpenAI-compatible servers take a system prompt only as text.
 */
export function withoutCacheMarkers(req: HubRequest): HubRequest {
  const messages = req.messages.map((m): HubMessage => {
    const content = m.content;
    if (!Array.isArray(content) || !content.some(marked)) return m;
    const parts = content.map(unmarked);
    const texts = parts.every((p) => p.type === 'text');
    if (texts && (m.role === 'system' || m.role === 'developer'))
      return { ...m, content: parts.map((p) => (p as { text: string }).text).join('\n\n') };
    if (texts && parts.length === 1) return { ...m, content: (parts[0] as { text: string }).text } as HubMessage;
    return { ...m, content: parts } as HubMessage;
  });
  return { ...req, messages };
}

/** A client's marker as the hub keeps it: an object (Anthropic's {"type": "ephemeral"}), else none. */
export function cacheMarkerOf(v: unknown): Record<string, unknown> | undefined {
  return isObject(v) ? v : undefined;
}
