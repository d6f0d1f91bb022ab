// Ollama's native API: /api/chat as a client front door and a provider kind, plus helpers for /api/generate.
// Ollama differs from the hub in four ways that matter: NDJSON streams (one JSON object a line, a final
// `done: true` line), tool arguments as JSON objects, no tool call ids, and `stream` defaulting to true.
import { ApiError } from '../../errors.ts';
import {
  type ClientFormat,
  contentText,
  type FinishReason,
  type HubChunk,
  type HubContentPart,
  type HubMessage,
  type HubRequest,
  type HubResponse,
  type HubTool,
  type HubToolCall,
  type HubUsage,
  newId,
  parseDataUrl,
  type ProviderFormat,
  type StreamDecoder,
  type StreamEncoder,
  UpstreamStreamError,
  type WireError,
} from './hub/index.ts';

// ---------------------------------------------------------------------------------------------------------------
// Wire types (the subset Switchboard reads and writes)

export type OllamaToolCall = {
  /** Newer Ollama versions may send one; read when present, never required. */
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> | string };
};

export type OllamaMessage = {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Base64 image data without a `data:` prefix. */
  images?: string[];
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
  thinking?: string;
};

export type OllamaTool = { type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } };

export type OllamaOptions = {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  num_predict?: number;
  stop?: string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
};

export type OllamaChatRequest = {
  model: string;
  messages: OllamaMessage[];
  tools?: OllamaTool[];
  stream: boolean;
  format?: 'json' | Record<string, unknown>;
  options?: OllamaOptions;
};

/** Durations in nanoseconds, counts in tokens: what the final object of every reply carries. */
export type OllamaTimings = {
  total_duration: number;
  load_duration: number;
  prompt_eval_count: number;
  prompt_eval_duration: number;
  eval_count: number;
  eval_duration: number;
};

export type OllamaDoneReason = 'stop' | 'length';

export type OllamaChatResponse = {
  model: string;
  created_at: string;
  message: OllamaMessage;
  done: true;
  done_reason: OllamaDoneReason;
} & OllamaTimings;

export type OllamaGenerateResponse = {
  model: string;
  created_at: string;
  response: string;
  thinking?: string;
  done: true;
  done_reason: OllamaDoneReason;
  context: number[];
} & OllamaTimings;

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

// ---------------------------------------------------------------------------------------------------------------
// Small shared pieces

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const absent = (v: unknown): v is undefined | null => v === undefined || v === null;

function invalid(field: string, problem: string, action: string): ApiError {
  return new ApiError('invalid_request', `Invalid Ollama request: "${field}" ${problem}.`, action);
}

/** The text an Ollama client shows for an error: the message and, when known, what to do about it. */
function errorText(e: WireError): string {
  return e.action ? `${e.message} ${e.action}` : e.message;
}

/** Tool arguments as Ollama's object; a text that is not a JSON object stays text so nothing is lost. */
function argumentsObject(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : text;
  } catch {
    return text;
  }
}

/** Ollama's object arguments as the hub's JSON text. */
function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(absent(args) ? {} : args);
}

function doneReason(finish: FinishReason | null | undefined): OllamaDoneReason {
  // Ollama reports a reply that ends in tool calls as 'stop'.
  return finish === 'length' ? 'length' : 'stop';
}

/**
 * Ollama's timing fields from an elapsed time, split between prompt and reply by token share, so clients
 * that compute tokens per second (eval_count / eval_duration) get a finite, plausible figure.
 */
function timings(elapsedMs: number, promptTokens: number, evalTokens: number): OllamaTimings {
  const total = Math.max(1, Math.round(elapsedMs * 1e6));
  const tokens = promptTokens + evalTokens;
  const promptDuration = tokens > 0 ? Math.floor((total * promptTokens) / tokens) : 0;
  return {
    total_duration: total,
    load_duration: 0,
    prompt_eval_count: promptTokens,
    prompt_eval_duration: promptDuration,
    eval_count: evalTokens,
    eval_duration: total - promptDuration,
  };
}

/** Elapsed time since a hub response's `created` (seconds), when that clock reading is plausible. */
function elapsedSinceCreated(created: number, now: number): number {
  const elapsed = now - created * 1000;
  return elapsed >= 0 && elapsed <= 3_600_000 ? elapsed : 0;
}

