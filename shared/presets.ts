// Provider presets (issue 34): the services people add most, each with its base URL, type, where to get a key, the
// model names it usually serves (the routing rules offered when it is added) and a model to send a first request
// with. Local ones (Ollama, LM Studio, llama.cpp's server, vLLM) are looked for on their usual port when the gallery
// opens (GET /admin/v1/providers/detect). Shared by the UI (the gallery, the add form, Connect's routing checks) and
// the engine (detection), so both read one list.
import { z } from 'zod';
import type { ProviderType } from './config.ts';

export type ProviderPreset = {
  /** Also the provider's name when it is added (made unique if taken). */
  id: string;
  /** As the vendor writes it. */
  name: string;
  type: ProviderType;
  base_url: string;
  /** Where to make a key, and the environment variable it usually sits in; null for a local service (no key). */
  key: { url: string; env: string; placeholder: string } | null;
  /** The key goes in this header instead of the type's own (Azure OpenAI's `api-key`). */
  key_header?: string;
  /** Globs of the model names it serves: the routing rules offered when it is added. */
  models: string[];
  /** A model to send the first request with ("Send a test request"). */
  try_model: string;
  /** Served on this machine: probed on 127.0.0.1 at `port` (Ollama by /api/version, the others by /v1/models). */
  local?: { port: number; probe: 'ollama' | 'openai' };
  /** What to change in the base URL before it works (Azure's resource name), shown under the field. */
  base_url_hint?: string;
  /** The host of the vendor's own API: a provider at this host serves only `models` (Connect's wrong-vendor check). */
  vendor_host?: string;
};

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    type: 'openai',
    base_url: 'https://api.openai.com/v1',
    key: { url: 'https://platform.openai.com/api-keys', env: 'OPENAI_API_KEY', placeholder: 'sk-…' },
    models: ['gpt-*', 'o[0-9]*', 'chatgpt-*', 'codex-*'],
    try_model: 'gpt-4o-mini',
    vendor_host: 'api.openai.com',
  },
  {
    id: 'anthropic',
    name: 'Anthropic',
    type: 'anthropic',
    base_url: 'https://api.anthropic.com/v1',
    key: { url: 'https://console.anthropic.com/settings/keys', env: 'ANTHROPIC_API_KEY', placeholder: 'sk-ant-…' },
    models: ['claude-*'],
    try_model: 'claude-3-5-haiku-latest',
    vendor_host: 'api.anthropic.com',
  },
  {
    id: 'gemini',
    name: 'Google Gemini',
    type: 'gemini',
    base_url: 'https://generativelanguage.googleapis.com/v1beta',
    key: { url: 'https://aistudio.google.com/apikey', env: 'GEMINI_API_KEY', placeholder: 'AIza…' },
    models: ['gemini-*', 'gemma-*'],
    try_model: 'gemini-2.5-flash',
    vendor_host: 'generativelanguage.googleapis.com',
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    type: 'openai',
    base_url: 'https://openrouter.ai/api/v1',
    key: { url: 'https://openrouter.ai/settings/keys', env: 'OPENROUTER_API_KEY', placeholder: 'sk-or-…' },
    models: ['*/*'],
    try_model: 'openai/gpt-4o-mini',
  },
  {
    id: 'deepseek',
    name: 'DeepSeek',
    type: 'openai',
    base_url: 'https://api.deepseek.com/v1',
    key: { url: 'https://platform.deepseek.com/api_keys', env: 'DEEPSEEK_API_KEY', placeholder: 'sk-…' },
    models: ['deepseek-*'],
    try_model: 'deepseek-chat',
    vendor_host: 'api.deepseek.com',
  },
  {
    id: 'groq',
    name: 'Groq',
    type: 'openai',
    base_url: 'https://api.groq.com/openai/v1',
    key: { url: 'https://console.groq.com/keys', env: 'GROQ_API_KEY', placeholder: 'gsk_…' },
    models: ['llama-*', 'groq/*'],
    try_model: 'llama-3.1-8b-instant',
  },
  {
    id: 'mistral',
    name: 'Mistral',
    type: 'openai',
    base_url: 'https://api.mistral.ai/v1',
    key: { url: 'https://console.mistral.ai/api-keys', env: 'MISTRAL_API_KEY', placeholder: 'your Mistral key' },
    models: ['mistral-*', 'codestral-*', 'devstral-*', 'magistral-*', 'pixtral-*', 'ministral-*'],
    try_model: 'mistral-small-latest',
    vendor_host: 'api.mistral.ai',
  },
  {
    id: 'xai',
    name: 'xAI (Grok)',
    type: 'openai',
    base_url: 'https://api.x.ai/v1',
    key: { url: 'https://console.x.ai', env: 'XAI_API_KEY', placeholder: 'xai-…' },
    models: ['grok-*'],
    try_model: 'grok-3-mini',
    vendor_host: 'api.x.ai',
  },
  {
    id: 'together',
    name: 'Together AI',
    type: 'openai',
    base_url: 'https://api.together.xyz/v1',
    key: {
      url: 'https://api.together.ai/settings/api-keys',
      env: 'TOGETHER_API_KEY',
      placeholder: 'your Together key',
    },
    models: ['meta-llama/*', 'Qwen/*', 'deepseek-ai/*', 'mistralai/*'],
    try_model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
  },
  {
    id: 'azure-openai',
    name: 'Azure OpenAI',
    type: 'openai',
    base_url: 'https://YOUR-RESOURCE.openai.azure.com/openai/v1',
    key: {
      url: 'https://portal.azure.com/#view/Microsoft_Azure_ProjectOxford/CognitiveServicesHub/~/OpenAI',
      env: 'AZURE_OPENAI_API_KEY',
      placeholder: 'your resource key (Keys and Endpoint)',
    },
    key_header: 'api-key',
    models: ['gpt-*', 'o[0-9]*'],
    try_model: 'gpt-4o-mini',
    base_url_hint:
      'Replace YOUR-RESOURCE with your Azure OpenAI resource name; the model names are your deployments’ names.',
  },
  {
    id: 'ollama',
    name: 'Ollama',
    type: 'ollama',
    base_url: 'http://127.0.0.1:11434',
    key: null,
    models: [],
    try_model: 'llama3.2',
    local: { port: 11434, probe: 'ollama' },
  },
  {
    id: 'lmstudio',
    name: 'LM Studio',
    type: 'openai',
    base_url: 'http://127.0.0.1:1234/v1',
    key: null,
    models: [],
    try_model: 'qwen2.5-7b-instruct',
    local: { port: 1234, probe: 'openai' },
  },
  {
    id: 'llamacpp',
    name: 'llama.cpp server',
    type: 'openai',
    base_url: 'http://127.0.0.1:8080/v1',
    key: null,
    models: [],
    try_model: 'default',
    local: { port: 8080, probe: 'openai' },
  },
  {
    id: 'vllm',
    name: 'vLLM',
    type: 'openai',
    base_url: 'http://127.0.0.1:8000/v1',
    key: null,
    models: [],
    try_model: 'Qwen/Qwen2.5-7B-Instruct',
    local: { port: 8000, probe: 'openai' },
  },
];

