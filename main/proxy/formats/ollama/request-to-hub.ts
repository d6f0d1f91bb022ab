// Client side: an /api/chat request read into the hub, and the fields /api/chat and /api/generate share.
import type { ApiError } from '../../../errors.ts';
import { absent, argumentsToHub, invalid, isObject, newId, optionalString, paramsToHub } from '../hub/index.ts';
import { requireModel, requireObject } from '../hub/index.ts';
import type {
  ClientContext,
  HubContentPart,
  HubMessage,
  HubRequest,
  HubTool,
  HubToolCall,
  Json,
} from '../hub/index.ts';
import { OLLAMA_PARAMS, thinkToHub } from './common.ts';
import { CHAT_FIELDS, checkFields, type FieldRule, OPTION_FIELDS } from './fields.ts';

/** The model named in the examples of 400s. */
export const EXAMPLE_MODEL = '"llama3.2"';

/** 400 invalid_request naming the field by its path. */
const badField = (path: string, problem: string, action: string): ApiError => invalid(`"${path}" ${problem}.`, action);

function objectAt(v: unknown, path: string, action: string): Json {
  if (!isObject(v)) throw badField(path, 'must be an object', action);
  return v;
}

/** The media type of base64 image data, from its first bytes (Ollama sends bare base64). */
function sniffImageType(base64: string): string {
  if (base64.startsWith('/9j/')) return 'image/jpeg';
  if (base64.startsWith('R0lGOD')) return 'image/gif';
  if (base64.startsWith('UklGR')) return 'image/webp';
  if (base64.startsWith('Qk')) return 'image/bmp';
  return 'image/png';
}

/** An `images` field: base64 strings (or data: URLs), or 400. */
export function imagesToHub(v: unknown, path: string): string[] {
  if (absent(v)) return [];
  if (!Array.isArray(v) || v.some((i) => typeof i !== 'string')) {
    throw badField(
      path,
      'must be an array of base64 strings',
      `Send images as base64 text without a "data:" prefix, e.g. "${path}": ["iVBORw0KGgo..."].`,
    );
  }
  return v as string[];
}

/** Ollama's content and images as hub content: the text first, then each image as a data: URL. */
export function contentToHub(text: string, images: string[]): string | HubContentPart[] {
  if (images.length === 0) return text;
  const parts: HubContentPart[] = text ? [{ type: 'text', text }] : [];
  for (const image of images) {
    const url = image.startsWith('data:') ? image : `data:${sniffImageType(image)};base64,${image}`;
    parts.push({ type: 'image_url', image_url: { url } });
  }
  return parts;
}

const CALL_EXAMPLE = '{"function": {"name": "...", "arguments": {...}}}';

/** An assistant message's tool calls (checked); each keeps the id a newer client sent, or gets a minted one. */
function toolCallsToHub(v: unknown, f: string): HubToolCall[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw badField(`${f}.tool_calls`, 'must be an array', `Send [${CALL_EXAMPLE}].`);
  return v.map((raw, j) => {
    const cf = `${f}.tool_calls[${j}]`;
    const call = objectAt(raw, cf, `Send ${CALL_EXAMPLE}.`);
    const fn = objectAt(call.function, `${cf}.function`, 'Send {"name": "...", "arguments": {...}}.');
    if (typeof fn.name !== 'string' || fn.name === '') {
      throw badField(`${cf}.function.name`, 'must be a non-empty string', 'Name the tool that was called.');
    }
    const args = fn.arguments;
    // Some clients send the arguments as text: kept as text (hub/tool-arguments.ts).
    if (!absent(args) && !isObject(args) && typeof args !== 'string') {
      const action = 'Send the arguments as a JSON object, e.g. {"city": "Paris"}.';
      throw badField(`${cf}.function.arguments`, 'must be an object', action);
    }
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : newId('call_');
    return { id, type: 'function' as const, function: { name: fn.name, arguments: argumentsToHub(args) } };
  });
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Ollama messages as hub messages. Ollama has no tool call ids: each assistant tool call gets a minted id (or the
 * `id` a newer Ollama client sent), and each `tool` message is linked to an unanswered call of the latest assistant
 * message — by `tool_call_id` if sent, else by `tool_name`, else in order.
 */
function messagesToHub(v: unknown): HubMessage[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) {
    throw badField('messages', 'must be an array', 'Send "messages": [{"role": "user", "content": "..."}].');
  }
  let pending: { id: string; name: string }[] = [];
  return v.map((raw, i): HubMessage => {
    const f = `messages[${i}]`;
    const m = objectAt(raw, f, `Send each message as {"role": "user", "content": "..."}.`);
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) {
      const problem = 'must be "system", "user", "assistant" or "tool"';
      throw badField(`${f}.role`, problem, 'Give every message one of those roles.');
    }
    if (Array.isArray(m.content)) {
      const problem = "must be a string in Ollama's format (not an array of parts)";
      throw badField(`${f}.content`, problem, `Send the text as "content" and images as base64 in "${f}.images".`);
    }
    const text = optionalString(m.content, `${f}.content`) ?? '';
    const content = contentToHub(text, imagesToHub(m.images, `${f}.images`));
    switch (m.role) {
      case 'system':
        return { role: 'system', content };
      case 'user':
        return { role: 'user', content };
      case 'assistant': {
        const calls = toolCallsToHub(m.tool_calls, f);
        pending = calls.map((c) => ({ id: c.id, name: c.function.name }));
        const out: HubMessage = { role: 'assistant', content: calls.length > 0 && content === '' ? null : content };
        if (calls.length > 0) out.tool_calls = calls;
        const thinking = optionalString(m.thinking, `${f}.thinking`);
        if (thinking) out.reasoning_content = thinking;
        return out;
      }
      default: {
        // Older clients name the tool in `name`; Ollama's field is `tool_name`.
        const named = optionalString(m.tool_name, `${f}.tool_name`);
        const toolName = named ?? (typeof m.name === 'string' ? m.name : undefined);
        const sentId = optionalString(m.tool_call_id, `${f}.tool_call_id`);
        let at = sentId ? pending.findIndex((p) => p.id === sentId) : -1;
        if (at < 0 && toolName) at = pending.findIndex((p) => p.name === toolName);
        if (at < 0 && pending.length > 0) at = 0;
        const id = at >= 0 ? pending.splice(at, 1)[0]!.id : (sentId ?? newId('call_'));
        return { role: 'tool', tool_call_id: id, content };
      }
    }
  });
}

