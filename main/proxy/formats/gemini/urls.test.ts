// Gemini model URLs: the paths below a base_url and the model ids.
import { describe, expect, it } from 'vitest';
import { geminiModelId, geminiModelPath } from './urls.ts';

describe('Gemini model URLs', () => {
  it("builds each method's path below base_url, stripping a models/ prefix and escaping the id", () => {
    expect(geminiModelPath('gemini-2.5-flash', 'generateContent')).toBe('/models/gemini-2.5-flash:generateContent');
    expect(geminiModelPath('models/gemini-2.5-flash', 'streamGenerateContent', true)).toBe(
      '/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(geminiModelPath('models/text-embedding-004', 'batchEmbedContents')).toBe(
      '/models/text-embedding-004:batchEmbedContents',
    );
    expect(geminiModelPath('tuned/a b', 'countTokens')).toBe('/models/tuned%2Fa%20b:countTokens');
    expect(geminiModelId('models/x')).toBe('x');
    expect(geminiModelId('x')).toBe('x');
  });

  it('builds the provider path below base_url', () => {
    expect(geminiModelPath('gemini-2.5-flash', 'generateContent')).toBe('/models/gemini-2.5-flash:generateContent');
    expect(geminiModelPath('models/gemini-2.5-flash', 'streamGenerateContent', true)).toBe(
      '/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });
});
