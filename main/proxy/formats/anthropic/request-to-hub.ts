// Client side: an Anthropic Messages request (POST /v1/messages) checked and read into the hub request.
import type { ApiError } from '../../../errors.ts';
import { absent, argumentsToHub, cacheMarkerOf, flattenParts, invalid, isObject } from '../hub/index.ts';
import { noteUnknownFields } from '../hub/index.ts';
import { paramsToHub, requireModel } from '../hub/index.ts';
import type { ClientContext, HubContentPart, HubMessage, HubRequest, HubTool, HubToolCall } from '../hub/index.ts';
import type { HubToolChoice } from '../hub/index.ts';
import type { Json } from '../hub/index.ts';
import { ANTHROPIC_PARAMS } from './common.ts';
import { optionsToHub } from './request-options.ts';

const EXAMPLE = 'Send {"model": "...", "max_tokens": 1024, "messages": [{"role": "user", "content": "Hello"}]}.';

/** The text blocks of a `system` value or a system message (a string is one block). */
function systemBlocks(value: unknown, path: string): Json[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (!Array.isArray(value)) {
    throw invalid(
      `"${path}" must be a string or an array of text blocks.`,
      'Send "system": "You are ..." or [{"type": "text", "text": "..."}].',
    );
  }
  return value.map((b, i) => {
    if (!isObject(b) || b.type !== 'text' || typeof b.text !== 'string') {
      throw invalid(
        `"${path}[${i}]" must be a text block {"type": "text", "text": "..."}.`,
        'System prompts take text blocks only.',
      );
    }
    return b;
  });
}

/** Text of a `system` value or a system message: a string or text blocks. */
function systemText(value: unknown, path: string): string {
  return systemBlocks(value, path)
    .map((b) => b.text as string)
    .join('\n\n');
}

/**
 * The top-level `system` as the hub's system content: its text joined, or, when a block carries a prompt-cache
 * marker, one text part per block with its marker (so the provider can cache the prefix up to it).
 */
function systemToHub(value: unknown): string | HubContentPart[] {
  const blocks = systemBlocks(value, 'system');
  if (!blocks.some((b) => cacheMarkerOf(b.cache_control))) return systemText(value, 'system');
  return blocks.map((b) => withMarker({ type: 'text', text: b.text as string }, b));
}

/** A text part with the prompt-cache marker of the block it came from, if that block has one. */
function withMarker(part: HubContentPart, block: Json): HubContentPart {
  const marker = cacheMarkerOf(block.cache_control);
  return marker && part.type === 'text' ? { ...part, cache_control: marker } : part;
}

function stringField(block: Json, field: string, path: string): string {
  const v = block[field];
  if (typeof v !== 'string') {
    throw invalid(`"${path}.${field}" must be a string.`, `Set "${field}" on the block at ${path}.`);
  }
  return v;
}

function imageToHub(block: Json, path: string): HubContentPart {
  const source = block.source;
  if (!isObject(source)) {
    throw invalid(
      `"${path}.source" must be an object.`,
      'Send {"type": "base64", "media_type": "image/png", "data": "..."} or {"type": "url", "url": "https://..."}.',
    );
  }
  if (source.type === 'base64') {
    const mediaType = stringField(source, 'media_type', `${path}.source`);
    const data = stringField(source, 'data', `${path}.source`);
    return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } };
  }
  if (source.type === 'url') {
    return { type: 'image_url', image_url: { url: stringField(source, 'url', `${path}.source`) } };
  }
  throw invalid(
    `"${path}" is an image with a "${String(source.type)}" source; Switchboard translates base64 and url images only.`,
    'Send the image inline as base64 or as a URL instead of a file id.',
  );
}

/** The text of a plain-text document (source "text" or "content"), or undefined for PDFs, URLs and files. */
function documentText(source: Json): string | undefined {
  if (source.type === 'text' && typeof source.data === 'string') return source.data;
  if (source.type !== 'content') return undefined;
  if (typeof source.content === 'string') return source.content;
  if (!Array.isArray(source.content)) return undefined;
  const text = (b: unknown): string => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '');
  return source.content.map(text).join('\n');
}

function documentToHub(block: Json, path: string): HubContentPart {
  const source = isObject(block.source) ? block.source : {};
  const text = documentText(source);
  if (text === undefined) {
    const type = String(source.type);
    const kind = typeof source.media_type === 'string' ? `${type} ${source.media_type}` : type;
    throw invalid(
      `"${path}" is a document block (${kind}); Switchboard translates plain-text documents only.`,
      "Extract the document's text and send it as a text block, or as a document with source " +
        '{"type": "text", "media_type": "text/plain", "data": "..."}.',
    );
  }
  const title = typeof block.title === 'string' && block.title !== '' ? `${block.title}\n\n` : '';
  return { type: 'text', text: title + text };
}

/** A search_result block (a client's own search results, for citations) as text: title, source, then its text. */
function searchResultToHub(block: Json, path: string): HubContentPart {
  const content = Array.isArray(block.content) ? block.content : [];
  const texts = content.map((c, i) =>
    stringField(blockAt(c, `${path}.content[${i}]`), 'text', `${path}.content[${i}]`),
  );
  const head = [block.title, block.source].filter((v): v is string => typeof v === 'string' && v !== '');
  return { type: 'text', text: [...head, ...texts].join('\n\n') };
}

