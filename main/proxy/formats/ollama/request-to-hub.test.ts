// Golden tests for the client side of /api/chat: requests read into the hub, tool results linked to minted ids,
// and 400s that name the field.
import { describe, expect, it } from 'vitest';
import { apiErrorOf, badRequest } from '../fixtures.test-helper.ts';
import type { HubRequest } from '../hub/index.ts';
import { CALL_ID } from './fixtures.test-helper.ts';
import { ollamaFormat } from './index.ts';

const toHub = (body: unknown) => () => ollamaFormat.requestToHub(body, {});

/** The reference tool: Ollama writes tools as the hub does. */
const currentWeatherTool = {
  type: 'function',
  function: {
    name: 'get_current_weather',
    description: 'Get the current weather for a location',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

describe('ollama client side: /api/chat request → hub', () => {
  it('reads the reference streaming request, streaming by default and asking for usage', () => {
    const hub = ollamaFormat.requestToHub(
      { model: 'llama3.2', messages: [{ role: 'user', content: 'why is the sky blue?' }] },
      {},
    );
    expect(hub).toEqual({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'why is the sky blue?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('reads every field of a full request, top_k and think too; drops keep_alive and num_ctx', () => {
    const hub = ollamaFormat.requestToHub(
      {
        model: 'llava',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'what is in this image?', images: ['iVBORw0KGgoAAAANSUhEUg', '/9j/4AAQSkZJRg'] },
          {
            role: 'assistant',
            content: '',
            thinking: 'Need the weather.',
            tool_calls: [
              { function: { name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } } },
            ],
          },
          { role: 'tool', content: '22', tool_name: 'get_current_weather' },
        ],
        stream: false,
        tools: [currentWeatherTool],
        format: 'json',
        options: {
          temperature: 0,
          top_p: 0.9,
          top_k: 20,
          num_predict: 100,
          stop: ['\n', 'user:'],
          seed: 42,
          num_ctx: 1024,
          presence_penalty: 1.5,
          frequency_penalty: 1,
        },
        keep_alive: '5m',
        think: true,
      },
      {},
    );
    expect(hub).toEqual({
      model: 'llava',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is in this image?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg' } },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Need the weather.',
          tool_calls: [
            {
              id: expect.stringMatching(CALL_ID),
              type: 'function',
              function: { name: 'get_current_weather', arguments: '{"format":"celsius","location":"Paris, FR"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: expect.stringMatching(CALL_ID), content: '22' },
      ],
      stream: false,
      tools: [currentWeatherTool],
      response_format: { type: 'json_object' },
      temperature: 0,
      top_p: 0.9,
      top_k: 20,
      max_tokens: 100,
      stop: ['\n', 'user:'],
      seed: 42,
      presence_penalty: 1.5,
      frequency_penalty: 1,
      reasoning_effort: 'medium',
    });
    const assistant = hub.messages[2] as { tool_calls: { id: string }[] };
    expect((hub.messages[3] as { tool_call_id: string }).tool_call_id).toBe(assistant.tool_calls[0]!.id);
  });

  it('maps a JSON schema format to json_schema and leaves num_predict -1 (no limit) out', () => {
    const schema = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] };
    const hub = ollamaFormat.requestToHub(
      { model: 'm', messages: [], format: schema, options: { num_predict: -1 }, stream: false },
      {},
    );
    expect(hub.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema } });
    expect(hub.max_tokens).toBeUndefined();
    expect(hub.stream_options).toBeUndefined();
  });

  it('keeps an image sent as a data: URL as it is, and a text-less image message as image parts only', () => {
    const hub = ollamaFormat.requestToHub(
      { model: 'm', messages: [{ role: 'user', images: ['data:image/webp;base64,UklGRg=='] }] },
      {},
    );
    expect(hub.messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } }],
    });
  });

  describe('links tool results to minted tool call ids', () => {
    const ids = (hub: HubRequest) =>
      hub.messages.map((m) =>
        'tool_calls' in m ? (m.tool_calls ?? []).map((c) => c.id) : m.role === 'tool' ? m.tool_call_id : null,
      );
    const twoCalls = {
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { name: 'get_weather', arguments: { city: 'Paris' } } },
        { function: { name: 'get_time', arguments: { tz: 'CET' } } },
      ],
    };

    it('by tool_name, whatever the order of the results', () => {
      const hub = ollamaFormat.requestToHub(
        {
          model: 'm',
          messages: [
            { role: 'user', content: 'q' },
            twoCalls,
            { role: 'tool', tool_name: 'get_time', content: '10:00' },
            { role: 'tool', tool_name: 'get_weather', content: 'sunny' },
          ],
        },
        {},
      );
      const [, calls, time, weather] = ids(hub) as [null, string[], string, string];
      expect(new Set(calls).size).toBe(2);
      expect(time).toBe(calls[1]);
      expect(weather).toBe(calls[0]);
    });

    it('by `name` when an older client sends that instead of tool_name', () => {
      const hub = ollamaFormat.requestToHub(
        { model: 'm', messages: [twoCalls, { role: 'tool', name: 'get_time', content: '10:00' }] },
        {},
      );
      const [calls, time] = ids(hub) as [string[], string];
      expect(time).toBe(calls[1]);
    });

    it('in order when the results carry no tool_name', () => {
      const hub = ollamaFormat.requestToHub(
        { model: 'm', messages: [twoCalls, { role: 'tool', content: 'sunny' }, { role: 'tool', content: '10:00' }] },
        {},
      );
      const [calls, first, second] = ids(hub) as [string[], string, string];
      expect([first, second]).toEqual(calls);
    });

    it('by the ids a newer Ollama client sends, when it sends them', () => {
      const withIds = { ...twoCalls, tool_calls: twoCalls.tool_calls.map((c, i) => ({ id: `call_x${i}`, ...c })) };
      const hub = ollamaFormat.requestToHub(
        {
          model: 'm',
          messages: [
            withIds,
            { role: 'tool', tool_call_id: 'call_x1', content: '10:00' },
            { role: 'tool', content: 'sunny' },
          ],
        },
        {},
      );
      expect(ids(hub)).toEqual([['call_x0', 'call_x1'], 'call_x1', 'call_x0']);
    });

    it('only to the latest assistant message; a result with no call to answer gets its own id', () => {
      const hub = ollamaFormat.requestToHub(
        {
          model: 'm',
          messages: [
            twoCalls,
            { role: 'tool', content: 'sunny' },
            { role: 'assistant', content: 'Done.' },
            { role: 'tool', tool_name: 'get_time', content: 'late' },
          ],
        },
        {},
      );
      const [calls, first, , orphan] = ids(hub) as [string[], string, null, string];
      expect(first).toBe(calls[0]);
      expect(orphan).toMatch(CALL_ID);
      expect(calls).not.toContain(orphan);
    });
  });

  describe('refuses invalid requests with a 400 naming the field and the fix', () => {
    const cases: [string, unknown, string][] = [
      ['a body that is not an object', 'nonsense', 'The request body must be a JSON object'],
      ['a model that is not a string', { model: 5 }, '"model"'],
      ['messages that are not an array', { model: 'm', messages: {} }, '"messages"'],
      ['an unknown role', { model: 'm', messages: [{ role: 'bot', content: 'x' }] }, '"messages[0].role"'],
      [
        'content as parts',
        { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] },
        '"messages[0].content"',
      ],
      [
        'images that are not strings',
        { model: 'm', messages: [{ role: 'user', content: 'x', images: [1] }] },
        '"messages[0].images"',
      ],
      [
        'a tool call without a name',
        { model: 'm', messages: [{ role: 'assistant', content: '', tool_calls: [{ function: {} }] }] },
        '"messages[0].tool_calls[0].function.name"',
      ],
      [
        'tool call arguments that are a number',
        {
          model: 'm',
          messages: [{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: 5 } }] }],
        },
        '"messages[0].tool_calls[0].function.arguments"',
      ],
      ['tools that are not an array', { model: 'm', tools: 'x' }, '"tools"'],
      [
        'a tool without a name',
        { model: 'm', tools: [{ type: 'function', function: { name: '' } }] },
        '"tools[0].function.name"',
      ],
      ['a stream flag that is not a boolean', { model: 'm', stream: 'yes' }, '"stream"'],
      ['an unknown format', { model: 'm', format: 'xml' }, '"format"'],
      ['a temperature as text', { model: 'm', options: { temperature: '0.5' } }, '"options.temperature"'],
      ['stop that is a number', { model: 'm', options: { stop: 5 } }, '"options.stop"'],
      ['options that are not an object', { model: 'm', options: 5 }, '"options"'],
      ['a top_k as text', { model: 'm', options: { top_k: '40' } }, '"options.top_k"'],
      ['a num_predict as text', { model: 'm', options: { num_predict: '10' } }, '"options.num_predict"'],
      ['a seed that is not a number', { model: 'm', options: { seed: true } }, '"options.seed"'],
      [
        'a penalty that is not a number',
        { model: 'm', options: { presence_penalty: [] } },
        '"options.presence_penalty"',
      ],
    ];
    for (const [name, body, field] of cases) {
      it(name, () => {
        expect(badRequest(toHub(body), field).code).toBe('invalid_request');
      });
    }
    it('a missing model (model_required, as the OpenAI front door answers)', () => {
      const e = apiErrorOf(toHub({ messages: [] }));
      expect(e).toMatchObject({ code: 'model_required', status: 400 });
      expect(e.message).toContain('"model"');
    });
  });

  describe('deliberate changes (DECISIONS.md)', () => {
    const callArgs = (args: unknown): string => {
      const call = { function: { name: 'f', arguments: args } };
      const hub = ollamaFormat.requestToHub({ model: 'm', messages: [{ role: 'assistant', tool_calls: [call] }] }, {});
      return (hub.messages[0] as { tool_calls: { function: { arguments: string } }[] }).tool_calls[0]!.function
        .arguments;
    };

    it('reads tool arguments {"_raw": text} back as the text, and keeps string arguments as text', () => {
      expect(callArgs({ _raw: '{"city": "Par' })).toBe('{"city": "Par');
      expect(callArgs('{"city":"Paris"}')).toBe('{"city":"Paris"}');
      expect(callArgs('not json')).toBe('not json');
      expect(callArgs({ _raw: 'x', other: 1 })).toBe('{"_raw":"x","other":1}');
      expect(callArgs(undefined)).toBe('{}');
    });

    it('carries top_k, floors a fractional num_predict, and reads a single stop string as a list of one', () => {
      const hub = ollamaFormat.requestToHub({ model: 'm', options: { top_k: 40, num_predict: 9.7, stop: 'END' } }, {});
      expect(hub).toMatchObject({ top_k: 40, max_tokens: 9, stop: ['END'] });
      const none = ollamaFormat.requestToHub({ model: 'm', options: { num_predict: -2, stop: [] } }, {});
      expect(none.max_tokens).toBeUndefined();
      expect(none.stop).toBeUndefined();
    });

    it('names the path of a sampling field of the wrong type, as the other formats do', () => {
      expect(apiErrorOf(toHub({ model: 'm', options: { top_k: '40' } })).message).toBe(
        '"options.top_k" must be a number; got "40".',
      );
      // num_predict between 0 and 1 floors to 0 tokens: refused (it was sent on as 0).
      badRequest(toHub({ model: 'm', options: { num_predict: 0.5 } }), '"options.num_predict"');
    });
  });
});
