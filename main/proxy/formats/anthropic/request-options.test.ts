// Client side: the request fields beyond messages and tools (thinking, output_config, output_format), the fields
// refused because only Anthropic's servers can act on them, and the fields dropped with a reason.
import { describe, expect, it } from 'vitest';
import { badRequest } from '../fixtures.test-helper.ts';
import type { HubRequest } from '../hub/index.ts';
import { anthropicFormat } from './index.ts';
import { DROPPED_FIELDS } from './request-options.ts';

const request = (fields: object): HubRequest =>
  anthropicFormat.requestToHub(
    { model: 'm', max_tokens: 4096, messages: [{ role: 'user', content: 'Hi' }], ...fields },
    {},
  );
const reasoning = (fields: object) => {
  const hub = request(fields);
  return { effort: hub.reasoning_effort, budget: hub.reasoning_budget };
};

describe('client side: thinking and effort → hub reasoning', () => {
  it.each([
    [{ thinking: { type: 'enabled', budget_tokens: 1024 } }, { effort: 'minimal', budget: 1024 }],
    [{ thinking: { type: 'enabled', budget_tokens: 2048 } }, { effort: 'low', budget: 2048 }],
    [{ thinking: { type: 'enabled', budget_tokens: 5000 } }, { effort: 'medium', budget: 5000 }],
    [{ thinking: { type: 'enabled', budget_tokens: 31999 } }, { effort: 'high', budget: 31999 }],
    [{ thinking: { type: 'enabled', budget_tokens: 31999, display: 'omitted' } }, { effort: 'high', budget: 31999 }],
    [
      { thinking: { type: 'enabled', budget_tokens: 2048 }, output_config: { effort: 'high' } },
      { effort: 'high', budget: 2048 },
    ],
    [{ thinking: { type: 'disabled' } }, { effort: 'none', budget: undefined }],
    [
      { thinking: { type: 'disabled' }, output_config: { effort: 'high' } },
      { effort: 'none', budget: undefined },
    ],
    [{ thinking: { type: 'adaptive' } }, { effort: 'medium', budget: undefined }],
    // Claude Code 2.1.252 sends budget_tokens 0 with adaptive (routatic/proxy#171): the budget is not adaptive's.
    [{ thinking: { type: 'adaptive', budget_tokens: 0 } }, { effort: 'medium', budget: undefined }],
    [
      { thinking: { type: 'adaptive' }, output_config: { effort: 'low' } },
      { effort: 'low', budget: undefined },
    ],
    [
      { thinking: { type: 'adaptive' }, output_config: { effort: 'xhigh' } },
      { effort: 'high', budget: undefined },
    ],
    [{ thinking: { type: 'between_tools' } }, { effort: 'medium', budget: undefined }],
    [{ output_config: { effort: 'max' } }, { effort: 'high', budget: undefined }],
    [{ output_config: { effort: 'medium' } }, { effort: 'medium', budget: undefined }],
    [{}, { effort: undefined, budget: undefined }],
  ])('reads %j as %j', (fields, expected) => {
    expect(reasoning(fields)).toEqual(expected);
  });

  it.each([
    [{ thinking: 'on' }, '"thinking" must be an object'],
    [{ thinking: { type: 'enabled' } }, '"thinking.budget_tokens" must be a whole number'],
    [{ thinking: { type: 'enabled', budget_tokens: 0 } }, '"thinking.budget_tokens" must be a whole number'],
    [{ thinking: { type: 'enabled', budget_tokens: 10.5 } }, '"thinking.budget_tokens" must be a whole number'],
    [{ thinking: { type: 'sometimes' } }, '"thinking.type" must be'],
    [{ output_config: 'high' }, '"output_config" must be an object'],
    [{ output_config: { effort: 'extreme' } }, '"output_config.effort" must be'],
    [{ output_config: { format: { type: 'json_object' } } }, '"output_config.format" must be'],
    [{ output_format: { type: 'json_schema' } }, '"output_format" must be'],
  ])('refuses %j with a 400 naming the field', (fields, message) => {
    badRequest(() => request(fields), message);
  });
});

describe('client side: structured output → response_format', () => {
  const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };

  it('reads output_config.format (as Claude Code sends it for session titles) as a json_schema response_format', () => {
    expect(request({ output_config: { effort: 'high', format: { type: 'json_schema', schema } } })).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema } },
      reasoning_effort: 'high',
    });
  });

  it('reads the older output_format the same way; output_config.format wins when both are sent', () => {
    expect(request({ output_format: { type: 'json_schema', schema } }).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema },
    });
    const other = { type: 'object', properties: {} };
    const both = request({
      output_config: { format: { type: 'json_schema', schema } },
      output_format: { type: 'json_schema', schema: other },
    });
    expect(both.response_format?.json_schema?.schema).toEqual(schema);
  });
});

describe('client side: fields only Anthropic can act on', () => {
  it.each([
    ['inference_geo', 'eu'],
    ['mcp_servers', [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'ex' }]],
    ['thread', { type: 'continue', previous_message_id: 'msg_1' }],
    ['compaction', { type: 'compact_20260112' }],
  ])('refuses %s with a 400 naming it', (field, value) => {
    const e = badRequest(() => request({ [field]: value }), `"${field}"`);
    expect(e.action).toContain('Anthropic provider');
  });

  it('accepts them empty or null', () => {
    expect(() => request({ inference_geo: null, mcp_servers: [], thread: null, compaction: null })).not.toThrow();
  });

  it.each(Object.keys(DROPPED_FIELDS))('drops %s: accepted, and nothing of it reaches the hub', (field) => {
    const value = { type: 'ephemeral', edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] };
    const hub = request({ [field]: value });
    expect(hub).toEqual(request({}));
  });
});

describe('client side: tool and block fields', () => {
  it("carries a tool's strict flag to the hub; drops cache_control, defer_loading, eager_input_streaming", () => {
    const tool = {
      name: 'get_weather',
      input_schema: { type: 'object', properties: {} },
      strict: true,
      cache_control: { type: 'ephemeral' },
      defer_loading: false,
      eager_input_streaming: true,
      input_examples: [{ city: 'Paris' }],
    };
    expect(request({ tools: [tool] }).tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: true },
      },
    ]);
  });

  it('reads a search_result block as text: title, source, then its text', () => {
    const block = {
      type: 'search_result',
      source: 'https://docs.example.com/api',
      title: 'API reference',
      content: [
        { type: 'text', text: 'The API takes JSON.' },
        { type: 'text', text: 'Keys go in a header.' },
      ],
      citations: { enabled: true },
    };
    expect(request({ messages: [{ role: 'user', content: [block] }] }).messages).toEqual([
      {
        role: 'user',
        content: 'API reference\n\nhttps://docs.example.com/api\n\nThe API takes JSON.\n\nKeys go in a header.',
      },
    ]);
  });
});
