// The config.json written on first run: provider templates, disabled until they have a key or an address.
import type { ConfigInput } from '../../shared/config.ts';

export function defaultConfig(): ConfigInput {
  return {
    listen_port: 11434,
    log_requests: true,
    start_on_login: false,
    providers: [
      { name: 'openai', type: 'openai', base_url: 'https://api.openai.com/v1', api_key: '', enabled: false },
      { name: 'anthropic', type: 'anthropic', base_url: 'https://api.anthropic.com/v1', api_key: '', enabled: false },
      { name: 'openrouter', type: 'openai', base_url: 'https://openrouter.ai/api/v1', api_key: '', enabled: false },
      // A local inference service: Ollama moved off 11434 (OLLAMA_HOST=127.0.0.1:11435). For llama.cpp, LM Studio
      // or vLLM, use type "openai" and their /v1 address.
      { name: 'local', type: 'ollama', base_url: 'http://127.0.0.1:11435', api_key: '', enabled: false },
    ],
    routing: {
      default_provider: 'openai',
      rules: [
        { pattern: 'gpt-*', provider: 'openai' },
        { pattern: 'o[0-9]*', provider: 'openai' },
        { pattern: 'claude-*', provider: 'anthropic' },
        { pattern: '*/*', provider: 'openrouter' },
      ],
    },
    app_rules: [],
  };
}

/** Environment variables that usually hold a provider's key, by template name. */
export const KEY_ENV_VARS: Record<string, string[]> = {
  openai: ['OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY'],
};

/** Keys found in the environment: offered in the log, never copied into config.json. */
export function keysOfferedByEnv(env: NodeJS.ProcessEnv): { provider: string; variable: string }[] {
  const found: { provider: string; variable: string }[] = [];
  for (const [provider, vars] of Object.entries(KEY_ENV_VARS)) {
    const variable = vars.find((v) => (env[v] ?? '').trim() !== '');
    if (variable) found.push({ provider, variable });
  }
  return found;
}
