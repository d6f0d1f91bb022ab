// countTokens (an estimate answered locally) and the model list.
import { describe, expect, it } from 'vitest';
import { badRequest } from '../fixtures.test-helper.ts';
import { countTokens, geminiModelList } from './extras.ts';

describe('countTokens and the model list', () => {
  it('estimates a quarter of the characters plus 258 per media part, in either casing', () => {
    expect(countTokens({ contents: [{ parts: [{ text: 'abcdefgh' }, { text: 'ij' }] }] })).toEqual({ totalTokens: 3 });
    expect(
      countTokens({
        contents: [{ parts: [{ text: 'abcd' }, { inline_data: { mime_type: 'image/png', data: 'x' } }] }],
      }),
    ).toEqual({ totalTokens: 259 });
    const request = {
      contents: [{ parts: [{ text: 'abcd' }] }],
      systemInstruction: { parts: [{ text: 'efgh' }] },
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
    };
    expect(countTokens({ generateContentRequest: { model: 'models/x', ...request } })).toEqual({
      totalTokens: Math.ceil((8 + JSON.stringify([{ name: 'f' }]).length) / 4),
    });
    badRequest(() => countTokens('x'), 'countTokens body');
  });

  it('lists models as GET /v1beta/models does', () => {
    expect(geminiModelList(['gemini-2.5-flash', 'models/gpt-4o'])).toEqual({
      models: [
        {
          name: 'models/gemini-2.5-flash',
          version: '001',
          displayName: 'gemini-2.5-flash',
          inputTokenLimit: 1048576,
          outputTokenLimit: 65536,
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
        expect.objectContaining({ name: 'models/gpt-4o', displayName: 'gpt-4o' }),
      ],
    });
  });
});
