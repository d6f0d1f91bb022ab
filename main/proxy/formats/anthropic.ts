// Anthropic Messages: the front door POST /v1/messages (client side) and Anthropic-kind providers (provider side).
//
// Decisions where Anthropic's format and the hub disagree (anthropic.test.ts pins each one):
// Client side, request (Anthropic → hub):
// - `system` (a string or text blocks) and role "system" messages inside `messages` become hub system messages;
//   several text blocks are joined with a blank line.
// - Each tool_result block becomes a hub `tool` message. Tool results go first in their turn (Anthropic requires
//   that order, OpenAI needs tool messages right after the assistant's tool calls); the turn's other blocks follow as
//   one user message, in their order. `is_error: true` prefixes the result with "Error: ".
// - thinking / redacted_thinking blocks in assistant turns are dropped (their signature cannot cross the hub).
// - document blocks: plain-text documents (source "text" or "content") become text, title first; PDFs, URLs and
//   files are refused with a 400 naming the block. Other block types (server tool results, search results,
//   containers) are refused, and so are Anthropic's built-in tools (a tool `type` other than "custom").
// - `thinking`, `top_k`, `cache_control`, `service_tier` and unknown fields are ignored; metadata.user_id → user;
//   a stream asks the hub for usage (stream_options.include_usage) so message_delta can carry output_tokens.
// Client side, response (hub → Anthropic):
// - stop → end_turn, length → max_tokens, tool_calls (or any tool call with stop) → tool_use, content_filter →
//   refusal; stop_sequence is always null (the hub does not say which sequence matched).
// - reasoning_content is not sent as a thinking block: without Anthropic's signature the client could not send
//   it back to Anthropic. Tool arguments that are not a JSON object become {"_raw": "<text>"}.
// - Streams send ping once right after message_start; message_delta carries input_tokens too when known (the real
//   API does the same), because message_start goes out before the hub's usage arrives.
// - Error bodies take their type from the HTTP status; an action is appended to the message (Anthropic clients
//   show only error.message). Mid-stream errors are overloaded_error for 503/529 and api_error otherwise.
// Provider side, request (hub → Anthropic):
// - max_tokens defaults to 4096 when the hub request has neither max_tokens nor max_completion_tokens.
// - temperature is clamped to Anthropic's 0..1; top_p is dropped when temperature is set (recent Claude models
//   refuse both). All system/developer messages go to `system`; consecutive tool results, and a user message right
//   after them, merge into one user turn; assistant turns with nothing to say are skipped; reasoning_content is
//   dropped. Tool call ids are made to fit Anthropic's pattern [a-zA-Z0-9_-] (other characters become "_").
// - parallel_tool_calls false → tool_choice.disable_parallel_tool_use; tool_choice is sent only with tools.
// Provider side, response (Anthropic → hub):
// - prompt_tokens = input + cache creation + cache read tokens (OpenAI counts cached tokens in prompt_tokens).
// - thinking → reasoning_content; end_turn / stop_sequence / pause_turn → stop; max_tokens /
//   model_context_window_exceeded → length; tool_use → tool_calls; refusal → content_filter.
// - A stream that ends without message_stop and without a stop_reason throws UpstreamStreamError (it is cut).
import { createParser } from 'eventsource-parser';
import { ApiError } from '../../errors.ts';
import {
  type ClientFormat,
  contentText,
  type FinishReason,
  type HubChunk,
  type HubChunkToolCall,
  type HubContentPart,
  type HubMessage,
  type HubRequest,
  type HubResponse,
  type HubTool,
  type HubToolCall,
  type HubToolChoice,
  type HubUsage,
  newId,
  parseDataUrl,
  type ProviderFormat,
  type StreamDecoder,
  type StreamEncoder,
  UpstreamStreamError,
  type WireError,
} from './hub/index.ts';