function unsupportedBlock(type: unknown, path: string): ApiError {
  return invalid(
    `"${path}" is a "${String(type)}" block, which Switchboard cannot translate for other providers.`,
    'Send text, image, document (plain text), search_result, tool_use and tool_result blocks only.',
  );
}

/**
 * A text, image, document or search_result block as a hub part (a text part keeps the block's prompt-cache marker);
 * any other block is refused.
 */
function partToHub(b: Json, path: string): HubContentPart {
  if (b.type === 'text') return withMarker({ type: 'text', text: stringField(b, 'text', path) }, b);
  if (b.type === 'image') return imageToHub(b, path);
  if (b.type === 'document') return withMarker(documentToHub(b, path), b);
  if (b.type === 'search_result') return withMarker(searchResultToHub(b, path), b);
  throw unsupportedBlock(b.type, path);
}

function blockAt(b: unknown, path: string): Json {
  if (!isObject(b)) throw invalid(`"${path}" must be a content block object.`, EXAMPLE);
  return b;
}

function toolResultToHub(block: Json, path: string): HubMessage {
  const id = stringField(block, 'tool_use_id', path);
  const parts: HubContentPart[] = [];
  const content = block.content;
  if (typeof content === 'string') parts.push({ type: 'text', text: content });
  else if (Array.isArray(content)) {
    content.forEach((raw, i) => {
      const p = `${path}.content[${i}]`;
      parts.push(partToHub(blockAt(raw, p), p));
    });
  } else if (!absent(content)) {
    throw invalid(`"${path}.content" must be a string or an array of blocks.`, EXAMPLE);
  }
  if (block.is_error === true) {
    const first = parts[0];
    if (first?.type === 'text') parts[0] = { ...first, text: `Error: ${first.text}` };
    else parts.unshift({ type: 'text', text: 'Error: ' });
  }
  // A prompt-cache marker on the result (or on a block of it, which the text is joined from) stays on its text.
  const marker =
    cacheMarkerOf(block.cache_control) ??
    parts.reduce<Record<string, unknown> | undefined>(
      (m, p) => (p.type === 'text' ? (p.cache_control ?? m) : m),
      undefined,
    );
  if (marker) {
    const content = flattenParts(parts.map(unmarkedPart), '\n');
    if (typeof content === 'string')
      return { role: 'tool', tool_call_id: id, content: [{ type: 'text', text: content, cache_control: marker }] };
    const last = content.findLastIndex((p) => p.type === 'text');
    if (last >= 0)
      content[last] = { ...(content[last] as Extract<HubContentPart, { type: 'text' }>), cache_control: marker };
    return { role: 'tool', tool_call_id: id, content };
  }
  return { role: 'tool', tool_call_id: id, content: flattenParts(parts, '\n') };
}

/** A part without its prompt-cache marker (a tool result's markers go on its text once joined). */
function unmarkedPart(p: HubContentPart): HubContentPart {
  if (p.type !== 'text' || p.cache_control === undefined) return p;
  return { type: 'text', text: p.text };
}

/** A user turn: its tool results first (as tool messages), then its other blocks as one user message, in order. */
function userToHub(content: unknown[], path: string): HubMessage[] {
  const results: HubMessage[] = [];
  const parts: HubContentPart[] = [];
  content.forEach((raw, i) => {
    const p = `${path}.content[${i}]`;
    const b = blockAt(raw, p);
    if (b.type === 'tool_result') results.push(toolResultToHub(b, p));
    else parts.push(partToHub(b, p));
  });
  if (parts.length === 0 && results.length > 0) return results;
  const only = parts[0];
  // One text block is sent as a string, unless it carries a prompt-cache marker (a string has nowhere to keep it).
  const plain = parts.length === 1 && only?.type === 'text' && only.cache_control === undefined;
  const userContent = plain ? only.text : parts.length === 0 ? '' : parts;
  return [...results, { role: 'user', content: userContent }];
}

/** An assistant turn: text and tool_use blocks; thinking blocks are dropped (their signature cannot cross). */
function assistantToHub(content: unknown[], path: string): HubMessage {
  const texts: string[] = [];
  const calls: HubToolCall[] = [];
  content.forEach((raw, i) => {
    const p = `${path}.content[${i}]`;
    const b = blockAt(raw, p);
    if (b.type === 'text') texts.push(stringField(b, 'text', p));
    else if (b.type === 'tool_use') {
      const fn = { name: stringField(b, 'name', p), arguments: argumentsToHub(b.input) };
      calls.push({ id: stringField(b, 'id', p), type: 'function', function: fn });
    } else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') throw unsupportedBlock(b.type, p);
  });
  const text = texts.length ? texts.join('') : calls.length ? null : '';
  return calls.length ? { role: 'assistant', content: text, tool_calls: calls } : { role: 'assistant', content: text };
}

