// Provider side: a hub request written as the body of a provider's POST /api/chat.
import { argumentsFromHub, contentText, invalid, paramsFromHub, parseDataUrl } from '../hub/index.ts';
import type { HubContentPart, HubRequest, Json } from '../hub/index.ts';
import { OLLAMA_PARAMS, thinkFromHub } from './common.ts';
import type { OllamaChatRequest, OllamaMessage, OllamaOptions, OllamaTool } from './types.ts';

/** Splits hub content into Ollama's text and base64 images; only inline (data:) images can be sent. */
function contentFromHub(
  content: string | HubContentPart[] | null,
  path: string,
): Pick<OllamaMessage, 'content' | 'images'> {
  if (content === null || typeof content === 'string') return { content: content ?? '' };
  const images: string[] = [];
  content.forEach((part, j) => {
    if (part.type !== 'image_url') return;
    const data = parseDataUrl(part.image_url.url);
    if (!data) {
      throw invalid(
        `"${path}[${j}].image_url.url" is a remote URL; Ollama accepts only inline images.`,
        'Send the image as a data: URL (data:image/png;base64,...).',
      );
    }
    images.push(data.data);
  });
  return images.length > 0 ? { content: contentText(content), images } : { content: contentText(content) };
}

/** Hub tools as Ollama's, after tool_choice (which Ollama lacks): "none" sends none, a named one sends only it. */
function toolsFromHub(req: HubRequest): OllamaTool[] {
  const choice = req.tool_choice;
  if (!req.tools || choice === 'none') return [];
  const named = typeof choice === 'object' ? choice.function.name : undefined;
  const tools = named === undefined ? req.tools : req.tools.filter((t) => t.function.name === named);
  return tools.map((t) => {
    const fn: OllamaTool['function'] = { name: t.function.name };
    if (t.function.description !== undefined) fn.description = t.function.description;
    if (t.function.parameters !== undefined) fn.parameters = t.function.parameters;
    return { type: 'function', function: fn };
  });
}

/** Hub messages as Ollama's: no tool call ids, so each tool result names its tool (`tool_name`). */
function messagesFromHub(req: HubRequest): OllamaMessage[] {
  const callNames = new Map<string, string>();
  return req.messages.map((m, i): OllamaMessage => {
    const path = `messages[${i}].content`;
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', ...contentFromHub(m.content, path) };
      case 'user':
        return { role: 'user', ...contentFromHub(m.content, path) };
      case 'assistant': {
        const out: OllamaMessage = { role: 'assistant', ...contentFromHub(m.content, path) };
        if (m.reasoning_content) out.thinking = m.reasoning_content;
        if (m.tool_calls && m.tool_calls.length > 0) {
          out.tool_calls = m.tool_calls.map((c) => {
            callNames.set(c.id, c.function.name);
            // Ollama refuses text arguments: text that is not an object travels as {"_raw": text}.
            return { function: { name: c.function.name, arguments: argumentsFromHub(c.function.arguments) } };
          });
        }
        return out;
      }
      case 'tool': {
        const out: OllamaMessage = { role: 'tool', ...contentFromHub(m.content, path) };
        const name = callNames.get(m.tool_call_id) ?? m.name;
        if (name) out.tool_name = name;
        return out;
      }
    }
  });
}

/** The hub request as a provider's /api/chat body; `stream` is always explicit (Ollama's default is true). */
export function requestFromHub(req: HubRequest): OllamaChatRequest {
  const body: OllamaChatRequest = { model: req.model, messages: messagesFromHub(req), stream: req.stream === true };
  const tools = toolsFromHub(req);
  if (tools.length > 0) body.tools = tools;
  const rf = req.response_format;
  if (rf?.type === 'json_object') body.format = 'json';
  else if (rf?.type === 'json_schema') body.format = rf.json_schema?.schema ?? 'json';
  const wire: Json = {};
  paramsFromHub(OLLAMA_PARAMS, req, wire, { stopAsArray: true });
  if (wire.options) body.options = wire.options as OllamaOptions;
  const think = thinkFromHub(req);
  if (think !== undefined) body.think = think;
  return body;
}