/** Anthropic requires max_tokens; a hub request without one gets this. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

// ---- Anthropic wire types (the subset Switchboard writes) ----

export type AnthropicTextBlock = { type: 'text'; text: string };
export type AnthropicImageBlock = {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
};
export type AnthropicToolUseBlock = { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  is_error?: boolean;
};
export type AnthropicContentBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;
export type AnthropicMessageParam = { role: 'user' | 'assistant'; content: string | AnthropicContentBlock[] };
export type AnthropicTool = { name: string; description?: string; input_schema: Record<string, unknown> };
export type AnthropicToolChoice = { type: 'auto' | 'any' | 'none' | 'tool'; name?: string; disable_parallel_tool_use?: boolean };

export type AnthropicRequest = {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string | AnthropicTextBlock[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id: string };
};

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export type AnthropicResponse = {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: (AnthropicTextBlock | AnthropicToolUseBlock)[];
  stop_reason: AnthropicStopReason;
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number };
};

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

// ---- Client side: Anthropic request → hub ----

const EXAMPLE = 'Send {"model": "...", "max_tokens": 1024, "messages": [{"role": "user", "content": "Hello"}]}.';

function invalid(message: string, action = EXAMPLE): ApiError {
  return new ApiError('invalid_request', message, action);
}

/** Text of a `system` value or a system message: a string or text blocks. */
function systemText(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) {
    throw invalid(`"${path}" must be a string or an array of text blocks.`, 'Send "system": "You are ..." or [{"type": "text", "text": "..."}].');
  }
  return value
    .map((b, i) => {
      if (!isObject(b) || b.type !== 'text' || typeof b.text !== 'string') {
        throw invalid(`"${path}[${i}]" must be a text block {"type": "text", "text": "..."}.`, 'System prompts take text blocks only.');
      }
      return b.text;
    })
    .join('\n\n');
}

function stringField(block: Json, field: string, path: string): string {
  const v = block[field];
  if (typeof v !== 'string') throw invalid(`"${path}.${field}" must be a string.`, `Set "${field}" on the block at ${path}.`);
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
  if (source.type === 'url') return { type: 'image_url', image_url: { url: stringField(source, 'url', `${path}.source`) } };
  throw invalid(
    `"${path}" is an image with a "${String(source.type)}" source; Switchboard translates base64 and url images only.`,
    'Send the image inline as base64 or as a URL instead of a file id.',
  );
}

