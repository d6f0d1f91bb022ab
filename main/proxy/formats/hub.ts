// The hub form every wire format converts to and from: OpenAI chat completions (request, response, stream chunk).
// Each format module in this folder implements ClientFormat (its front door) and/or ProviderFormat (talking to a
// provider of that kind). When a client's format equals its provider's, bytes pass through untranslated.

export type FormatName = 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'responses';

export type HubContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } };

export type HubToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

export type HubMessage =
  | { role: 'system' | 'developer'; content: string | HubContentPart[]; name?: string }
  | { role: 'user'; content: string | HubContentPart[]; name?: string }
  | {
      role: 'assistant';
      content: string | HubContentPart[] | null;
      tool_calls?: HubToolCall[];
      /** Reasoning text some providers return (DeepSeek, Ollama "thinking"); optional everywhere. */
      reasoning_content?: string;
      name?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string | HubContentPart[]; name?: string };

export type HubTool = { type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean } };

export type HubToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type HubRequest = {
  model: string;
  messages: HubMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: HubTool[];
  tool_choice?: HubToolChoice;
  parallel_tool_calls?: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  seed?: number;
  n?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  response_format?: { type: 'text' | 'json_object' | 'json_schema'; json_schema?: { name: string; schema?: Record<string, unknown>; strict?: boolean } };
  user?: string;
  /** Fields the hub does not model are carried along for same-format providers and ignored by others. */
  [extra: string]: unknown;
};

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export type HubUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

export type HubResponse = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: HubToolCall[]; reasoning_content?: string };
    finish_reason: FinishReason | null;
  }[];
  usage?: HubUsage;
};

export type HubChunkToolCall = {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
};

export type HubChunk = {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: 'assistant'; content?: string | null; tool_calls?: HubChunkToolCall[]; reasoning_content?: string };
    finish_reason: FinishReason | null;
  }[];
  usage?: HubUsage | null;
};

/** An error to report in a client's own format (HTTP body or a mid-stream event). */
export type WireError = { status: number; code: string; type: string; message: string; action?: string; details?: unknown };

/** Writes a hub stream as a client's stream format. Each call returns the text to send (possibly ''). */
export interface StreamEncoder {
  /** Content type of the stream (text/event-stream, application/x-ndjson, application/json). */
  readonly contentType: string;
  chunk(c: HubChunk): string;
  /** The upstream stream ended normally. */
  end(): string;
  /** The upstream failed mid-stream: the format's own error event or line, ending the stream. */
  error(e: WireError): string;
}

/** Reads a provider's stream bytes (already UTF-8 decoded) as hub chunks. */
export interface StreamDecoder {
  push(text: string): HubChunk[];
  end(): HubChunk[];
}

export type ClientContext = {
  /** The model named by the URL (Gemini `/models/{model}:…`), if any. */
  pathModel?: string;
  /** Streaming asked for by the URL rather than the body (Gemini `:streamGenerateContent`). */
  pathStream?: boolean;
  /** Query parameters (Gemini `alt=sse`). */
  query?: URLSearchParams;
};

/** A client-facing wire format (a front door). */
export interface ClientFormat {
  readonly name: FormatName;
  /** Validates and converts the client's request body to the hub form; throws ApiError (400) on bad input. */
  toHub(body: unknown, ctx: ClientContext): HubRequest;
  /** A hub (non-stream) response as this format's response body. `model` is the model the client asked for. */
  fromHubResponse(res: HubResponse, ctx: ClientContext & { model: string }): unknown;
  /** A streaming encoder for one reply. */
  streamEncoder(ctx: ClientContext & { model: string }): StreamEncoder;
  /** This format's HTTP error body. */
  errorBody(e: WireError): unknown;
}

/** A provider-facing wire format. */
export interface ProviderFormat {
  readonly name: FormatName;
  /** The hub request as this format's request body (the model may also go in the URL: see the provider kind). */
  fromHubRequest(req: HubRequest): unknown;
  /** This format's non-stream response body as a hub response. */
  toHubResponse(body: unknown, model: string): HubResponse;
  /** A decoder for one streamed reply of this format. */
  streamDecoder(model: string): StreamDecoder;
  /** The message inside this format's error body, if any (for the attempt log). */
  errorMessage(body: unknown): string | undefined;
}

/** A hub stream folded into one response (tests, and non-stream clients of stream-only providers). */
export function foldChunks(chunks: HubChunk[], fallbackModel = ''): HubResponse {
  let content: string | null = null;
  let reasoning: string | undefined;
  const calls: HubToolCall[] = [];
  let finish: FinishReason | null = null;
  let usage: HubUsage | undefined;
  let id = '';
  let created = 0;
  let model = fallbackModel;
  for (const c of chunks) {
    id ||= c.id;
    created ||= c.created;
    model = c.model || model;
    if (c.usage) usage = c.usage;
    for (const ch of c.choices) {
      if (ch.index !== 0) continue;
      const d = ch.delta;
      if (typeof d.content === 'string') content = (content ?? '') + d.content;
      if (d.reasoning_content) reasoning = (reasoning ?? '') + d.reasoning_content;
      for (const tc of d.tool_calls ?? []) {
        const slot = (calls[tc.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (tc.id) slot.id = tc.id;
        if (tc.function?.name) slot.function.name += tc.function.name;
        if (tc.function?.arguments) slot.function.arguments += tc.function.arguments;
      }
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  const message: HubResponse['choices'][0]['message'] = { role: 'assistant', content };
  const toolCalls = calls.filter(Boolean);
  if (toolCalls.length) message.tool_calls = toolCalls;
  if (reasoning) message.reasoning_content = reasoning;
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
}

/** A hub response as the chunks a stream of it would carry (for stream clients of a non-stream reply, and tests). */
export function responseToChunks(res: HubResponse): HubChunk[] {
  const base = { id: res.id, object: 'chat.completion.chunk' as const, created: res.created, model: res.model };
  const choice = res.choices[0];
  const out: HubChunk[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  if (choice?.message.reasoning_content) {
    out.push({ ...base, choices: [{ index: 0, delta: { reasoning_content: choice.message.reasoning_content }, finish_reason: null }] });
  }
  if (choice?.message.content) {
    const text = typeof choice.message.content === 'string' ? choice.message.content : '';
    if (text) out.push({ ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
  }
  choice?.message.tool_calls?.forEach((tc, index) => {
    out.push({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.function.name, arguments: tc.function.arguments } }] }, finish_reason: null }],
    });
  });
  out.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice?.finish_reason ?? 'stop' }], ...(res.usage ? { usage: res.usage } : {}) });
  return out;
}

/** Text of a content value (string or parts), for formats without parts. */
export function contentText(content: string | HubContentPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** Splits a `data:` URL into its media type and base64 data; undefined for other URLs. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1]!, data: m[2]! } : undefined;
}

let counter = 0;
/** A short unique id with a prefix (msg_, call_, resp_, chatcmpl-...). */
export function newId(prefix: string): string {
  counter = (counter + 1) % 1e9;
  return `${prefix}${Date.now().toString(36)}${counter.toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/** Thrown by a StreamDecoder when the provider's stream carries its own error event or line. */
export class UpstreamStreamError extends Error {
  constructor(
    message: string,
    readonly code = 'upstream_error',
    readonly status = 502,
  ) {
    super(message);
    this.name = 'UpstreamStreamError';
  }
}
