// Provider side: a hub request written as an Anthropic Messages request body.
import { argumentsFromHub, contentText, paramsFromHub, parseDataUrl } from '../hub/index.ts';
import type { HubContentPart, HubMessage, HubRequest, HubToolChoice } from '../hub/index.ts';
import { ANTHROPIC_PARAMS } from './common.ts';
import { structuredOutputFromHub } from './structured-output.ts';
import { thinkingFromHub } from './thinking.ts';
import type {
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicRequest,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
  AnthropicToolResultBlock,
} from './types.ts';

/** Anthropic requires max_tokens; a hub request without one gets this. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** Anthropic accepts tool ids matching [a-zA-Z0-9_-]+; the same id maps the same way in tool_use and tool_result. */
const toolId = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu_';

function partsFromHub(content: string | HubContentPart[]): (AnthropicTextBlock | AnthropicImageBlock)[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: (AnthropicTextBlock | AnthropicImageBlock)[] = [];
  for (const p of content) {
    if (p.type === 'text') {
      if (p.text !== '') blocks.push({ type: 'text', text: p.text });
      continue;
    }
    const url = p.image_url.url;
    const data = parseDataUrl(url);
    blocks.push({
      type: 'image',
      source: data ? { type: 'base64', media_type: data.mediaType, data: data.data } : { type: 'url', url },
    });
  }
  return blocks;
}

function toolResultFromHub(m: Extract<HubMessage, { role: 'tool' }>): AnthropicToolResultBlock {
  const result: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: toolId(m.tool_call_id) };
  if (typeof m.content === 'string') {
    if (m.content !== '') result.content = m.content;
  } else {
    const blocks = partsFromHub(m.content);
    if (blocks.length) result.content = blocks;
  }
  return result;
}

/**
 * System and developer messages go to `system`; consecutive tool results, and a user message right after them,
 * merge into one user turn; assistant turns with nothing to say are skipped; reasoning_content is dropped.
 */
function messagesFromHub(hub: HubMessage[]): { system: string[]; messages: AnthropicMessageParam[] } {
  const system: string[] = [];
  const messages: AnthropicMessageParam[] = [];
  /** The user turn holding the latest tool results, while more tool results (or the user's text) may join it. */
  let toolTurn: AnthropicContentBlock[] | null = null;
  for (const m of hub) {
    if (m.role === 'system' || m.role === 'developer') {
      const text = contentText(m.content);
      if (text !== '') system.push(text);
      continue;
    }
    if (m.role === 'tool') {
      const result = toolResultFromHub(m);
      if (toolTurn) toolTurn.push(result);
      else messages.push({ role: 'user', content: (toolTurn = [result]) });
      continue;
    }
    if (m.role === 'user') {
      if (toolTurn) {
        toolTurn.push(...partsFromHub(m.content));
        toolTurn = null;
      } else {
        messages.push({ role: 'user', content: typeof m.content === 'string' ? m.content : partsFromHub(m.content) });
      }
      continue;
    }
    toolTurn = null;
    if (m.role !== 'assistant') continue; // (narrows the type; every other role was handled above)
    const blocks: AnthropicContentBlock[] = m.content == null ? [] : partsFromHub(m.content);
    for (const c of m.tool_calls ?? []) {
      const input = argumentsFromHub(c.function.arguments);
      blocks.push({ type: 'tool_use', id: toolId(c.id), name: c.function.name, input });
    }
    if (blocks.length === 0) continue;
    const only = blocks[0];
    messages.push({ role: 'assistant', content: blocks.length === 1 && only?.type === 'text' ? only.text : blocks });
  }
  return { system, messages };
}

/** tool_choice, with parallel_tool_calls false as disable_parallel_tool_use (on "auto" when no choice was made). */
function toolChoiceFromHub(choice: HubToolChoice | undefined, parallel?: boolean): AnthropicToolChoice | undefined {
  let out: AnthropicToolChoice | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'none') out = { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice) out = { type: 'tool', name: choice.function.name };
  if (parallel === false && out?.type !== 'none') {
    out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return out;
}

/**
 * The hub request as an Anthropic request body (tool_choice is sent only with tools); response_format becomes a
 * forced answer tool (structured-output.ts) and the reasoning settings `thinking` (thinking.ts).
 */
export function requestFromHub(req: HubRequest): AnthropicRequest {
  const { system, messages } = messagesFromHub(req.messages);
  const out: AnthropicRequest = { model: req.model, max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS, messages };
  if (system.length === 1) out.system = system[0]!;
  else if (system.length > 1) out.system = system.map((text) => ({ type: 'text', text }));
  if (req.stream) out.stream = true;
  paramsFromHub(ANTHROPIC_PARAMS, req, out, { stopAsArray: true });
  if (req.tools?.length) {
    out.tools = req.tools.map((t) => {
      const schema = t.function.parameters ?? { type: 'object', properties: {} };
      const tool: AnthropicTool = { name: t.function.name, input_schema: schema };
      if (t.function.description !== undefined) tool.description = t.function.description;
      return tool;
    });
    const choice = toolChoiceFromHub(req.tool_choice, req.parallel_tool_calls);
    if (choice) out.tool_choice = choice;
  }
  const forcedTool = structuredOutputFromHub(req, out);
  thinkingFromHub(req, out, forcedTool);
  if (out.temperature !== undefined) delete out.top_p; // recent Claude models refuse both
  if (typeof req.user === 'string' && req.user !== '') out.metadata = { user_id: req.user };
  return out;
}