function documentToHub(block: Json, path: string): HubContentPart {
  const source = isObject(block.source) ? block.source : {};
  let text: string | undefined;
  if (source.type === 'text' && typeof source.data === 'string') text = source.data;
  else if (source.type === 'content') {
    if (typeof source.content === 'string') text = source.content;
    else if (Array.isArray(source.content)) {
      text = source.content.map((b) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('\n');
    }
  }
  if (text === undefined) {
    const kind = typeof source.media_type === 'string' ? `${String(source.type)} ${source.media_type}` : String(source.type);
    throw invalid(
      `"${path}" is a document block (${kind}); Switchboard translates plain-text documents only.`,
      'Extract the document\'s text and send it as a text block, or as a document with source {"type": "text", "media_type": "text/plain", "data": "..."}.',
    );
  }
  const title = typeof block.title === 'string' && block.title !== '' ? `${block.title}\n\n` : '';
  return { type: 'text', text: title + text };
}

function unsupportedBlock(type: unknown, path: string): ApiError {
  return invalid(
    `"${path}" is a "${String(type)}" block, which Switchboard cannot translate for other providers.`,
    'Send text, image, document (plain text), tool_use and tool_result blocks only.',
  );
}

/** Text parts joined as one string when there are no images (the form every provider accepts). */
function flatten(parts: HubContentPart[], separator: string): string | HubContentPart[] {
  return parts.every((p) => p.type === 'text') ? parts.map((p) => (p.type === 'text' ? p.text : '')).join(separator) : parts;
}

function toolResultToHub(block: Json, path: string): HubMessage {
  const id = stringField(block, 'tool_use_id', path);
  const parts: HubContentPart[] = [];
  const content = block.content;
  if (typeof content === 'string') parts.push({ type: 'text', text: content });
  else if (Array.isArray(content)) {
    content.forEach((b, i) => {
      const p = `${path}.content[${i}]`;
      if (!isObject(b)) throw invalid(`"${p}" must be a content block object.`);
      if (b.type === 'text') parts.push({ type: 'text', text: stringField(b, 'text', p) });
      else if (b.type === 'image') parts.push(imageToHub(b, p));
      else if (b.type === 'document') parts.push(documentToHub(b, p));
      else throw unsupportedBlock(b.type, p);
    });
  } else if (content !== undefined && content !== null) {
    throw invalid(`"${path}.content" must be a string or an array of blocks.`);
  }
  if (block.is_error === true) {
    const first = parts[0];
    if (first?.type === 'text') parts[0] = { type: 'text', text: `Error: ${first.text}` };
    else parts.unshift({ type: 'text', text: 'Error: ' });
  }
  return { role: 'tool', tool_call_id: id, content: flatten(parts, '\n') };
}

function userToHub(content: unknown[], path: string): HubMessage[] {
  const results: HubMessage[] = [];
  const parts: HubContentPart[] = [];
  content.forEach((b, i) => {
    const p = `${path}.content[${i}]`;
    if (!isObject(b)) throw invalid(`"${p}" must be a content block object.`);
    if (b.type === 'text') parts.push({ type: 'text', text: stringField(b, 'text', p) });
    else if (b.type === 'image') parts.push(imageToHub(b, p));
    else if (b.type === 'document') parts.push(documentToHub(b, p));
    else if (b.type === 'tool_result') results.push(toolResultToHub(b, p));
    else throw unsupportedBlock(b.type, p);
  });
  if (parts.length === 0 && results.length > 0) return results;
  const only = parts[0];
  const userContent = parts.length === 1 && only?.type === 'text' ? only.text : parts.length === 0 ? '' : parts;
  return [...results, { role: 'user', content: userContent }];
}

function assistantToHub(content: unknown[], path: string): HubMessage {
  const texts: string[] = [];
  const calls: HubToolCall[] = [];
  content.forEach((b, i) => {
    const p = `${path}.content[${i}]`;
    if (!isObject(b)) throw invalid(`"${p}" must be a content block object.`);
    if (b.type === 'text') texts.push(stringField(b, 'text', p));
    else if (b.type === 'tool_use') {
      const input = b.input === undefined || b.input === null ? {} : b.input;
      calls.push({ id: stringField(b, 'id', p), type: 'function', function: { name: stringField(b, 'name', p), arguments: JSON.stringify(input) } });
    } else if (b.type === 'thinking' || b.type === 'redacted_thinking') return;
    else throw unsupportedBlock(b.type, p);
  });
  const text = texts.length ? texts.join('') : calls.length ? null : '';
  return calls.length ? { role: 'assistant', content: text, tool_calls: calls } : { role: 'assistant', content: text };
}

function messageToHub(m: unknown, path: string): HubMessage[] {
  if (!isObject(m)) throw invalid(`"${path}" must be an object {"role": ..., "content": ...}.`);
  const { role, content } = m;
  if (role === 'system') return [{ role: 'system', content: systemText(content, `${path}.content`) }];
  if (role !== 'user' && role !== 'assistant') {
    throw invalid(`"${path}.role" must be "user", "assistant" or "system"; got ${JSON.stringify(role)}.`);
  }
  if (typeof content === 'string') return [{ role, content }];
  if (!Array.isArray(content)) throw invalid(`"${path}.content" must be a string or an array of content blocks.`);
  return role === 'user' ? userToHub(content, path) : [assistantToHub(content, path)];
}

function toolsToHub(tools: unknown): HubTool[] {
  if (!Array.isArray(tools)) throw invalid('"tools" must be an array of {"name", "description", "input_schema"}.');
  return tools.map((t, i) => {
    const path = `tools[${i}]`;
    if (!isObject(t)) throw invalid(`"${path}" must be an object {"name", "description", "input_schema"}.`);
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      throw invalid(
        `"${path}" is Anthropic's built-in tool "${String(t.type)}", which runs only on Anthropic's servers and cannot be translated.`,
        'Remove it, or declare a custom tool with "name", "description" and "input_schema".',
      );
    }
    const name = stringField(t, 'name', path);
    const fn: HubTool['function'] = { name };
    if (typeof t.description === 'string') fn.description = t.description;
    if (t.input_schema !== undefined) {
      if (!isObject(t.input_schema)) {
        throw invalid(`"${path}.input_schema" must be a JSON Schema object.`, 'Send "input_schema": {"type": "object", "properties": {...}}.');
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
    case 'tool':
      return { choice: { type: 'function', function: { name: stringField(choice, 'name', 'tool_choice') } }, ...parallel };
    default:
      throw invalid(`"tool_choice.type" must be "auto", "any", "none" or "tool"; got ${JSON.stringify(choice.type)}.`, action);
  }
}

function optionalNumber(body: Json, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw invalid(`"${field}" must be a number; got ${JSON.stringify(v)}.`, `Send "${field}" as a number or leave it out.`);
  }
  return v;
}

/** Validates an Anthropic Messages request and converts it to the hub form. */
export function anthropicToHub(body: unknown): HubRequest {
  if (!isObject(body)) throw invalid('The request body must be a JSON object.');
  const model = body.model;
  if (model === undefined || model === null || model === '') {
    throw new ApiError('model_required', 'The request has no "model"; Switchboard routes by model name.', 'Add "model": "<name>", e.g. "claude-haiku-4-5".');
  }
  if (typeof model !== 'string') throw invalid('"model" must be a string.');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('"messages" must be a non-empty array of {"role", "content"}.');

  const messages: HubMessage[] = [];
  if (body.system !== undefined && body.system !== null) {
    const system = systemText(body.system, 'system');
    if (system !== '') messages.push({ role: 'system', content: system });
  }
  body.messages.forEach((m, i) => messages.push(...messageToHub(m, `messages[${i}]`)));

  const req: HubRequest = { model, messages };
  const maxTokens = optionalNumber(body, 'max_tokens');
  if (maxTokens !== undefined) {
    if (!Number.isInteger(maxTokens) || maxTokens < 1) {
      throw invalid(`"max_tokens" must be a positive integer; got ${maxTokens}.`, 'Send e.g. "max_tokens": 1024.');
    }
    req.max_tokens = maxTokens;
  }
  const temperature = optionalNumber(body, 'temperature');
  if (temperature !== undefined) req.temperature = temperature;
  const topP = optionalNumber(body, 'top_p');
  if (topP !== undefined) req.top_p = topP;
  if (body.stop_sequences !== undefined && body.stop_sequences !== null) {
    if (!Array.isArray(body.stop_sequences) || !body.stop_sequences.every((s) => typeof s === 'string')) {
      throw invalid('"stop_sequences" must be an array of strings.', 'Send e.g. "stop_sequences": ["END"].');
    }
    if (body.stop_sequences.length) req.stop = body.stop_sequences as string[];
  }
  if (body.stream === true) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }
  if (body.tools !== undefined && body.tools !== null) {
    const tools = toolsToHub(body.tools);
    if (tools.length) req.tools = tools;
  }
  if (body.tool_choice !== undefined && body.tool_choice !== null) {
    const { choice, parallel } = toolChoiceToHub(body.tool_choice);
    req.tool_choice = choice;
    if (parallel === false) req.parallel_tool_calls = false;
  }
  if (isObject(body.metadata) && typeof body.metadata.user_id === 'string') req.user = body.metadata.user_id;
  return req;
}

// ---- Client side: hub → Anthropic response, stream and errors ----

/** A tool call's arguments as Anthropic's `input` object; text that is not a JSON object is kept as {"_raw": text}. */
export function parseToolInput(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(args);
    if (isObject(v)) return v;
  } catch {
    // fall through: keep the text
  }
  return { _raw: args };
}