const TOOL_EXAMPLE = '{"type": "function", "function": {"name": "...", "parameters": {...}}}';

function toolsToHub(v: unknown): HubTool[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw badField('tools', 'must be an array', `Send [${TOOL_EXAMPLE}].`);
  return v.map((raw, i) => {
    const f = `tools[${i}]`;
    const t = objectAt(raw, f, `Send ${TOOL_EXAMPLE}.`);
    if (!absent(t.type) && t.type !== 'function') {
      throw badField(`${f}.type`, 'must be "function"', "Only function tools exist in Ollama's format.");
    }
    const fnAction = 'Send {"name": "...", "description": "...", "parameters": {...}}.';
    const fn = objectAt(t.function, `${f}.function`, fnAction);
    if (typeof fn.name !== 'string' || fn.name === '') {
      throw badField(`${f}.function.name`, 'must be a non-empty string', 'Give every tool a name.');
    }
    const tool: HubTool = { type: 'function', function: { name: fn.name } };
    const description = optionalString(fn.description, `${f}.function.description`);
    if (description !== undefined) tool.function.description = description;
    if (!absent(fn.parameters)) {
      const action = 'Send the parameters as a JSON schema object.';
      tool.function.parameters = objectAt(fn.parameters, `${f}.function.parameters`, action);
    }
    return tool;
  });
}

/** The fields /api/chat and /api/generate share: stream (default true), format, options and think. */
export function commonToHub(b: Json, hub: HubRequest, fields: Record<string, FieldRule>, ctx?: ClientContext): void {
  checkFields(b, fields, ctx);
  if (isObject(b.options)) checkFields(b.options, OPTION_FIELDS, ctx, 'options');
  thinkToHub(b.think, hub);
  if (!absent(b.stream) && typeof b.stream !== 'boolean') {
    const action = 'Send "stream": false for one JSON reply, or leave it out to stream.';
    throw badField('stream', 'must be true or false', action);
  }
  hub.stream = b.stream !== false;
  // Ollama's final line always carries token counts: ask OpenAI-style providers for them.
  if (hub.stream) hub.stream_options = { include_usage: true };

  const format = b.format;
  if (format === 'json') hub.response_format = { type: 'json_object' };
  else if (isObject(format)) {
    hub.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: format } };
  } else if (!absent(format) && format !== '') {
    const action = 'Send "format": "json", a JSON schema, or leave it out.';
    throw badField('format', 'must be "json" or a JSON schema object', action);
  }

  if (absent(b.options)) return;
  objectAt(b.options, 'options', 'Send options as an object, e.g. {"temperature": 0.7}.');
  paramsToHub(OLLAMA_PARAMS, b, hub);
  // Ollama's stop is a list: a single string is read as a list of one.
  if (typeof hub.stop === 'string') hub.stop = [hub.stop];
}

/** POST /api/chat body → hub request. What each field becomes (or why it is dropped): fields.ts. */
export function requestToHub(body: unknown, ctx?: ClientContext): HubRequest {
  const b = requireObject(body, '{"model": "...", "messages": [{"role": "user", "content": "..."}]}');
  const hub: HubRequest = { model: requireModel(b.model, EXAMPLE_MODEL), messages: messagesToHub(b.messages) };
  const tools = toolsToHub(b.tools);
  if (tools.length > 0) hub.tools = tools;
  commonToHub(b, hub, CHAT_FIELDS, ctx);
  return hub;
}
