import { describe, expect, it } from 'vitest';
import { inferProviderType, providerKind } from './index.ts';

describe('provider kinds', () => {
  it('infers the type from the base_url when config.json names none', () => {
    expect(inferProviderType('https://api.openai.com/v1')).toBe('openai');
    expect(inferProviderType('https://api.anthropic.com/v1')).toBe('anthropic');
    expect(inferProviderType('https://generativelanguage.googleapis.com/v1beta')).toBe('gemini');
    expect(inferProviderType('https://generativelanguage.googleapis.com/v1beta/openai/')).toBe('openai');
    expect(inferProviderType('http://127.0.0.1:11434')).toBe('ollama');
    expect(inferProviderType('http://127.0.0.1:11434/v1')).toBe('openai');
    expect(inferProviderType('https://openrouter.ai/api/v1')).toBe('openai');
  });

  it('lets an explicit type win', () => {
    expect(providerKind({ type: 'anthropic', base_url: 'http://127.0.0.1:9000/v1' }).format).toBe('anthropic');
  });

  it("builds each kind's chat path and auth headers", () => {
    expect(
      providerKind({ base_url: 'https://generativelanguage.googleapis.com/v1beta' }).chatPath('gemini-2.0-flash', true),
    ).toBe('/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    expect(providerKind({ base_url: 'https://api.anthropic.com/v1' }).authHeaders('k')).toEqual({
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
    });
    expect(providerKind({ base_url: 'http://127.0.0.1:11434' }).chatPath('llama3', false)).toBe('/api/chat');
  });

  it("reads each kind's model list", () => {
    expect(
      providerKind({ base_url: 'https://generativelanguage.googleapis.com/v1beta' }).parseModels({
        models: [{ name: 'models/gemini-pro' }],
      }),
    ).toEqual(['gemini-pro']);
    expect(
      providerKind({ base_url: 'http://127.0.0.1:11434' }).parseModels({ models: [{ name: 'llama3:8b' }] }),
    ).toEqual(['llama3:8b']);
  });
});