function stopReason(finish: FinishReason | null, hasToolCalls: boolean): AnthropicStopReason {
  if (hasToolCalls && finish !== 'length' && finish !== 'content_filter') return 'tool_use';
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

const messageId = (hubId: string | undefined): string => (hubId?.startsWith('msg_') ? hubId : newId('msg_'));

function fromHubResponse(res: HubResponse, model: string): AnthropicResponse {
  const choice = res.choices[0];
  const content: AnthropicResponse['content'] = [];
  const text = choice?.message.content;
  if (typeof text === 'string' && text !== '') content.push({ type: 'text', text });
  const calls = choice?.message.tool_calls ?? [];
  for (const c of calls) {
    content.push({ type: 'tool_use', id: c.id || newId('toolu_'), name: c.function.name, input: parseToolInput(c.function.arguments) });
  }
  return {
    id: messageId(res.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(choice?.finish_reason ?? null, calls.length > 0),
    stop_sequence: null,
    usage: { input_tokens: res.usage?.prompt_tokens ?? 0, output_tokens: res.usage?.completion_tokens ?? 0 },
  };
}

/** Anthropic's error type for an HTTP status. */
export function anthropicErrorType(status: number): AnthropicErrorType {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

const errorText = (e: WireError): string => (e.action ? `${e.message} ${e.action}` : e.message);

function errorBody(e: WireError): unknown {
  return { type: 'error', error: { type: anthropicErrorType(e.status), message: errorText(e) } };
}

const sse = (type: string, data: Json = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** A hub tool call seen in a stream: its block opens once its name is known (Anthropic needs it up front). */
type StreamedTool = { id?: string; name: string; block?: number; pendingArgs: string };

function streamEncoder(model: string): StreamEncoder {
  let started = false;
  let done = false;
  let nextBlock = 0;
  let open: { index: number; kind: 'text' | 'tool' } | null = null;
  const tools = new Map<number, StreamedTool>();
  let finish: FinishReason | null = null;
  let usage: HubUsage | undefined;

  const start = (hubId: string | undefined): string => {
    started = true;
    const message = {
      id: messageId(hubId),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage?.prompt_tokens ?? 0, output_tokens: 0 },
    };
    return sse('message_start', { message }) + sse('ping');
  };
  const closeOpen = (): string => {
    if (!open) return '';
    const out = sse('content_block_stop', { index: open.index });
    open = null;
    return out;
  };
  const argsDelta = (index: number, partial: string): string =>
    sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });
  const openTool = (t: StreamedTool): string => {
    let out = closeOpen();
    const index = nextBlock++;
    t.block = index;
    open = { index, kind: 'tool' };
    out += sse('content_block_start', { index, content_block: { type: 'tool_use', id: t.id ?? newId('toolu_'), name: t.name, input: {} } });
    if (t.pendingArgs) out += argsDelta(index, t.pendingArgs);
    t.pendingArgs = '';
    return out;
  };
  const toolDelta = (tc: HubChunkToolCall): string => {
    let t = tools.get(tc.index);
    if (!t) tools.set(tc.index, (t = { name: '', pendingArgs: '' }));
    if (tc.id && !t.id) t.id = tc.id;
    const args = tc.function?.arguments ?? '';
    if (t.block === undefined) {
      if (tc.function?.name) t.name += tc.function.name;
      t.pendingArgs += args;
      return t.name ? openTool(t) : '';
    }
    // A delta for a block already closed (a provider interleaving calls) still goes out, under its own index:
    // losing arguments is worse than an unusual order, and Anthropic's SDK accumulates by index.
    return args ? argsDelta(t.block, args) : '';
  };

  return {
    contentType: 'text/event-stream',
    chunk(c: HubChunk): string {
      if (done) return '';
      if (c.usage) usage = c.usage;
      let out = started ? '' : start(c.id);
      for (const choice of c.choices) {
        if (choice.index !== 0) continue;
        const d = choice.delta;
        if (typeof d.content === 'string' && d.content !== '') {
          if (open?.kind !== 'text') {
            out += closeOpen();
            const index = nextBlock++;
            open = { index, kind: 'text' };
            out += sse('content_block_start', { index, content_block: { type: 'text', text: '' } });
          }
          out += sse('content_block_delta', { index: open.index, delta: { type: 'text_delta', text: d.content } });
        }
        for (const tc of d.tool_calls ?? []) out += toolDelta(tc);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      return out;
    },
    end(): string {
      if (done) return '';
      done = true;
      let out = started ? '' : start(undefined);
      out += closeOpen();
      for (const t of [...tools.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t)) {
        if (t.block === undefined) out += openTool(t) + closeOpen();
      }
      const delta = { stop_reason: stopReason(finish, tools.size > 0), stop_sequence: null };
      const outUsage = usage ? { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens } : { output_tokens: 0 };
      return out + sse('message_delta', { delta, usage: outUsage }) + sse('message_stop');
    },
    error(e: WireError): string {
      if (done) return '';
      done = true;
      const type = e.status === 503 || e.status === 529 ? 'overloaded_error' : 'api_error';
      return sse('error', { error: { type, message: errorText(e) } });
    },
  };
}

// ---- Provider side: hub → Anthropic request ----

/** Anthropic accepts tool ids matching [a-zA-Z0-9_-]+; the same id maps the same way in tool_use and tool_result. */
const toolId = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu_';

function partsToBlocks(content: string | HubContentPart[]): (AnthropicTextBlock | AnthropicImageBlock)[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: (AnthropicTextBlock | AnthropicImageBlock)[] = [];
  for (const p of content) {
    if (p.type === 'text') {
      if (p.text !== '') blocks.push({ type: 'text', text: p.text });
      continue;
    }
    const data = parseDataUrl(p.image_url.url);
    blocks.push({
      type: 'image',
      source: data ? { type: 'base64', media_type: data.mediaType, data: data.data } : { type: 'url', url: p.image_url.url },
    });
  }
  return blocks;
}

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
      const result: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: toolId(m.tool_call_id) };
      if (typeof m.content === 'string') {
        if (m.content !== '') result.content = m.content;
      } else {
        const blocks = partsToBlocks(m.content);
        if (blocks.length) result.content = blocks;
      }
      if (toolTurn) toolTurn.push(result);
      else messages.push({ role: 'user', content: (toolTurn = [result]) });
      continue;
    }
    if (m.role === 'user') {
      if (toolTurn) {
        toolTurn.push(...partsToBlocks(m.content));
        toolTurn = null;
      } else {
        messages.push({ role: 'user', content: typeof m.content === 'string' ? m.content : partsToBlocks(m.content) });
      }
      continue;
    }
    toolTurn = null;
    if (m.role !== 'assistant') continue; // (narrows the type; every other role was handled above)
    const blocks: AnthropicContentBlock[] = m.content == null ? [] : partsToBlocks(m.content);
    for (const c of m.tool_calls ?? []) {
      blocks.push({ type: 'tool_use', id: toolId(c.id), name: c.function.name, input: parseToolInput(c.function.arguments) });
    }
    if (blocks.length === 0) continue;
    const only = blocks[0];
    messages.push({ role: 'assistant', content: blocks.length === 1 && only?.type === 'text' ? only.text : blocks });
  }
  return { system, messages };
}

