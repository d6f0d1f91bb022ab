// count_tokens and the models list.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../errors.ts';
import { sdkAnswering } from './fixtures.test-helper.ts';
import { anthropicModelList, countTokens } from './index.ts';

describe('count_tokens and the models list', () => {
  it('estimates input tokens as characters / 4 rounded up, plus 1,600 per image', () => {
    const body = {
      model: 'm',
      system: 'abcd',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'abcdefgh' },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
      ],
      tools: [{ name: 'f', description: 'd', input_schema: {} }],
    };
    // 4 (system) + 8 (text) + 1 + 2 (tool_use name and "{}") + 1 + 1 + 2 (tool name, description, "{}") = 19 → 5
    expect(countTokens(body)).toEqual({ input_tokens: 5 + 1600 });
    expect(() => countTokens({ model: 'm' })).toThrow(ApiError);
  });

  it("builds GET /v1/models in Anthropic's shape", () => {
    expect(anthropicModelList(['claude-a', 'claude-b'])).toEqual({
      data: [
        { type: 'model', id: 'claude-a', display_name: 'claude-a', created_at: '1970-01-01T00:00:00Z' },
        { type: 'model', id: 'claude-b', display_name: 'claude-b', created_at: '1970-01-01T00:00:00Z' },
      ],
      has_more: false,
      first_id: 'claude-a',
      last_id: 'claude-b',
    });
    expect(anthropicModelList([])).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it("is read by the official SDK's models.list()", async () => {
    const client = sdkAnswering(JSON.stringify(anthropicModelList(['claude-a'])), 'application/json');
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['claude-a']);
  });
});
