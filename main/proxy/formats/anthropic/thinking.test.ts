// Provider side: the hub's reasoning settings as Anthropic's thinking, and what gives way to it.
import { describe, expect, it } from 'vitest';
import type { HubRequest } from '../hub/index.ts';
import { anthropicFormat } from './index.ts';
import { takesAdaptiveThinking } from './thinking.ts';
import type { AnthropicRequest } from './types.ts';

const body = (fields: Partial<HubRequest>, model = 'claude-sonnet-4-5'): AnthropicRequest =>
  anthropicFormat.requestFromHub({ model, messages: [{ role: 'user', content: 'Hi' }], ...fields }) as AnthropicRequest;
const thinkingOf = (fields: Partial<HubRequest>, model?: string) => {
  const b = body(fields, model);
  return { thinking: b.thinking, max_tokens: b.max_tokens, output_config: b.output_config };
};
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

describe('provider side: reasoning → thinking (budget models)', () => {
  it.each([
    // Without max tokens in the hub request, max_tokens is the budget plus 4,096 for the answer.
    [{ reasoning_effort: 'low' }, { type: 'enabled', budget_tokens: 2048 }, 2048 + 4096],
    [{ reasoning_effort: 'medium' }, { type: 'enabled', budget_tokens: 8192 }, 8192 + 4096],
    [{ reasoning_effort: 'high' }, { type: 'enabled', budget_tokens: 24576 }, 24576 + 4096],
    [{ reasoning_effort: 'minimal' }, { type: 'enabled', budget_tokens: 1024 }, 1024 + 4096],
    // The client's own budget wins over the effort's; a budget under Anthropic's minimum goes up to 1,024.
    [{ reasoning_effort: 'high', reasoning_budget: 3000 }, { type: 'enabled', budget_tokens: 3000 }, 3000 + 4096],
    [{ reasoning_budget: 500 }, { type: 'enabled', budget_tokens: 1024 }, 1024 + 4096],
    // With max tokens, the budget stays below them.
    [{ reasoning_effort: 'high', max_tokens: 10000 }, { type: 'enabled', budget_tokens: 9999 }, 10000],
    [{ reasoning_effort: 'low', max_completion_tokens: 30000 }, { type: 'enabled', budget_tokens: 2048 }, 30000],
    // Too few max tokens to think at all: thinking stays off rather than overrun the client's limit.
    [{ reasoning_effort: 'high', max_tokens: 1000 }, undefined, 1000],
    [{ reasoning_effort: 'none' }, { type: 'disabled' }, 4096],
    [{ reasoning_budget: 0 }, { type: 'disabled' }, 4096],
    [{}, undefined, 4096],
  ])('writes %j as thinking %j, max_tokens %i', (fields, thinking, maxTokens) => {
    const out = thinkingOf(fields as Partial<HubRequest>);
    expect(out).toEqual({ thinking, max_tokens: maxTokens, output_config: undefined });
  });
});

describe('provider side: reasoning → adaptive thinking (Claude 4.6 and later)', () => {
  it.each([
    ['claude-opus-4-6', true],
    ['claude-sonnet-4-6-20260101', true],
    ['claude-opus-4-8', true],
    ['claude-sonnet-5', true],
    ['anthropic/claude-fable-5-1', true],
    ['us.anthropic.claude-opus-4-7-v1:0', true],
    ['claude-sonnet-4-5', false],
    ['claude-haiku-4-5-20251001', false],
    ['claude-sonnet-4-20250514', false],
    ['claude-3-7-sonnet-20250219', false],
    ['deepseek-chat', false],
  ])('%s takes adaptive thinking: %s', (model, adaptive) => {
    expect(takesAdaptiveThinking(model)).toBe(adaptive);
  });

  it.each([
    [{ reasoning_effort: 'high' }, 'high'],
    [{ reasoning_effort: 'minimal' }, 'low'],
    [{ reasoning_budget: 5000 }, 'medium'],
  ])('writes %j as adaptive thinking with effort %s, max_tokens untouched', (fields, effort) => {
    expect(thinkingOf(fields as Partial<HubRequest>, 'claude-opus-4-7')).toEqual({
      thinking: { type: 'adaptive' },
      max_tokens: 4096,
      output_config: { effort },
    });
  });

  it("writes 'none' as thinking disabled", () => {
    expect(thinkingOf({ reasoning_effort: 'none' }, 'claude-opus-4-7').thinking).toEqual({ type: 'disabled' });
  });
});

describe('provider side: what gives way to thinking', () => {
  it('drops top_k, a temperature other than 1 and a top_p under 0.95 (Anthropic refuses them with thinking)', () => {
    const out = body({ reasoning_effort: 'low', temperature: 0.7, top_p: 0.9, top_k: 40 });
    expect([out.temperature, out.top_p, out.top_k, out.thinking?.type]).toEqual([
      undefined,
      undefined,
      undefined,
      'enabled',
    ]);
  });

  it('keeps temperature 1 and a top_p of 0.95 or more (then top_p goes, as always beside a temperature)', () => {
    expect(body({ reasoning_effort: 'low', temperature: 1 })).toMatchObject({ temperature: 1 });
    expect(body({ reasoning_effort: 'low', top_p: 0.97 })).toMatchObject({ top_p: 0.97 });
    expect(body({ reasoning_effort: 'low', temperature: 0.2, top_p: 0.97 })).toMatchObject({ top_p: 0.97 });
  });

  it('keeps the sampling fields when thinking is off', () => {
    expect(body({ reasoning_effort: 'none', temperature: 0.7, top_k: 40 })).toMatchObject({
      temperature: 0.7,
      top_k: 40,
    });
  });

  it.each([
    ['required', { type: 'any' }],
    [
      { type: 'function', function: { name: 'get_weather' } },
      { type: 'tool', name: 'get_weather' },
    ],
  ] as const)('leaves thinking off when the client forces a tool (%j): the forced tool wins', (choice, wire) => {
    const out = body({ reasoning_effort: 'high', tools: [weather], tool_choice: choice, temperature: 0.5 });
    expect([out.thinking, out.tool_choice, out.temperature]).toEqual([undefined, wire, 0.5]);
  });

  it('thinks with tools the model may choose from (tool_choice auto)', () => {
    const out = body({ reasoning_effort: 'low', tools: [weather], tool_choice: 'auto' });
    expect(out.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('leaves thinking off beside structured output (its answer tool is forced)', () => {
    const out = body({ reasoning_effort: 'high', response_format: { type: 'json_object' } });
    expect(out.thinking).toBeUndefined();
    expect(out.tool_choice).toEqual({ type: 'tool', name: 'switchboard_json_answer' });
  });
});