function toolChoiceFromHub(choice: HubToolChoice | undefined, parallel: boolean | undefined): AnthropicToolChoice | undefined {
  let out: AnthropicToolChoice | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'none') out = { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice) out = { type: 'tool', name: choice.function.name };
  if (parallel === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

function fromHubRequest(req: HubRequest): AnthropicRequest {
  const { system, messages } = messagesFromHub(req.messages);
  const out: AnthropicRequest = {
    model: req.model,
    max_tokens: req.max_tokens ?? req.max_completion_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system.length === 1) out.system = system[0]!;
  else if (system.length > 1) out.system = system.map((text) => ({ type: 'text', text }));
  if (req.stream) out.stream = true;
  if (typeof req.temperature === 'number') out.temperature = Math.min(1, Math.max(0, req.temperature));
  else if (typeof req.top_p === 'number') out.top_p = req.top_p;
  const stop = typeof req.stop === 'string' ? [req.stop] : (req.stop ?? []);
  if (stop.length) out.stop_sequences = stop;
  if (req.tools?.length) {
    out.tools = req.tools.map((t) => {
      const tool: AnthropicTool = { name: t.function.name, input_schema: t.function.parameters ?? { type: 'object', properties: {} } };
      if (t.function.description !== undefined) tool.description = t.function.description;
      return tool;
    });
    const choice = toolChoiceFromHub(req.tool_choice, req.parallel_tool_calls);
    if (choice) out.tool_choice = choice;
  }
  if (typeof req.user === 'string' && req.user !== '') out.metadata = { user_id: req.user };
  return out;
}

// ---- Provider side: Anthropic response, stream and errors → hub ----

function finishFromStopReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** Anthropic usage counters (input, cache writes, cache reads, output) as the hub's usage. */
type UsageCounters = { input: number; cacheCreation: number; cacheRead: number; output: number };

function readUsage(u: unknown, into: UsageCounters): boolean {
  if (!isObject(u)) return false;
  const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  into.input = n(u.input_tokens) ?? into.input;
  into.cacheCreation = n(u.cache_creation_input_tokens) ?? into.cacheCreation;
  into.cacheRead = n(u.cache_read_input_tokens) ?? into.cacheRead;
  into.output = n(u.output_tokens) ?? into.output;
  return true;
}

function hubUsage(u: UsageCounters): HubUsage {
  const prompt = u.input + u.cacheCreation + u.cacheRead;
  return { prompt_tokens: prompt, completion_tokens: u.output, total_tokens: prompt + u.output };
}

function errorMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const e = body.error;
  if (typeof e === 'string') return e;
  return isObject(e) && typeof e.message === 'string' ? e.message : undefined;
}

