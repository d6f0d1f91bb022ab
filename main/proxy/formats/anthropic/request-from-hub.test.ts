// Provider side: hub requests written as Anthropic request bodies (exact JSON).
import { describe, expect, it } from 'vitest';
import { toolCall } from '../fixtures.test-helper.ts';
import type { HubRequest } from '../hub/index.ts';
import { anthropicFormat } from './index.ts';

describe('provider side: hub request → Anthropic body', () => {
  it('converts a full request exactly', () => {
    const hub: HubRequest = {
      model: 'claude-test-1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What are these?' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
            { type: 'image_url', image_url: { url: 'https://example.com/b.png' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          reasoning_content: 'hmm',
          tool_calls: [
            toolCall('call_1', 'get_weather', '{"city":"Paris"}'),
            toolCall('functions.get_weather:1', 'get_weather', 'Rome'),
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
        { role: 'tool', tool_call_id: 'functions.get_weather:1', content: [{ type: 'text', text: '19' }] },
        { role: 'user', content: 'And Oslo?' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'Hello?' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 1.5,
      top_p: 0.9,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      user: 'u-1',
      seed: 7,
    };
    expect(anthropicFormat.requestFromHub(hub)).toEqual({
      model: 'claude-test-1',
      max_tokens: 4096,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use metric units.' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What are these?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/b.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'functions_get_weather_1', name: 'get_weather', input: { _raw: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '{"temp_c":21}' },
            { type: 'tool_result', tool_use_id: 'functions_get_weather_1', content: [{ type: 'text', text: '19' }] },
            { type: 'text', text: 'And Oslo?' },
          ],
        },
        { role: 'user', content: 'Hello?' },
      ],
      stream: true,
      temperature: 1,
      stop_sequences: ['END'],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'u-1' },
    });
  });

  it('keeps max_tokens (or max_completion_tokens), a single system string and top_p without temperature', () => {
    const body = anthropicFormat.requestFromHub({
      model: 'm',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Hi' },
      ],
      max_completion_tokens: 99,
      top_p: 0.5,
    });
    expect(body).toEqual({
      model: 'm',
      max_tokens: 99,
      system: 'S',
      messages: [{ role: 'user', content: 'Hi' }],
      top_p: 0.5,
    });
    expect(
      anthropicFormat.requestFromHub({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 }),
    ).toMatchObject({ max_tokens: 5 });
  });

  it('sends top_k, clamps temperature to 0..1 and prefers max_completion_tokens (the parameter map)', () => {
    const body = anthropicFormat.requestFromHub({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: -0.5,
      top_p: 0.5,
      top_k: 40,
      max_tokens: 10,
      max_completion_tokens: 20,
      stop: [],
    });
    expect(body).toEqual({
      model: 'm',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0,
      top_k: 40,
    });
  });

  it('sends tool_choice only with tools, and a tool without parameters gets an empty object schema', () => {
    expect(
      anthropicFormat.requestFromHub({ model: 'm', messages: [{ role: 'user', content: 'x' }], tool_choice: 'none' }),
    ).not.toHaveProperty('tool_choice');
    const body = anthropicFormat.requestFromHub({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'now' } }],
      tool_choice: { type: 'function', function: { name: 'now' } },
    });
    expect(body).toMatchObject({
      tools: [{ name: 'now', input_schema: { type: 'object', properties: {} } }],
      tool_choice: { type: 'tool', name: 'now' },
    });
  });
});
