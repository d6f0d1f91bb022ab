// The OpenAI-compatible provider kind: URL layout and auth header (any service that speaks /v1/chat/completions).
export const openaiCompatible = {
  type: 'openai',
  chatPath: '/chat/completions',
  modelsPath: '/models',
  authHeaders(key: string): Record<string, string> {
    return key ? { authorization: `Bearer ${key}` } : {};
  },
} as const;
