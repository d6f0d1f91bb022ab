// Anthropic Messages wire types: the subset Switchboard writes (requests to providers, replies to clients).

export type AnthropicTextBlock = { type: 'text'; text: string };
/** A thinking block Switchboard writes for a translated provider's reasoning (its signature is Switchboard's own). */
export type AnthropicThinkingBlock = { type: 'thinking'; thinking: string; signature: string };
export type AnthropicImageBlock = {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
};
type AnthropicToolUseBlock = { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  is_error?: boolean;
};
export type AnthropicContentBlock =
  AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;
export type AnthropicMessageParam = { role: 'user' | 'assistant'; content: string | AnthropicContentBlock[] };
export type AnthropicTool = { name: string; description?: string; input_schema: Record<string, unknown> };
export type AnthropicThinking =
  { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' } | { type: 'disabled' };
/** Anthropic's effort levels (output_config.effort). */
export type AnthropicEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export type AnthropicToolChoice = {
  type: 'auto' | 'any' | 'none' | 'tool';
  name?: string;
  disable_parallel_tool_use?: boolean;
};

export type AnthropicRequest = {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string | AnthropicTextBlock[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id: string };
  thinking?: AnthropicThinking;
  output_config?: { effort: AnthropicEffort };
};

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

/**
 * Anthropic's counts: input_tokens leaves out the prompt tokens read from or written to the cache; output_tokens
 * includes the thinking tokens (output_tokens_details.thinking_tokens).
 */
export type AnthropicUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  output_tokens_details?: { thinking_tokens: number };
};

export type AnthropicResponse = {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: (AnthropicThinkingBlock | AnthropicTextBlock | AnthropicToolUseBlock)[];
  stop_reason: AnthropicStopReason;
  stop_sequence: null;
  usage: AnthropicUsage;
};

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';