function toHubResponse(body: unknown, model: string): HubResponse {
  if (!isObject(body) || body.type === 'error') {
    const message = errorMessage(body) ?? 'the body is not an Anthropic message';
    throw new ApiError(
      'upstream_error',
      `The Anthropic provider answered an unusable reply: ${message}.`,
      "Check the provider's base_url and status; Switchboard expects an Anthropic Messages API there.",
    );
  }
  let text: string | null = null;
  let reasoning = '';
  const calls: HubToolCall[] = [];
  for (const b of Array.isArray(body.content) ? body.content : []) {
    if (!isObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') text = (text ?? '') + b.text;
    else if (b.type === 'thinking' && typeof b.thinking === 'string') reasoning += b.thinking;
    else if (b.type === 'tool_use') {
      calls.push({
        id: typeof b.id === 'string' ? b.id : newId('toolu_'),
        type: 'function',
        function: { name: typeof b.name === 'string' ? b.name : '', arguments: JSON.stringify(b.input ?? {}) },
      });
    }
  }
  const message: HubResponse['choices'][0]['message'] = { role: 'assistant', content: text };
  if (calls.length) message.tool_calls = calls;
  if (reasoning) message.reasoning_content = reasoning;
  const counters: UsageCounters = { input: 0, cacheCreation: 0, cacheRead: 0, output: 0 };
  const hasUsage = readUsage(body.usage, counters);
  return {
    id: typeof body.id === 'string' ? body.id : newId('msg_'),
    object: 'chat.completion',
    created: nowSeconds(),
    model: typeof body.model === 'string' && body.model ? body.model : model,
    choices: [{ index: 0, message, finish_reason: finishFromStopReason(body.stop_reason) }],
    ...(hasUsage ? { usage: hubUsage(counters) } : {}),
  };
}

/** The status and Switchboard code an Anthropic mid-stream error type stands for. */
function streamFailure(error: unknown): UpstreamStreamError {
  const e = isObject(error) ? error : {};
  const message = typeof e.message === 'string' ? e.message : 'The Anthropic provider reported an error mid-stream.';
  if (e.type === 'rate_limit_error') return new UpstreamStreamError(message, 'upstream_rate_limited', 429);
  if (e.type === 'overloaded_error') return new UpstreamStreamError(message, 'upstream_error', 503);
  return new UpstreamStreamError(message);
}

type StreamBlock = { kind: 'text' } | { kind: 'thinking' } | { kind: 'tool'; tool: number; startInput?: string; gotDelta: boolean } | { kind: 'other' };

function streamDecoder(fallbackModel: string): StreamDecoder {
  let out: HubChunk[] = [];
  let failure: UpstreamStreamError | null = null;
  let id = '';
  let model = fallbackModel;
  const created = nowSeconds();
  let started = false;
  let stopped = false;
  let finish: FinishReason | null = null;
  const counters: UsageCounters = { input: 0, cacheCreation: 0, cacheRead: 0, output: 0 };
  let hasUsage = false;
  const blocks = new Map<number, StreamBlock>();
  let tools = 0;

  const emit = (delta: HubChunk['choices'][0]['delta'], finishReason: FinishReason | null = null, usage?: HubUsage): void => {
    out.push({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...(usage ? { usage } : {}) });
  };
  const ensureStarted = (): void => {
    if (started) return;
    started = true;
    id ||= newId('msg_');
    emit({ role: 'assistant', content: '' });
  };
  const finishStream = (): void => {
    stopped = true;
    emit({}, finish ?? 'stop', hasUsage ? hubUsage(counters) : undefined);
  };

  const onData = (data: Json): void => {
    const index = typeof data.index === 'number' ? data.index : -1;
    switch (data.type) {
      case 'message_start': {
        const m = isObject(data.message) ? data.message : {};
        if (typeof m.id === 'string') id = m.id;
        if (typeof m.model === 'string' && m.model) model = m.model;
        hasUsage = readUsage(m.usage, counters) || hasUsage;
        ensureStarted();
        return;
      }
      case 'content_block_start': {
        ensureStarted();
        const b = isObject(data.content_block) ? data.content_block : {};
        if (b.type === 'text') {
          blocks.set(index, { kind: 'text' });
          if (typeof b.text === 'string' && b.text) emit({ content: b.text });
        } else if (b.type === 'thinking') {
          blocks.set(index, { kind: 'thinking' });
          if (typeof b.thinking === 'string' && b.thinking) emit({ reasoning_content: b.thinking });
        } else if (b.type === 'tool_use') {
          const tool = tools++;
          // Some Anthropic-compatible servers send the whole input here and no deltas: keep it until the block stops.
          const startInput = isObject(b.input) && Object.keys(b.input).length ? JSON.stringify(b.input) : undefined;
          blocks.set(index, { kind: 'tool', tool, gotDelta: false, ...(startInput ? { startInput } : {}) });
          const name = typeof b.name === 'string' ? b.name : '';
          emit({ tool_calls: [{ index: tool, id: typeof b.id === 'string' ? b.id : newId('toolu_'), type: 'function', function: { name, arguments: '' } }] });
        } else blocks.set(index, { kind: 'other' });
        return;
      }
      case 'content_block_delta': {
        ensureStarted();
        const d = isObject(data.delta) ? data.delta : {};
        const block = blocks.get(index);
        if (d.type === 'text_delta' && typeof d.text === 'string' && d.text) emit({ content: d.text });
        else if (d.type === 'thinking_delta' && typeof d.thinking === 'string' && d.thinking) emit({ reasoning_content: d.thinking });
        else if (d.type === 'input_json_delta' && block?.kind === 'tool') {
          block.gotDelta = true;
          if (typeof d.partial_json === 'string' && d.partial_json) emit({ tool_calls: [{ index: block.tool, function: { arguments: d.partial_json } }] });
        }
        return;
      }
      case 'content_block_stop': {
        const block = blocks.get(index);
        if (block?.kind === 'tool' && !block.gotDelta && block.startInput) {
          emit({ tool_calls: [{ index: block.tool, function: { arguments: block.startInput } }] });
        }
        return;
      }
      case 'message_delta': {
        ensureStarted();
        const d = isObject(data.delta) ? data.delta : {};
        if (typeof d.stop_reason === 'string') finish = finishFromStopReason(d.stop_reason);
        hasUsage = readUsage(data.usage, counters) || hasUsage;
        return;
      }
      case 'message_stop':
        ensureStarted();
        finishStream();
        return;
      case 'error':
        failure = streamFailure(data.error);
        return;
      default:
        return; // ping and event types added later
    }
  };

  const parser = createParser({
    onEvent(event) {
      if (failure || stopped) return;
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return; // not JSON: skip it, as Anthropic's SDK skips events it cannot use
      }
      if (isObject(data)) onData(typeof data.type === 'string' || !event.event ? data : { ...data, type: event.event });
    },
  });
  /** Chunks decoded so far; a failure is raised once the chunks before it have been handed over. */
  const drain = (): HubChunk[] => {
    if (out.length === 0 && failure) throw failure;
    const r = out;
    out = [];
    return r;
  };
  return {
    push(text: string): HubChunk[] {
      if (!failure) parser.feed(text);
      return drain();
    },
    end(): HubChunk[] {
      if (!failure) parser.reset({ consume: true });
      if (!failure && !stopped) {
        if (finish === null) failure = new UpstreamStreamError('The Anthropic stream ended before message_stop: the reply is incomplete.');
        else finishStream();
      }
      const r = drain();
      if (failure && r.length) {
        // end() is the last call: chunks before the failure cannot be handed over after it, so raise now.
        throw failure;
      }
      return r;
    },
  };
}