/** The media type of base64 image data, from its first bytes (Ollama sends bare base64). */
function sniffImageType(base64: string): string {
  if (base64.startsWith('/9j/')) return 'image/jpeg';
  if (base64.startsWith('R0lGOD')) return 'image/gif';
  if (base64.startsWith('UklGR')) return 'image/webp';
  if (base64.startsWith('Qk')) return 'image/bmp';
  return 'image/png';
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: reading requests

function requireObject(v: unknown, field: string, action: string): Json {
  if (!isObject(v)) {
    if (field === '(body)') throw new ApiError('invalid_request', 'The request body must be a JSON object.', action);
    throw invalid(field, 'must be an object', action);
  }
  return v;
}

function requireModel(b: Json, example: string): string {
  const model = b.model;
  if (absent(model) || model === '') {
    throw new ApiError('model_required', 'The request has no "model"; Switchboard routes by model name.', `Add "model": "<name>", e.g. ${example}.`);
  }
  if (typeof model !== 'string') throw invalid('model', 'must be a string', 'Send the model name as a string, e.g. "llama3.2".');
  return model;
}

function optionalString(v: unknown, field: string): string | undefined {
  if (absent(v)) return undefined;
  if (typeof v !== 'string') throw invalid(field, 'must be a string', `Send "${field}" as text.`);
  return v;
}

function optionalNumber(v: unknown, field: string): number | undefined {
  if (absent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(field, 'must be a number', `Send "${field}" as a number, or leave it out.`);
  return v;
}

function readImages(v: unknown, field: string): string[] {
  if (absent(v)) return [];
  if (!Array.isArray(v) || v.some((i) => typeof i !== 'string')) {
    throw invalid(field, 'must be an array of base64 strings', `Send images as base64 text without a "data:" prefix, e.g. "${field}": ["iVBORw0KGgo..."].`);
  }
  return v as string[];
}

/** Ollama's content and images as hub content: the text first, then each image as a data: URL. */
function hubContent(text: string, images: string[]): string | HubContentPart[] {
  if (images.length === 0) return text;
  const parts: HubContentPart[] = text ? [{ type: 'text', text }] : [];
  for (const image of images) {
    const url = image.startsWith('data:') ? image : `data:${sniffImageType(image)};base64,${image}`;
    parts.push({ type: 'image_url', image_url: { url } });
  }
  return parts;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Ollama messages as hub messages. Ollama has no tool call ids: each assistant tool call gets a minted id (or the
 * `id` a newer Ollama client sent), and each `tool` message is linked to an unanswered call of the latest assistant
 * message — by `tool_call_id` if sent, else by `tool_name`, else in order.
 */
function readMessages(v: unknown): HubMessage[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw invalid('messages', 'must be an array', 'Send "messages": [{"role": "user", "content": "..."}].');
  let pending: { id: string; name: string }[] = [];
  return v.map((raw, i): HubMessage => {
    const f = `messages[${i}]`;
    const m = requireObject(raw, f, `Send each message as {"role": "user", "content": "..."}.`);
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) {
      throw invalid(`${f}.role`, 'must be "system", "user", "assistant" or "tool"', 'Give every message one of those roles.');
    }
    if (Array.isArray(m.content)) {
      throw invalid(`${f}.content`, 'must be a string in Ollama\'s format (not an array of parts)', `Send the text as "content" and images as base64 in "${f}.images".`);
    }
    const text = optionalString(m.content, `${f}.content`) ?? '';
    const content = hubContent(text, readImages(m.images, `${f}.images`));
    switch (m.role) {
      case 'system':
        return { role: 'system', content };
      case 'user':
        return { role: 'user', content };
      case 'assistant': {
        const calls = readToolCalls(m.tool_calls, f);
        pending = calls.map((c) => ({ id: c.id, name: c.function.name }));
        const out: HubMessage = { role: 'assistant', content: calls.length > 0 && content === '' ? null : content };
        if (calls.length > 0) out.tool_calls = calls;
        const thinking = optionalString(m.thinking, `${f}.thinking`);
        if (thinking) out.reasoning_content = thinking;
        return out;
      }
      default: {
        // Older clients name the tool in `name`; Ollama's field is `tool_name`.
        const toolName = optionalString(m.tool_name, `${f}.tool_name`) ?? (typeof m.name === 'string' ? m.name : undefined);
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

function readToolCalls(v: unknown, f: string): HubToolCall[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw invalid(`${f}.tool_calls`, 'must be an array', 'Send [{"function": {"name": "...", "arguments": {...}}}].');
  return v.map((raw, j) => {
    const cf = `${f}.tool_calls[${j}]`;
    const call = requireObject(raw, cf, 'Send {"function": {"name": "...", "arguments": {...}}}.');
    const fn = requireObject(call.function, `${cf}.function`, 'Send {"name": "...", "arguments": {...}}.');
    if (typeof fn.name !== 'string' || fn.name === '') throw invalid(`${cf}.function.name`, 'must be a non-empty string', 'Name the tool that was called.');
    const args = fn.arguments;
    if (!absent(args) && !isObject(args) && typeof args !== 'string') {
      throw invalid(`${cf}.function.arguments`, 'must be an object', 'Send the arguments as a JSON object, e.g. {"city": "Paris"}.');
    }
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : newId('call_');
    return { id, type: 'function' as const, function: { name: fn.name, arguments: argumentsText(args) } };
  });
}

function readTools(v: unknown): HubTool[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw invalid('tools', 'must be an array', 'Send [{"type": "function", "function": {"name": "...", "parameters": {...}}}].');
  return v.map((raw, i) => {
    const f = `tools[${i}]`;
    const t = requireObject(raw, f, 'Send {"type": "function", "function": {"name": "...", "parameters": {...}}}.');
    if (!absent(t.type) && t.type !== 'function') throw invalid(`${f}.type`, 'must be "function"', 'Only function tools exist in Ollama\'s format.');
    const fn = requireObject(t.function, `${f}.function`, 'Send {"name": "...", "description": "...", "parameters": {...}}.');
    if (typeof fn.name !== 'string' || fn.name === '') throw invalid(`${f}.function.name`, 'must be a non-empty string', 'Give every tool a name.');
    const tool: HubTool = { type: 'function', function: { name: fn.name } };
    const description = optionalString(fn.description, `${f}.function.description`);
    if (description !== undefined) tool.function.description = description;
    if (!absent(fn.parameters)) tool.function.parameters = requireObject(fn.parameters, `${f}.function.parameters`, 'Send the parameters as a JSON schema object.');
    return tool;
  });
}

/** The fields /api/chat and /api/generate share: stream (default true), format and options. */
function readCommon(b: Json, hub: HubRequest): void {
  if (!absent(b.stream) && typeof b.stream !== 'boolean') throw invalid('stream', 'must be true or false', 'Send "stream": false for one JSON reply, or leave it out to stream.');
  hub.stream = b.stream !== false;
  // Ollama's final line always carries token counts: ask OpenAI-style providers for them.
  if (hub.stream) hub.stream_options = { include_usage: true };

  const format = b.format;
  if (format === 'json') hub.response_format = { type: 'json_object' };
  else if (isObject(format)) hub.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: format } };
  else if (!absent(format) && format !== '') throw invalid('format', 'must be "json" or a JSON schema object', 'Send "format": "json", a JSON schema, or leave it out.');

  if (absent(b.options)) return;
  const o = requireObject(b.options, 'options', 'Send options as an object, e.g. {"temperature": 0.7}.');
  const temperature = optionalNumber(o.temperature, 'options.temperature');
  if (temperature !== undefined) hub.temperature = temperature;
  const topP = optionalNumber(o.top_p, 'options.top_p');
  if (topP !== undefined) hub.top_p = topP;
  // num_predict -1 (no limit) and -2 (fill the context) have no hub form: the provider's default applies.
  const numPredict = optionalNumber(o.num_predict, 'options.num_predict');
  if (numPredict !== undefined && numPredict > 0) hub.max_tokens = Math.floor(numPredict);
  const seed = optionalNumber(o.seed, 'options.seed');
  if (seed !== undefined) hub.seed = seed;
  const presence = optionalNumber(o.presence_penalty, 'options.presence_penalty');
  if (presence !== undefined) hub.presence_penalty = presence;
  const frequency = optionalNumber(o.frequency_penalty, 'options.frequency_penalty');
  if (frequency !== undefined) hub.frequency_penalty = frequency;
  // top_k is checked but not carried: the hub (OpenAI) has no such field and OpenAI refuses unknown ones.
  optionalNumber(o.top_k, 'options.top_k');
  const stop = o.stop;
  if (typeof stop === 'string') hub.stop = [stop];
  else if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) {
    if (stop.length > 0) hub.stop = stop as string[];
  } else if (!absent(stop)) throw invalid('options.stop', 'must be an array of strings', 'Send "stop": ["END"], or leave it out.');
}

/** POST /api/chat body → hub request. Ignores keep_alive, think, options.num_ctx and fields it does not know. */
function chatToHub(body: unknown): HubRequest {
  const b = requireObject(body, '(body)', 'Send {"model": "...", "messages": [{"role": "user", "content": "..."}]}.');
  const hub: HubRequest = { model: requireModel(b, '"llama3.2"'), messages: readMessages(b.messages) };
  const tools = readTools(b.tools);
  if (tools.length > 0) hub.tools = tools;
  readCommon(b, hub);
  return hub;
}

/** POST /api/generate body → hub request: `system` and `prompt` (with its images) become two messages. */
export function generateToHub(body: unknown): HubRequest {
  const b = requireObject(body, '(body)', 'Send {"model": "...", "prompt": "..."}.');
  const model = requireModel(b, '"llama3.2"');
  const system = optionalString(b.system, 'system');
  const prompt = optionalString(b.prompt, 'prompt') ?? '';
  // suffix (fill-in-the-middle), raw, template and context have no hub form: they are checked and left out.
  optionalString(b.suffix, 'suffix');
  const messages: HubMessage[] = [];
  if (system) messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: hubContent(prompt, readImages(b.images, 'images')) });
  const hub: HubRequest = { model, messages };
  readCommon(b, hub);
  return hub;
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: writing responses and streams

function ollamaToolCalls(calls: { name: string; arguments: string }[]): OllamaToolCall[] {
  return calls.map((c) => ({ function: { name: c.name, arguments: argumentsObject(c.arguments) } }));
}

function counts(usage: HubUsage | undefined | null): { prompt: number; completion: number } {
  return { prompt: usage?.prompt_tokens ?? 0, completion: usage?.completion_tokens ?? 0 };
}

function chatResponseFromHub(res: HubResponse, model: string): OllamaChatResponse {
  const now = Date.now();
  const choice = res.choices[0];
  const message: OllamaMessage = { role: 'assistant', content: contentText(choice?.message.content) };
  if (choice?.message.reasoning_content) message.thinking = choice.message.reasoning_content;
  const calls = choice?.message.tool_calls ?? [];
  if (calls.length > 0) message.tool_calls = ollamaToolCalls(calls.map((c) => c.function));
  const { prompt, completion } = counts(res.usage);
  return {
    model,
    created_at: new Date(now).toISOString(),
    message,
    done: true,
    done_reason: doneReason(choice?.finish_reason),
    ...timings(elapsedSinceCreated(res.created, now), prompt, completion),
  };
}

/** A hub (non-stream) response as the body of POST /api/generate. */
export function generateResponseFromHub(res: HubResponse, model: string): OllamaGenerateResponse {
  const now = Date.now();
  const choice = res.choices[0];
  const { prompt, completion } = counts(res.usage);
  return {
    model,
    created_at: new Date(now).toISOString(),
    response: contentText(choice?.message.content),
    ...(choice?.message.reasoning_content ? { thinking: choice.message.reasoning_content } : {}),
    done: true,
    done_reason: doneReason(choice?.finish_reason),
    context: [],
    ...timings(elapsedSinceCreated(res.created, now), prompt, completion),
  };
}

/**
 * Hub chunks as Ollama NDJSON: one line per text delta; tool calls buffered until the reply finishes and then
 * written whole in one line (Ollama sends complete calls with object arguments); a final `done: true` line with
 * durations measured from the encoder's creation and token counts (the provider's usage, else one per delta).
 */
function ndjsonEncoder(model: string, shape: 'chat' | 'generate'): StreamEncoder {
  const started = performance.now();
  const calls: { name: string; arguments: string }[] = [];
  let finish: FinishReason | null = null;
  let usage: HubUsage | undefined;
  let deltas = 0;
  let closed = false;

  const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
  const partial = (delta: { content?: string; thinking?: string; tool_calls?: OllamaToolCall[] }): string => {
    const head = { model, created_at: new Date().toISOString() };
    if (shape === 'generate') {
      return line({ ...head, response: delta.content ?? '', ...(delta.thinking ? { thinking: delta.thinking } : {}), done: false });
    }
    return line({ ...head, message: { role: 'assistant', content: delta.content ?? '', ...delta }, done: false });
  };
  const flushCalls = (): string => {
    const complete = calls.filter(Boolean);
    calls.length = 0;
    // /api/generate has no tool calls: a generate client never offered tools, so there is nothing to write.
    if (complete.length === 0 || shape === 'generate') return '';
    return partial({ tool_calls: ollamaToolCalls(complete) });
  };

  return {
    contentType: NDJSON_CONTENT_TYPE,
    chunk(c: HubChunk): string {
      if (closed) return '';
      if (c.usage) usage = c.usage;
      let out = '';
      for (const choice of c.choices) {
        if (choice.index !== 0) continue;
        const d = choice.delta;
        if (d.reasoning_content) {
          out += partial({ thinking: d.reasoning_content });
          deltas++;
        }
        if (typeof d.content === 'string' && d.content !== '') {
          out += flushCalls() + partial({ content: d.content });
          deltas++;
        }
        for (const tc of d.tool_calls ?? []) {
          const slot = (calls[tc.index] ??= { name: '', arguments: '' });
          if (tc.function?.name) slot.name += tc.function.name;
          if (tc.function?.arguments) slot.arguments += tc.function.arguments;
        }
        if (choice.finish_reason) {
          finish = choice.finish_reason;
          out += flushCalls();
        }
      }
      return out;
    },
    end(): string {
      if (closed) return '';
      closed = true;
      const head = { model, created_at: new Date().toISOString() };
      const counted = timings(performance.now() - started, usage?.prompt_tokens ?? 0, usage?.completion_tokens ?? deltas);
      const body =
        shape === 'generate'
          ? { ...head, response: '', done: true, done_reason: doneReason(finish), context: [], ...counted }
          : { ...head, message: { role: 'assistant', content: '' }, done: true, done_reason: doneReason(finish), ...counted };
      return flushCalls() + line(body);
    },
    error(e: WireError): string {
      if (closed) return '';
      closed = true;
      return line({ error: errorText(e) });
    },
  };
}

/** A streaming encoder for POST /api/generate: NDJSON lines with `response` instead of `message`. */
export function generateStreamEncoder(model: string): StreamEncoder {
  return ndjsonEncoder(model, 'generate');
}

// ---------------------------------------------------------------------------------------------------------------
// Provider side: writing requests

/** Splits hub content into Ollama's text and base64 images; only inline (data:) images can be sent. */
function ollamaContent(content: string | HubContentPart[] | null, field: string): { content: string; images?: string[] } {
  if (content === null || typeof content === 'string') return { content: content ?? '' };
  const images: string[] = [];
  content.forEach((part, j) => {
    if (part.type !== 'image_url') return;
    const data = parseDataUrl(part.image_url.url);
    if (!data) {
      throw new ApiError(
        'invalid_request',
        `"${field}[${j}].image_url.url" is a remote URL; Ollama accepts only inline images.`,
        'Send the image as a data: URL (data:image/png;base64,...).',
      );
    }
    images.push(data.data);
  });
  return images.length > 0 ? { content: contentText(content), images } : { content: contentText(content) };
}

/** Hub tools as Ollama's, after tool_choice (which Ollama lacks): "none" sends none, a named one sends only it. */
function ollamaTools(req: HubRequest): OllamaTool[] {
  const choice = req.tool_choice;
  if (!req.tools || choice === 'none') return [];
  const tools = typeof choice === 'object' ? req.tools.filter((t) => t.function.name === choice.function.name) : req.tools;
  return tools.map((t) => {
    const fn: OllamaTool['function'] = { name: t.function.name };
    if (t.function.description !== undefined) fn.description = t.function.description;
    if (t.function.parameters !== undefined) fn.parameters = t.function.parameters;
    return { type: 'function', function: fn };
  });
}

function ollamaOptions(req: HubRequest): OllamaOptions | undefined {
  const o: OllamaOptions = {};
  if (typeof req.temperature === 'number') o.temperature = req.temperature;
  if (typeof req.top_p === 'number') o.top_p = req.top_p;
  if (typeof req.top_k === 'number') o.top_k = req.top_k; // an OpenAI-compatible client's extra field
  const max = req.max_tokens ?? req.max_completion_tokens;
  if (typeof max === 'number') o.num_predict = max;
  if (typeof req.stop === 'string') o.stop = [req.stop];
  else if (Array.isArray(req.stop) && req.stop.length > 0) o.stop = req.stop;
  if (typeof req.seed === 'number') o.seed = req.seed;
  if (typeof req.presence_penalty === 'number') o.presence_penalty = req.presence_penalty;
  if (typeof req.frequency_penalty === 'number') o.frequency_penalty = req.frequency_penalty;
  return Object.keys(o).length > 0 ? o : undefined;
}

function chatRequestFromHub(req: HubRequest): OllamaChatRequest {
  const callNames = new Map<string, string>();
  const messages = req.messages.map((m, i): OllamaMessage => {
    const field = `messages[${i}].content`;
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', ...ollamaContent(m.content, field) };
      case 'user':
        return { role: 'user', ...ollamaContent(m.content, field) };
      case 'assistant': {
        const out: OllamaMessage = { role: 'assistant', ...ollamaContent(m.content, field) };
        if (m.reasoning_content) out.thinking = m.reasoning_content;
        if (m.tool_calls && m.tool_calls.length > 0) {
          out.tool_calls = m.tool_calls.map((c) => {
            callNames.set(c.id, c.function.name);
            const args = argumentsObject(c.function.arguments);
            // Ollama refuses text arguments; a call whose arguments never parsed is replayed with none.
            return { function: { name: c.function.name, arguments: typeof args === 'string' ? {} : args } };
          });
        }
        return out;
      }
      case 'tool': {
        const out: OllamaMessage = { role: 'tool', ...ollamaContent(m.content, field) };
        const name = callNames.get(m.tool_call_id) ?? m.name;
        if (name) out.tool_name = name;
        return out;
      }
    }
  });
  const body: OllamaChatRequest = { model: req.model, messages, stream: req.stream === true };
  const tools = ollamaTools(req);
  if (tools.length > 0) body.tools = tools;
  const rf = req.response_format;
  if (rf?.type === 'json_object') body.format = 'json';
  else if (rf?.type === 'json_schema') body.format = rf.json_schema?.schema ?? 'json';
  const options = ollamaOptions(req);
  if (options) body.options = options;
  return body;
}

// ---------------------------------------------------------------------------------------------------------------
// Provider side: reading responses and streams

function upstreamError(v: unknown): string {
  if (typeof v === 'string' && v !== '') return v;
  if (isObject(v) && typeof v.message === 'string') return v.message;
  return 'the Ollama provider reported an error';
}

function finishOf(sawToolCalls: boolean, reason: unknown): FinishReason {
  if (sawToolCalls) return 'tool_calls';
  return reason === 'length' ? 'length' : 'stop';
}

function usageOf(body: Json): HubUsage | undefined {
  const p = body.prompt_eval_count;
  const c = body.eval_count;
  if (typeof p !== 'number' && typeof c !== 'number') return undefined;
  const prompt = typeof p === 'number' ? p : 0;
  const completion = typeof c === 'number' ? c : 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function createdOf(v: unknown): number {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  return Math.floor((Number.isNaN(ms) ? Date.now() : ms) / 1000);
}

function hubToolCalls(v: unknown): HubToolCall[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((c) => {
    const fn = isObject(c.function) ? c.function : {};
    return {
      id: typeof c.id === 'string' && c.id !== '' ? c.id : newId('call_'),
      type: 'function' as const,
      function: { name: typeof fn.name === 'string' ? fn.name : '', arguments: argumentsText(fn.arguments) },
    };
  });
}

function chatResponseToHub(body: unknown, model: string): HubResponse {
  if (!isObject(body)) throw new UpstreamStreamError('The Ollama provider answered with a body that is not a JSON object.');
  if (!absent(body.error)) throw new UpstreamStreamError(upstreamError(body.error));
  const m = isObject(body.message) ? body.message : {};
  const calls = hubToolCalls(m.tool_calls);
  const text = typeof m.content === 'string' ? m.content : '';
  const message: HubResponse['choices'][0]['message'] = { role: 'assistant', content: calls.length > 0 && text === '' ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  if (typeof m.thinking === 'string' && m.thinking !== '') message.reasoning_content = m.thinking;
  const usage = usageOf(body);
  return {
    id: newId('chatcmpl-'),
    object: 'chat.completion',
    created: createdOf(body.created_at),
    model: typeof body.model === 'string' && body.model !== '' ? body.model : model,
    choices: [{ index: 0, message, finish_reason: finishOf(calls.length > 0, body.done_reason) }],
    ...(usage ? { usage } : {}),
  };
}

/**
 * Ollama NDJSON → hub chunks. Lines may arrive cut anywhere: text is buffered to each newline. A line that is not
 * JSON is skipped (as the Ollama client does); an `{"error": …}` line raises UpstreamStreamError (after handing over
 * the chunks read before it); a stream that ends without its `done: true` line is incomplete and raises too.
 */
function chatStreamDecoder(model: string): StreamDecoder {
  const id = newId('chatcmpl-');
  let created = 0;
  let name = model;
  let buffer = '';
  let started = false;
  let done = false;
  let toolIndex = 0;
  let failure: UpstreamStreamError | null = null;

  const chunk = (delta: HubChunk['choices'][0]['delta'], finish: FinishReason | null = null): HubChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: name,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  const readLine = (text: string, out: HubChunk[]): void => {
    if (done || failure) return;
    const trimmed = text.trim();
    if (trimmed === '') return;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      return;
    }
    if (!isObject(json)) return;
    if (!absent(json.error)) {
      failure = new UpstreamStreamError(upstreamError(json.error));
      return;
    }
    if (!started) {
      started = true;
      created = createdOf(json.created_at);
      if (typeof json.model === 'string' && json.model !== '') name = json.model;
      out.push(chunk({ role: 'assistant', content: '' }));
    }
    const m = isObject(json.message) ? json.message : {};
    if (typeof m.thinking === 'string' && m.thinking !== '') out.push(chunk({ reasoning_content: m.thinking }));
    if (typeof m.content === 'string' && m.content !== '') out.push(chunk({ content: m.content }));
    const calls = hubToolCalls(m.tool_calls);
    if (calls.length > 0) {
      out.push(chunk({ tool_calls: calls.map((c) => ({ index: toolIndex++, id: c.id, type: 'function', function: c.function })) }));
    }
    if (json.done === true) {
      done = true;
      const final = chunk({}, finishOf(toolIndex > 0, json.done_reason));
      const usage = usageOf(json);
      out.push(usage ? { ...final, usage } : final);
    }
  };

  return {
    push(text: string): HubChunk[] {
      if (failure) throw failure;
      const scanFrom = buffer.length;
      buffer += text;
      const out: HubChunk[] = [];
      let start = 0;
      let nl = buffer.indexOf('\n', scanFrom);
      while (nl !== -1) {
        readLine(buffer.slice(start, nl), out);
        start = nl + 1;
        nl = buffer.indexOf('\n', start);
      }
      buffer = buffer.slice(start);
      if (failure && out.length === 0) throw failure;
      return out;
    },
    end(): HubChunk[] {
      if (failure) throw failure;
      const out: HubChunk[] = [];
      readLine(buffer, out);
      buffer = '';
      if (failure) throw failure;
      if (!done) throw new UpstreamStreamError('The Ollama provider\'s stream ended without its final "done": true line; the reply is incomplete.');
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------

/** Ollama's /api/chat, both as a client front door and as a provider kind (`<base_url>/api/chat`). */
export const ollamaFormat: ClientFormat & ProviderFormat = {
  name: 'ollama',
  requestToHub: (body: unknown) => chatToHub(body),
  responseFromHub: (res: HubResponse, ctx) => chatResponseFromHub(res, ctx.model),
  streamEncoder: (ctx) => ndjsonEncoder(ctx.model, 'chat'),
  // Ollama clients read `error` as a string (an object shows as "[object Object]").
  errorBody: (e: WireError) => ({ error: errorText(e) }),
  requestFromHub: (req: HubRequest) => chatRequestFromHub(req),
  responseToHub: (body: unknown, model: string) => chatResponseToHub(body, model),
  streamDecoder: (model: string) => chatStreamDecoder(model),
  errorMessage(body: unknown): string | undefined {
    if (typeof body === 'string') return body.trim() || undefined;
    if (!isObject(body)) return undefined;
    const e = body.error;
    if (typeof e === 'string') return e;
    return isObject(e) && typeof e.message === 'string' ? e.message : undefined;
  },
};
