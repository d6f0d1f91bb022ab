// Golden tests for the provider side: hub requests written as a provider's /api/chat body.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../errors.ts';
import { toolCall } from '../fixtures.test-helper.ts';
import type { HubRequest } from '../hub/index.ts';
import { ollamaFormat } from './index.ts';

describe('ollama provider side: hub request → /api/chat body', () => {
  const full: HubRequest = {
    model: 'llama3.2',
    messages: [
      { role: 'developer', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [toolCall('call_1', 'get_weather', '{"city":"Paris"}')] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
    ],
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
      },
    ],
    temperature: 0.5,
    top_p: 0.9,
    max_tokens: 64,
    stop: 'END',
    seed: 7,
    response_format: { type: 'json_object' },
    user: 'u1',
  };

  it('writes the reference shape, with stream always explicit', () => {
    expect(ollamaFormat.requestFromHub(full)).toEqual({
      model: 'llama3.2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is this?', images: ['iVBORw0KGgo='] },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
        },
        { role: 'tool', content: '{"temp_c":21}', tool_name: 'get_weather' },
      ],
      stream: false,
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } },
      ],
      format: 'json',
      options: { temperature: 0.5, top_p: 0.9, num_predict: 64, stop: ['END'], seed: 7 },
    });
    expect(ollamaFormat.requestFromHub({ model: 'm', messages: [], stream: true })).toEqual({
      model: 'm',
      messages: [],
      stream: true,
    });
  });

  it('sends a JSON schema as format, and approximates tool_choice (none: no tools; named: only that tool)', () => {
    const schema = { type: 'object', properties: { age: { type: 'integer' } } };
    const tools: HubRequest['tools'] = [
      { type: 'function', function: { name: 'a' } },
      { type: 'function', function: { name: 'b' } },
    ];
    const body = (r: Partial<HubRequest>) =>
      ollamaFormat.requestFromHub({ model: 'm', messages: [], ...r }) as Record<string, unknown>;
    expect(body({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } }).format).toEqual(
      schema,
    );
    expect(body({ tools, tool_choice: 'none' }).tools).toBeUndefined();
    expect(body({ tools, tool_choice: { type: 'function', function: { name: 'b' } } }).tools).toEqual([
      { type: 'function', function: { name: 'b' } },
    ]);
    expect(body({ tools, tool_choice: 'required' }).tools).toHaveLength(2);
    expect(body({ max_completion_tokens: 9, top_k: 40 }).options).toEqual({ num_predict: 9, top_k: 40 });
  });

  it('refuses a remote image URL (Ollama takes only inline images) with a 400 naming the part', () => {
    const req: HubRequest = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/cat.png' } }] }],
    };
    expect(() => ollamaFormat.requestFromHub(req)).toThrow(ApiError);
    expect(() => ollamaFormat.requestFromHub(req)).toThrow('"messages[0].content[0].image_url.url"');
  });

  it('sends tool arguments that are not a JSON object as {"_raw": text} (they were replaced by {})', () => {
    const sent = [toolCall('c1', 'f', '{"city": "Par'), toolCall('c2', 'f', '[1,2]')];
    const req: HubRequest = { model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: sent }] };
    const wire = ollamaFormat.requestFromHub(req) as { messages: { tool_calls: unknown[] }[] };
    expect(wire.messages[0]!.tool_calls).toEqual([
      { function: { name: 'f', arguments: { _raw: '{"city": "Par' } } },
      { function: { name: 'f', arguments: { _raw: '[1,2]' } } },
    ]);
    const back = ollamaFormat.requestToHub(JSON.parse(JSON.stringify(wire)), {});
    const calls = (back.messages[0] as { tool_calls: { function: { arguments: string } }[] }).tool_calls;
    expect(calls.map((c) => c.function.arguments)).toEqual(['{"city": "Par', '[1,2]']);
  });

  it("sends max_completion_tokens over max_tokens (the hub's rule), a stop string as a list, and no empty stop", () => {
    const body = (r: Partial<HubRequest>) =>
      ollamaFormat.requestFromHub({ model: 'm', messages: [], ...r }) as Record<string, unknown>;
    expect(body({ max_tokens: 5, max_completion_tokens: 9 }).options).toEqual({ num_predict: 9 });
    expect(body({ stop: 'END', top_k: 3 }).options).toEqual({ top_k: 3, stop: ['END'] });
    expect(body({ stop: [] }).options).toBeUndefined();
  });
});
