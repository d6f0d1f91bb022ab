// Anthropic's other endpoints Switchboard answers: POST /v1/messages/count_tokens and GET /v1/models.
import type { HubContentPart, HubRequest } from '../hub/index.ts';
import { requestToHub } from './request-to-hub.ts';

/** Tokens an image counts for in countTokens (Anthropic's cost of a ~1.15 megapixel image, its largest unscaled). */
const IMAGE_TOKENS = 1600;

/**
 * POST /v1/messages/count_tokens, estimated without a tokenizer (inputTokenEstimate). Validates the body as
 * POST /v1/messages does (max_tokens not needed).
 */
export function countTokens(body: unknown): { input_tokens: number } {
  return { input_tokens: inputTokenEstimate(requestToHub(body)) };
}

/**
 * The input tokens of a hub request, estimated without a tokenizer: the characters of every text the model reads
 * (system, messages, tool calls and results, tool names, descriptions and schemas as JSON) divided by 4 and rounded
 * up, plus 1,600 per image. count_tokens answers it; a translated stream's message_start carries it.
 */
export function inputTokenEstimate(req: HubRequest): number {
  let chars = 0;
  let images = 0;
  const add = (content: string | HubContentPart[] | null): void => {
    if (content == null) return;
    if (typeof content === 'string') chars += content.length;
    else {
      for (const p of content) {
        if (p.type === 'text') chars += p.text.length;
        else images++;
      }
    }
  };
  for (const m of req.messages) {
    add(m.content);
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length;
  }
  for (const t of req.tools ?? []) {
    const fn = t.function;
    chars += fn.name.length + (fn.description?.length ?? 0) + JSON.stringify(fn.parameters ?? {}).length;
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

/** GET /v1/models in Anthropic's shape; display_name is the id and created_at a fixed date (neither is known). */
export function anthropicModelList(ids: string[], createdAt = '1970-01-01T00:00:00Z'): unknown {
  return {
    data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: createdAt })),
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids.at(-1) ?? null,
  };
}
