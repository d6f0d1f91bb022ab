// Ollama's wire types: the subset of /api/chat and /api/generate that Switchboard reads and writes.

export type OllamaToolCall = {
  /** Newer Ollama versions may send one; read when present, never required. */
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> };
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

export type OllamaTool = {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
};

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
  /** Thinking on or off, or a level ("low", "medium", "high"). */
  think?: boolean | string;
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
