// The built-in half of the provider/model quirks table (the matching and applying: quirks.ts). config.json's
// `quirks.entries` come before these. Each request field (rename, drop, fixed, drop_when_reasoning,
// reasoning_effort) is taken from the first matching entry that sets it, and the model's description (capabilities
// with context_length) from the first that states either: so the more specific globs come first, and an entry states
// an empty list or object where a broader entry after it must not lend it its own.
//
// Sources for the request rules (OpenAI's own API and Azure OpenAI):
// - max_tokens → max_completion_tokens: "Unsupported parameter: 'max_tokens' is not supported with this model. Use
//   'max_completion_tokens' instead." for o1, o3-mini, o4-mini, gpt-5, gpt-5.1 (e.g. teilomillet/gollm#33,
//   griptape-ai/ComfyUI-Griptape#312, fish2018/YPrompt#26, anomalyco/opencode#37964 on Azure).
// - temperature: "Only the default (1) value is supported" (griptape-ai/griptape#1915 for o4-mini; gpt-5 the same);
//   top_p, penalties, logprobs, top_logprobs: "Unsupported parameter" (lobehub/lobehub#7747; BerriAI/litellm's
//   o_series_transformation.py and gpt_5_transformation.py).
// - stop: refused by o3, o4-mini and the gpt-5 family (langgenius/dify#18971, crewAIInc/crewAI#2738,
//   huggingface/smolagents#1671 and its supports_stop_parameter); o3-mini takes it.
// - parallel_tool_calls: refused by o1, o3-mini, o3, o4-mini (langchain-ai/langchain#29416 and #29704,
//   evalstate/fast-agent#279, run-llama/llama_index#20865).
// - gpt-5.1 and later take temperature, top_p and logprobs only with reasoning_effort "none", their default (OpenAI's
//   GPT-5.1/5.2 guide, vercel/ai#10932, litellm's gpt_5_transformation.py); gpt-5-chat is a chat model that takes
//   temperature and no reasoning_effort (BerriAI/litellm#13781).
// - xAI: grok-4 refuses reasoning_effort; its reasoning models refuse presence_penalty, frequency_penalty and stop
//   (docs.x.ai, "Reasoning").
// - cache_control: OpenRouter reads Anthropic's cache_control on OpenAI-format content parts and passes it to the
//   providers that cache on request (openrouter.ai/docs, "Prompt Caching": "cache_control breakpoints"); Alibaba's
//   Model Studio (DashScope) reads it in its OpenAI-compatible Chat Completions for explicit caching ("Context cache",
//   "add "cache_control": {"type": "ephemeral"} to messages"). Other OpenAI-format providers get no markers (OpenAI's
//   own API refuses unknown keys in content parts).
// Capabilities and context lengths are each family's published figures (the vendors' model pages, ollama.com/library).
import type { ModelCapability, QuirkEntry } from '../../shared/config.ts';

/** OpenAI's own API and Azure OpenAI (classic resources, AI Services and AI Foundry endpoints). */
export const OPENAI_HOSTS = [
  'api.openai.com',
  '*.openai.azure.com',
  '*.cognitiveservices.azure.com',
  '*.services.ai.azure.com',
] as const;
const openaiHosts = `{${OPENAI_HOSTS.join(',')}}`;

const CHAT: ModelCapability[] = ['completion', 'tools'];
const VISION: ModelCapability[] = ['completion', 'tools', 'vision'];
const THINKING: ModelCapability[] = ['completion', 'tools', 'thinking'];
const VISION_THINKING: ModelCapability[] = ['completion', 'tools', 'vision', 'thinking'];

const NEW_MAX = { max_tokens: 'max_completion_tokens' };
const NO_SAMPLING = ['top_p', 'presence_penalty', 'frequency_penalty', 'logprobs', 'top_logprobs'];

/** An OpenAI reasoning model on OpenAI's own API: the newer max name, temperature 1 only, no sampling knobs. */
const openaiReasoning = (model: string, note: string, extraDrops: string[], effort: boolean): QuirkEntry => ({
  match: { host: openaiHosts, model },
  rename: NEW_MAX,
  fixed: { temperature: 1 },
  drop: [...NO_SAMPLING, ...extraDrops],
  reasoning_effort: effort,
  note,
});

/** A model family's capabilities and context length, on any provider. */
const family = (model: string, capabilities: ModelCapability[], context_length?: number): QuirkEntry => ({
  match: { model },
  capabilities,
  ...(context_length ? { context_length } : {}),
});

