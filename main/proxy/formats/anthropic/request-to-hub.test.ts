// Client side: Anthropic Messages requests read into the hub, the 400s that name the field, and what the SDK sends.
import { describe, expect, it } from 'vitest';
import { apiErrorOf, badRequest, toolCall } from '../fixtures.test-helper.ts';
import type { HubRequest } from '../hub/index.ts';
import { ctx, sdkAnswering, textResponse } from './fixtures.test-helper.ts';
import { anthropicFormat } from './index.ts';

/** The hub messages of a request holding `messages` (model "m", max_tokens 10). */
const messagesToHub = (messages: unknown[]) =>
  anthropicFormat.requestToHub({ model: 'm', max_tokens: 10, messages }, {}).messages;

describe('client side: Anthropic request → hub', () => {
  it('converts a full request exactly', () => {
    const body = {
      model: 'claude-test-1',
      max_tokens: 1024,
      system: [
        { type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Be brief.' },
      ],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      stream: true,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'u-42' },
      thinking: { type: 'enabled', budget_tokens: 2048 },
    };
    expect(anthropicFormat.requestToHub(body, {})).toEqual({
      model: 'claude-test-1',
      messages: [
        // A system block with a prompt-cache marker: one part per block, the marker kept (hub/cache-control.ts).
        {
          role: 'system',
          content: [
            { type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'Be brief.' },
          ],
        },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      max_tokens: 1024,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40, // carried through the parameter map (it was ignored before)
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      user: 'u-42',
      reasoning_budget: 2048, // thinking: its budget, and the effort that budget stands for
      reasoning_effort: 'low',
    } satisfies HubRequest);
  });

  it('keeps prompt-cache markers on system, text, document and tool-result blocks, and notes the others as dropped', () => {
    const ephemeral = { type: 'ephemeral' };
    const hour = { type: 'ephemeral', ttl: '1h' };
    const context: { dropped?: string[] } = {};
    const hub = anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        system: [{ type: 'text', text: 'Rules.', cache_control: hour }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Read this.', cache_control: ephemeral }] },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't1', name: 'read', input: {}, cache_control: ephemeral }],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [
                  { type: 'text', text: 'line 1' },
                  { type: 'text', text: 'line 2' },
                ],
                cache_control: ephemeral,
              },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'plain' }] },
        ],
      },
      context,
    );
    expect(hub.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Rules.', cache_control: hour }] },
      { role: 'user', content: [{ type: 'text', text: 'Read this.', cache_control: ephemeral }] },
      { role: 'assistant', content: null, tool_calls: [toolCall('t1', 'read', '{}')] },
      {
        role: 'tool',
        tool_call_id: 't1',
        content: [{ type: 'text', text: 'line 1\nline 2', cache_control: ephemeral }],
      },
      { role: 'user', content: 'plain' },
    ]);
    // The tool_use block's marker has nowhere to go in the hub: said.
    expect(context.dropped).toEqual([
      expect.stringMatching(/^cache_control: Anthropic's prompt-cache markers on tools/),
    ]);
    const none: { dropped?: string[] } = {};
    anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: ephemeral }] }],
      },
      none,
    );
    expect(none.dropped).toBeUndefined();
  });

  it('accepts role "system" messages inside messages, where they stand', () => {
    const messages = messagesToHub([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: [{ type: 'text', text: 'Now be French.' }] },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Now be French.' },
    ]);
  });

  it('maps base64 images to data: URLs and url images to the URL', () => {
    const messages = messagesToHub([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          { type: 'text', text: 'Compare them.' },
        ],
      },
    ]);
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'text', text: 'Compare them.' },
        ],
      },
    ]);
  });

  it('turns each tool_result into a tool message; text after the results stays a user message, in order', () => {
    const messages = messagesToHub([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities, two calls.', signature: 'sig' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp_c":21}' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [
              { type: 'text', text: 'timeout' },
              { type: 'text', text: 'retry later' },
            ],
            is_error: true,
          },
          { type: 'text', text: 'Also, what about Oslo?' },
          { type: 'text', text: 'Thanks.' },
        ],
      },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          toolCall('toolu_1', 'get_weather', '{"city":"Paris"}'),
          toolCall('toolu_2', 'get_weather', '{"city":"Rome"}'),
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '{"temp_c":21}' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: timeout\nretry later' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Also, what about Oslo?' },
          { type: 'text', text: 'Thanks.' },
        ],
      },
    ]);
  });

  it('puts tool results ahead of text that precedes them in the same turn, and keeps images in results', () => {
    const messages = messagesToHub([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Here:' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
          },
          { type: 'tool_result', tool_use_id: 'toolu_2' },
        ],
      },
    ]);
    expect(messages).toEqual([
      {
        role: 'tool',
        tool_call_id: 'toolu_1',
        content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_2', content: '' },
      { role: 'user', content: 'Here:' },
    ]);
  });

  it('gives an assistant turn of only tool calls null content', () => {
    const messages = messagesToHub([
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'now', input: {} }] },
    ]);
    expect(messages).toEqual([{ role: 'assistant', content: null, tool_calls: [toolCall('t1', 'now', '{}')] }]);
  });

  it.each([
    [{ type: 'auto' }, 'auto', undefined],
    [{ type: 'any' }, 'required', undefined],
    [{ type: 'none' }, 'none', undefined],
    [{ type: 'tool', name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }, undefined],
    [{ type: 'auto', disable_parallel_tool_use: true }, 'auto', false],
  ])('maps tool_choice %j', (choice, hubChoice, parallel) => {
    const hub = anthropicFormat.requestToHub(
      {
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
        tool_choice: choice,
      },
      {},
    );
    expect(hub.tool_choice).toEqual(hubChoice);
    expect(hub.parallel_tool_calls).toBe(parallel);
  });

  it('maps plain-text documents to text, title first', () => {
    const messages = messagesToHub([
      {
        role: 'user',
        content: [
          {
            type: 'document',
            title: 'Notes',
            source: { type: 'text', media_type: 'text/plain', data: 'The sky is blue.' },
          },
          {
            type: 'document',
            source: {
              type: 'content',
              content: [
                { type: 'text', text: 'a' },
                { type: 'text', text: 'b' },
              ],
            },
          },
          { type: 'text', text: 'Summarise.' },
        ],
      },
    ]);
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Notes\n\nThe sky is blue.' },
        { type: 'text', text: 'a\nb' },
        { type: 'text', text: 'Summarise.' },
      ],
    });
  });

  it.each([
    ['a body that is not an object', [1, 2], 'The request body must be a JSON object'],
    ['no messages', { model: 'm', max_tokens: 5 }, '"messages" must be a non-empty array'],
    [
      'a bad role',
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      '"messages[0].role" must be "user", "assistant" or "system"; got "tool"',
    ],
    [
      'a text block without text',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      '"messages[0].content[0].text" must be a string',
    ],
    [
      'a PDF document',
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'x' },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
            ],
          },
        ],
      },
      '"messages[0].content[1]" is a document block (base64 application/pdf)',
    ],
    [
      'an image from the Files API',
      {
        model: 'm',
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }],
      },
      '"messages[0].content[0]" is an image with a "file" source',
    ],
    [
      'an untranslatable block',
      {
        model: 'm',
        messages: [
          { role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] },
        ],
      },
      '"messages[0].content[0]" is a "server_tool_use" block',
    ],
    [
      'a built-in tool',
      {
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      },
      '"tools[0]" is Anthropic\'s built-in tool "web_search_20250305"',
    ],
    [
      'a bad tool_choice',
      { model: 'm', messages: [{ role: 'user', content: 'x' }], tool_choice: { type: 'sometimes' } },
      '"tool_choice.type" must be "auto", "any", "none" or "tool"; got "sometimes"',
    ],
    [
      'a bad max_tokens',
      { model: 'm', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] },
      '"max_tokens" must be a whole number of at least 1; got 0',
    ],
    [
      'a bad temperature',
      { model: 'm', temperature: 'hot', messages: [{ role: 'user', content: 'x' }] },
      '"temperature" must be a number; got "hot"',
    ],
    [
      'a bad top_k',
      { model: 'm', top_k: '40', messages: [{ role: 'user', content: 'x' }] },
      '"top_k" must be a number; got "40"',
    ],
    [
      'a max_tokens that is not whole',
      { model: 'm', max_tokens: 1.5, messages: [{ role: 'user', content: 'x' }] },
      '"max_tokens" must be a whole number of at least 1; got 1.5',
    ],
    [
      'a stop_sequences string',
      { model: 'm', stop_sequences: 'END', messages: [{ role: 'user', content: 'x' }] },
      '"stop_sequences" must be an array of strings; got "END"',
    ],
  ])('refuses %s with a 400 naming the field', (_name, body, message) => {
    const e = badRequest(() => anthropicFormat.requestToHub(body, {}), message);
    expect(e.code).toBe('invalid_request');
  });

  it('reads tool_use input by the one tool-arguments policy: {"_raw": text} is the text itself', () => {
    const content = [
      { type: 'tool_use', id: 't1', name: 'f', input: { _raw: 'Rome' } },
      { type: 'tool_use', id: 't2', name: 'g', input: { _raw: 'x', other: 1 } },
      { type: 'tool_use', id: 't3', name: 'h' },
    ];
    const hub = anthropicFormat.requestToHub({ model: 'm', messages: [{ role: 'assistant', content }] }, {});
    expect(hub.messages[0]).toMatchObject({
      tool_calls: [
        { id: 't1', function: { name: 'f', arguments: 'Rome' } },
        { id: 't2', function: { name: 'g', arguments: '{"_raw":"x","other":1}' } },
        { id: 't3', function: { name: 'h', arguments: '{}' } },
      ],
    });
  });

  it('refuses a request without a model as model_required', () => {
    const e = apiErrorOf(() =>
      anthropicFormat.requestToHub({ max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, {}),
    );
    expect([e.status, e.code]).toEqual([400, 'model_required']);
  });

  it('accepts what the official SDK sends', async () => {
    let sent: unknown;
    const reply = JSON.stringify(anthropicFormat.responseFromHub(textResponse, ctx));
    const client = sdkAnswering(reply, 'application/json', (body) => (sent = body));
    await client.messages.create({
      model: 'claude-test-1',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '21C' }] },
      ],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    expect(anthropicFormat.requestToHub(sent, {}).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('toolu_1', 'get_weather', '{"city":"Paris"}')],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '21C' },
    ]);
  });
});
