// The hub form every wire format converts to and from: OpenAI chat completions (request, response, stream chunk),
// and the two faces a format module shows: ClientFormat (its front door) and ProviderFormat (talking to a provider
// of that kind). When a client's format equals its provider's, bytes pass through untranslated.
//
// One naming scheme in every format, by direction: `…ToHub` reads the format's wire form into the hub's,
// `…FromHub` writes the hub's as the format's (requestToHub, responseFromHub, requestFromHub, responseToHub,
// finishToHub, finishFromHub, usage, tool arguments…).
import type { WireError } from '../../../errors.ts';

export type { WireError } from '../../../errors.ts';

export type FormatName = 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'responses';

export type HubContentPart =
  | {
      type: 'text';
      text: string;
      /** A prompt-cache marker (Anthropic's cache_control) the provider may read: hub/cache-control.ts. */
      cache_control?: Record<string, unknown>;
    }
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

export type HubTool = {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
};

export type HubToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type HubResponseFormat = {
  type: 'text' | 'json_object' | 'json_schema';
  json_schema?: { name: string; schema?: Record<string, unknown>; strict?: boolean };
};

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
  /** Not OpenAI's: carried between the formats that have it (Anthropic, Gemini, Ollama), never sent to OpenAI. */
  top_k?: number;
  /** OpenAI's reasoning effort; Anthropic's thinking budget and Gemini's thinkingBudget map to and from it. */
  reasoning_effort?: ReasoningEffort;
  /**
   * The thinking budget in tokens when the client gave one (Anthropic `thinking.budget_tokens`, Gemini
   * `thinkingConfig.thinkingBudget`), so a provider that takes a budget gets the client's own. Not OpenAI's: never
   * sent to an OpenAI-format provider (it gets `reasoning_effort`).
   */
  reasoning_budget?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  seed?: number;
  n?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  response_format?: HubResponseFormat;
  user?: string;
  /** Fields the hub does not model are carried along for same-format providers and ignored by others. */
  [extra: string]: unknown;
};

/** How hard a reasoning model thinks: OpenAI's levels ('none' turns thinking off where a model allows it). */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * Token counts as OpenAI reports them: prompt_tokens includes cached tokens (read from and written to the cache),
 * completion_tokens includes reasoning tokens. The details are present when the provider reported them.
 */
export type HubUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: {
    cached_tokens?: number;
    cache_write_tokens?: number;
    /**
     * Within cache_write_tokens, the writes kept 5 minutes and 1 hour, when the provider says (Anthropic's
     * cache_creation.ephemeral_5m_input_tokens / ephemeral_1h_input_tokens): priced apart (main/usage/prices.ts).
     */
    cache_write_5m_tokens?: number;
    cache_write_1h_tokens?: number;
  };
  completion_tokens_details?: { reasoning_tokens?: number };
};

export type HubAssistantMessage = {
  role: 'assistant';
  content: string | null;
  tool_calls?: HubToolCall[];
  reasoning_content?: string;
};

export type HubResponse = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: HubAssistantMessage; finish_reason: FinishReason | null }[];
  usage?: HubUsage;
};

export type HubChunkToolCall = {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
};

export type HubDelta = {
  role?: 'assistant';
  content?: string | null;
  tool_calls?: HubChunkToolCall[];
  reasoning_content?: string;
};

export type HubChunk = {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: HubDelta; finish_reason: FinishReason | null }[];
  usage?: HubUsage | null;
};

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

/**
 * Reads a provider's stream bytes (already UTF-8 decoded) as hub chunks. A failure the stream reports (or a stream
 * that is cut or unreadable) is thrown as UpstreamStreamError; chunks decoded before it are never lost: push()
 * returns them and throws at the next call, and end() attaches them to the error it throws (`error.chunks`).
 */
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
  /**
   * Filled by a front door's requestToHub, read by its reply side: the client's tools that the hub carries as plain
   * functions under another shape, by hub function name, with the kind and name the client declared (the Responses
   * door: a "custom" or "local_shell" tool, a function inside a namespace), so each call goes back as what the
   * client declared. Absent when every tool is a plain function.
   */
  clientTools?: Record<string, { kind: string; name: string; namespace?: string }>;
  /**
   * Filled by a front door's requestToHub: the client's fields that have no hub form and are left out, each
   * "field: why". Reported with the provider side's own drops (the x-switchboard-dropped header and the request
   * log) when the request is translated; a request that passes through untranslated keeps them all.
   */
  dropped?: string[];
};

/**
 * What a reply is written with: the client's context, the model the client asked for, and (from a front door) the
 * client's request in the hub's form, for replies that depend on it (Anthropic's message_start estimates its input
 * tokens from it).
 */
export type ReplyContext = ClientContext & { model: string; request?: HubRequest };

/** A client-facing wire format (a front door). */
export interface ClientFormat {
  readonly name: FormatName;
  /** Validates the client's request body and converts it to the hub form; throws ApiError (400) on bad input. */
  requestToHub(body: unknown, ctx: ClientContext): HubRequest;
  /** A hub (non-stream) response as this format's response body. */
  responseFromHub(res: HubResponse, ctx: ReplyContext): unknown;
  /** A streaming encoder for one reply. */
  streamEncoder(ctx: ReplyContext): StreamEncoder;
  /** This format's HTTP error body. */
  errorBody(e: WireError): unknown;
}

/** A provider-facing wire format. */
export interface ProviderFormat {
  readonly name: FormatName;
  /** The hub request as this format's request body (the model may also go in the URL: see the provider kind). */
  requestFromHub(req: HubRequest): unknown;
  /** This format's non-stream response body as a hub response; throws (UpstreamStreamError or ApiError) for an error body. */
  responseToHub(body: unknown, model: string): HubResponse;
  /** A decoder for one streamed reply of this format. */
  streamDecoder(model: string): StreamDecoder;
  /** The message inside this format's error body, if any (for the attempt log and the client's error). */
  errorMessage(body: unknown): string | undefined;
}

/** Thrown by a StreamDecoder (or responseToHub) when the provider's reply carries its own error, or is cut. */
export class UpstreamStreamError extends Error {
  /** Chunks decoded before the failure that could not be handed over (see StreamDecoder). */
  chunks: HubChunk[] = [];

  constructor(
    message: string,
    readonly code = 'upstream_error',
    readonly status = 502,
  ) {
    super(message);
    this.name = 'UpstreamStreamError';
  }
}