// ---- Extra endpoints: count_tokens and the models list ----

/** Tokens an image counts for in countTokens (Anthropic's cost of a ~1.15 megapixel image, its largest unscaled). */
const IMAGE_TOKENS = 1600;

/**
 * POST /v1/messages/count_tokens, estimated without a tokenizer: the characters of every text the model reads
 * (system, messages, tool calls and results, tool names, descriptions and schemas as JSON) divided by 4 and
 * rounded up, plus 1,600 per image. Validates the body as POST /v1/messages does (max_tokens not needed).
 */
export function countTokens(body: unknown): { input_tokens: number } {
  const req = anthropicToHub(body);
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
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length;
  }
  for (const t of req.tools ?? []) {
    chars += t.function.name.length + (t.function.description?.length ?? 0) + JSON.stringify(t.function.parameters ?? {}).length;
  }
  return { input_tokens: Math.ceil(chars / 4) + images * IMAGE_TOKENS };
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

export const anthropicFormat: ClientFormat & ProviderFormat = {
  name: 'anthropic',
  requestToHub: (body) => anthropicToHub(body),
  responseFromHub: (res, ctx) => fromHubResponse(res, ctx.model),
  streamEncoder: (ctx) => streamEncoder(ctx.model),
  errorBody,
  requestFromHub: fromHubRequest,
  responseToHub: toHubResponse,
  streamDecoder,
  errorMessage,
};
