// The usage mapper, both ways, for each kind of counter layout the formats have.
import { describe, expect, it } from 'vitest';
import { OPENAI_USAGE, UsageMap } from './usage.ts';

const ANTHROPIC_LIKE = new UsageMap({
  prompt: 'input_tokens',
  completion: 'output_tokens',
  cacheRead: 'cache_read_input_tokens',
  cacheWrite: 'cache_creation_input_tokens',
  promptExcludesCache: true,
});
const GEMINI_LIKE = new UsageMap({
  prompt: 'promptTokenCount',
  completion: 'candidatesTokenCount',
  total: 'totalTokenCount',
  cacheRead: 'cachedContentTokenCount',
  reasoning: 'thoughtsTokenCount',
  completionExcludesReasoning: true,
});

describe('usage mapper', () => {
  it('counts cached tokens into the prompt where the wire leaves them out, and back', () => {
    const wire = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 };
    const hub = ANTHROPIC_LIKE.toHub(wire)!;
    expect(hub).toEqual({
      prompt_tokens: 130,
      completion_tokens: 5,
      total_tokens: 135,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
    });
    expect(ANTHROPIC_LIKE.fromHub(hub)).toEqual(wire);
  });

  it('counts reasoning tokens into the completion where the wire leaves them out, and back', () => {
    const wire = {
      promptTokenCount: 8,
      candidatesTokenCount: 4,
      thoughtsTokenCount: 6,
      totalTokenCount: 18,
      cachedContentTokenCount: 2,
    };
    const hub = GEMINI_LIKE.toHub(wire)!;
    expect(hub).toEqual({
      prompt_tokens: 8,
      completion_tokens: 10,
      total_tokens: 18,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 6 },
    });
    expect(GEMINI_LIKE.fromHub(hub)).toEqual(wire);
  });

  it('carries the details across formats: Anthropic cache reads arrive as OpenAI cached_tokens and Gemini cachedContentTokenCount', () => {
    const hub = ANTHROPIC_LIKE.toHub({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 9 })!;
    expect(OPENAI_USAGE.fromHub(hub)).toEqual({
      prompt_tokens: 10,
      completion_tokens: 2,
      total_tokens: 12,
      prompt_tokens_details: { cached_tokens: 9 },
    });
    expect(GEMINI_LIKE.fromHub(hub)).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 2,
      totalTokenCount: 12,
      cachedContentTokenCount: 9,
    });
  });

  it('has no usage without a count, sums a missing total, and writes zero details where the format wants them', () => {
    expect(ANTHROPIC_LIKE.toHub({})).toBeUndefined();
    expect(ANTHROPIC_LIKE.toHub('x')).toBeUndefined();
    expect(ANTHROPIC_LIKE.toHub({ output_tokens: 3 })).toEqual({
      prompt_tokens: 0,
      completion_tokens: 3,
      total_tokens: 3,
    });
    const responses = new UsageMap({
      prompt: 'input_tokens',
      completion: 'output_tokens',
      total: 'total_tokens',
      cacheRead: 'input_tokens_details.cached_tokens',
      reasoning: 'output_tokens_details.reasoning_tokens',
      writeZeroDetails: true,
    });
    expect(responses.fromHub({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })).toEqual({
      input_tokens: 1,
      output_tokens: 2,
      total_tokens: 3,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
  });
});