export const BUILTIN_QUIRKS: readonly QuirkEntry[] = [
  // OpenAI-format gateways that read Anthropic-style prompt-cache markers (every model: they pass them on, or ignore
  // them for a model that caches on its own).
  {
    match: { host: '{openrouter.ai,dashscope.aliyuncs.com,dashscope-*.aliyuncs.com}' },
    cache_control: true,
    note: 'takes cache_control on OpenAI-format content parts (prompt-cache breakpoints)',
  },
  // OpenAI's own API and Azure OpenAI: what a request may carry.
  {
    match: { host: openaiHosts, model: 'gpt-5-chat*' },
    rename: NEW_MAX,
    drop: [],
    fixed: {},
    drop_when_reasoning: [],
    reasoning_effort: false,
    note: 'GPT-5 Chat: a chat model (temperature allowed, no reasoning_effort)',
  },
  {
    match: { host: openaiHosts, model: 'gpt-5.[0-9]*' },
    rename: NEW_MAX,
    fixed: {},
    drop: ['presence_penalty', 'frequency_penalty', 'logit_bias', 'stop'],
    drop_when_reasoning: ['temperature', 'top_p', 'logprobs', 'top_logprobs'],
    reasoning_effort: true,
    note: 'GPT-5.1 and later: sampling fields only with reasoning_effort "none" (their default)',
  },
  openaiReasoning('gpt-5*', 'GPT-5 reasoning models', ['logit_bias', 'stop'], true),
  openaiReasoning(
    '{o1-mini,o1-preview}*',
    'o1-mini and o1-preview (no reasoning_effort)',
    ['parallel_tool_calls'],
    false,
  ),
  openaiReasoning('{o1,o3-mini}*', 'o1 and o3-mini', ['parallel_tool_calls'], true),
  openaiReasoning('{o3,o4}*', 'o3 and o4 reasoning models', ['parallel_tool_calls', 'stop'], true),
  {
    match: { host: openaiHosts, model: '{gpt-4,gpt-3.5,chatgpt}*' },
    reasoning_effort: false,
    note: 'GPT-4 and older chat models: no reasoning_effort',
  },
  // xAI's reasoning models.
  {
    match: { host: 'api.x.ai', model: '{grok-4,grok-3-mini}*' },
    drop: ['presence_penalty', 'frequency_penalty', 'stop'],
    note: 'xAI reasoning models: no penalties, no stop',
  },

  // What a model can do and how much it reads, by its name on any provider (first match wins, so specific first).
  family('text-embedding-*', ['embedding'], 8191),
  family('{*embed*,*bge-*,all-minilm*}', ['embedding']),
  { ...family('gpt-5-chat*', VISION, 128_000), reasoning_effort: false },
  { ...family('gpt-5*', VISION_THINKING, 400_000), reasoning_effort: true },
  { ...family('{o1-mini,o1-preview}*', ['completion', 'thinking'], 128_000), reasoning_effort: false },
  { ...family('o3-mini*', THINKING, 200_000), reasoning_effort: true },
  { ...family('{o1,o3,o4}*', VISION_THINKING, 200_000), reasoning_effort: true },
  { ...family('gpt-oss*', THINKING, 131_072), reasoning_effort: true },
  family('gpt-4.1*', VISION, 1_047_576),
  family('{gpt-4o,chatgpt-4o,gpt-4-turbo,gpt-4.5}*', VISION, 128_000),
  family('gpt-4*', CHAT, 8_192),
  family('gpt-3.5*', CHAT, 16_385),
  family('{*claude-3-7*,*claude-3.7*}', VISION_THINKING, 200_000),
  {
    ...family('{*claude-3-5*,*claude-3.5*,*claude-3-opus*,*claude-3-sonnet*,*claude-3-haiku*}', VISION, 200_000),
    reasoning_effort: false,
  },
  family('*claude*', VISION_THINKING, 200_000),
  { ...family('*gemini-{2.5,3}*', VISION_THINKING, 1_048_576), reasoning_effort: true },
  family('*gemini-1.5-pro*', VISION, 2_097_152),
  family('*gemini*', VISION, 1_048_576),
  family('gemma3n*', ['completion'], 32_768),
  family('gemma3*', ['completion', 'vision'], 131_072),
  family('gemma2*', ['completion'], 8_192),
  { ...family('{*deepseek-r1*,deepseek-reasoner*}', THINKING, 131_072), reasoning_effort: false },
  family('*deepseek-coder*', ['completion', 'insert'], 16_384),
  family('{deepseek-chat*,*deepseek-v3*}', CHAT, 131_072),
  family('qwq*', THINKING, 40_960),
  family('*qwen3-vl*', VISION_THINKING, 262_144),
  family('*qwen*vl*', ['completion', 'vision'], 128_000),
  family('*qwen3-coder*', CHAT, 262_144),
  family('*qwen3*', THINKING, 40_960),
  family('*qwen2.5-coder*', ['completion', 'tools', 'insert'], 32_768),
  family('*qwen*', CHAT, 32_768),
  family('{*llava*,*bakllava*}', ['completion', 'vision'], 4_096),
  family('*llama3.2-vision*', ['completion', 'vision'], 131_072),
  family('*llama4*', VISION, 10_485_760),
  family('{*llama3.[123]*,*llama-3.[123]*}', CHAT, 131_072),
  family('{*minicpm-v*,*moondream*,*granite3.2-vision*}', ['completion', 'vision']),
  family('{*pixtral*,*mistral-small3.[12]*,*mistral-medium*}', VISION, 131_072),
  family('*magistral*', THINKING),
  family('*codestral*', ['completion', 'tools', 'insert'], 32_768),
  family('*starcoder2*', ['completion', 'insert'], 16_384),
  family('{*mistral-large*,*mistral-nemo*}', CHAT, 131_072),
  { ...family('grok-3-mini*', THINKING, 131_072), reasoning_effort: true },
  { ...family('grok-4*', VISION_THINKING, 256_000), reasoning_effort: false },
  family('grok-*vision*', VISION),
  family('grok-{2,3}*', CHAT, 131_072),
];