export const presetById = (id: string): ProviderPreset | undefined => PROVIDER_PRESETS.find((p) => p.id === id);

/** The vendor whose own API a base URL is (OpenAI's, Anthropic's…), or undefined for an aggregator, a proxy or local. */
export function vendorPresetOf(baseUrl: string): ProviderPreset | undefined {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return PROVIDER_PRESETS.find((p) => p.vendor_host === host);
}

/** A local service found running (GET /admin/v1/providers/detect). */
export const DetectedServiceSchema = z.strictObject({
  preset: z.string(),
  /** Where it answered: the base URL to add it with. */
  base_url: z.string(),
  /** What answered, in words: "Ollama 0.9.1", "an OpenAI-compatible server". */
  label: z.string(),
  /** The models it lists (at most 50). */
  models: z.array(z.string()),
  /**
   * Already a provider of this config (by its address): its name. Switchboard never takes a local service's port; it
   * adds the service as a provider at the port it is on.
   */
  provider: z.string().nullable(),
});
export type DetectedService = z.infer<typeof DetectedServiceSchema>;

/** GET /admin/v1/providers/detect */
export const DetectResultSchema = z.strictObject({
  data: z.array(DetectedServiceSchema),
  /** Where it looked: "127.0.0.1:11434 (Ollama)", … (what was not found is not in `data`). */
  looked: z.array(z.string()),
});
export type DetectResult = z.infer<typeof DetectResultSchema>;

/**
 * The routing rules a detected local service's models make: each model's own name, and the bare name of a ":latest"
 * tag (Ollama answers "llama3.2" for "llama3.2:latest"); at most 12.
 */
export function localModelRules(models: string[]): string[] {
  const out: string[] = [];
  for (const m of models) {
    for (const name of m.endsWith(':latest') ? [m.slice(0, -':latest'.length), m] : [m])
      if (!out.includes(name)) out.push(name);
  }
  return out.slice(0, 12);
}