/** The fields of a message the hub carries. */
const MESSAGE_FIELDS: ReadonlySet<string> = new Set(['role', 'content']);

/** Hub messages of one Anthropic message (a user turn with tool results gives several). */
function messageToHub(m: unknown, path: string): HubMessage[] {
  if (!isObject(m)) throw invalid(`"${path}" must be an object {"role": ..., "content": ...}.`, EXAMPLE);
  const { role, content } = m;
  if (role === 'system') return [{ role: 'system', content: systemText(content, `${path}.content`) }];
  if (role !== 'user' && role !== 'assistant') {
    throw invalid(`"${path}.role" must be "user", "assistant" or "system"; got ${JSON.stringify(role)}.`, EXAMPLE);
  }
  if (typeof content === 'string') return [{ role, content }];
  if (!Array.isArray(content)) {
    throw invalid(`"${path}.content" must be a string or an array of content blocks.`, EXAMPLE);
  }
  return role === 'user' ? userToHub(content, path) : [assistantToHub(content, path)];
}

function toolsToHub(tools: unknown): HubTool[] {
  const shape = '{"name", "description", "input_schema"}';
  if (!Array.isArray(tools)) throw invalid(`"tools" must be an array of ${shape}.`, EXAMPLE);
  return tools.map((t, i) => {
    const path = `tools[${i}]`;
    if (!isObject(t)) throw invalid(`"${path}" must be an object ${shape}.`, EXAMPLE);
    if (!absent(t.type) && t.type !== 'custom') {
      throw invalid(
        `"${path}" is Anthropic's built-in tool "${String(t.type)}", which runs only on Anthropic's servers ` +
          'and cannot be translated.',
        'Remove it, or declare a custom tool with "name", "description" and "input_schema".',
      );
    }
    const fn: HubTool['function'] = { name: stringField(t, 'name', path) };
    if (typeof t.description === 'string') fn.description = t.description;
    if (typeof t.strict === 'boolean') fn.strict = t.strict;
    if (t.input_schema !== undefined) {
      if (!isObject(t.input_schema)) {
        throw invalid(
          `"${path}.input_schema" must be a JSON Schema object.`,
          'Send "input_schema": {"type": "object", "properties": {...}}.',
        );
      }
      fn.parameters = t.input_schema;
    }
    return { type: 'function', function: fn };
  });
}

function toolChoiceToHub(choice: unknown): { choice: HubToolChoice; parallel?: false } {
  const action = 'Send {"type": "auto"}, {"type": "any"}, {"type": "none"} or {"type": "tool", "name": "..."}.';
  if (!isObject(choice)) throw invalid('"tool_choice" must be an object.', action);
  const parallel = choice.disable_parallel_tool_use === true ? { parallel: false as const } : {};
  switch (choice.type) {
    case 'auto':
      return { choice: 'auto', ...parallel };
    case 'any':
      return { choice: 'required', ...parallel };
    case 'none':
      return { choice: 'none' };
    case 'tool': {
      const name = stringField(choice, 'name', 'tool_choice');
      return { choice: { type: 'function', function: { name } }, ...parallel };
    }
    default:
      throw invalid(
        `"tool_choice.type" must be "auto", "any", "none" or "tool"; got ${JSON.stringify(choice.type)}.`,
        action,
      );
  }
}

/** Validates an Anthropic Messages request and converts it to the hub form (400 naming the field otherwise). */
export function requestToHub(body: unknown, ctx?: ClientContext): HubRequest {
  if (!isObject(body)) throw invalid('The request body must be a JSON object.', EXAMPLE);
  const model = requireModel(body.model, '"claude-haiku-4-5"');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid('"messages" must be a non-empty array of {"role", "content"}.', EXAMPLE);
  }
  const messages: HubMessage[] = [];
  if (!absent(body.system)) {
    const system = systemToHub(body.system);
    if (system !== '') messages.push({ role: 'system', content: system });
  }
  body.messages.forEach((m, i) => {
    messages.push(...messageToHub(m, `messages[${i}]`));
    // A message's own fields beyond role and content (a mid-conversation system message's output_config, Claude
    // Code 2.1.28x) have no hub form: said, never lost without a word.
    if (isObject(m)) noteUnknownFields(ctx, m, MESSAGE_FIELDS, 'messages[]');
  });

  const req: HubRequest = { model, messages };
  paramsToHub(ANTHROPIC_PARAMS, body, req, { stopAsArray: true });
  if (body.stream === true) {
    req.stream = true;
    req.stream_options = { include_usage: true }; // so message_delta can carry output_tokens
  }
  if (!absent(body.tools)) {
    const tools = toolsToHub(body.tools);
    if (tools.length) req.tools = tools;
  }
  if (!absent(body.tool_choice)) {
    const { choice, parallel } = toolChoiceToHub(body.tool_choice);
    req.tool_choice = choice;
    if (parallel === false) req.parallel_tool_calls = false;
  }
  if (isObject(body.metadata) && typeof body.metadata.user_id === 'string') req.user = body.metadata.user_id;
  optionsToHub(body, req, ctx);
  return req;
}
