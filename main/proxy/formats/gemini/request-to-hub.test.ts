// Client side: Gemini requests (either casing) as hub requests, and the 400s for bad ones.
import { describe, expect, it } from 'vitest';
import { badRequest, toolCall } from '../fixtures.test-helper.ts';
import type { ClientContext, HubRequest } from '../hub/index.ts';
import { geminiFormat } from './index.ts';

const ctx = { pathModel: 'gemini-2.5-flash' };

describe('client side: a Gemini request as the hub request', () => {
  it('converts a full request as the API reference writes it', () => {
    const body = {
      systemInstruction: { parts: [{ text: 'You are a weather bot.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 21 } } }] },
        { role: 'model', parts: [{ text: 'It is 21 °C.' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather for a city',
              parameters: {
                type: 'OBJECT',
                properties: { city: { type: 'STRING', description: 'City name' } },
                required: ['city'],
              },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: {
        temperature: 0.4,
        topP: 0.9,
        topK: 40,
        maxOutputTokens: 256,
        stopSequences: ['END'],
        candidateCount: 1,
        seed: 7,
      },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    };
    const hub = geminiFormat.requestToHub(body, { ...ctx, pathStream: true });
    const callId = (hub.messages[2] as { tool_calls: { id: string }[] }).tool_calls[0]!.id;
    expect(callId).toMatch(/^call_/);
    expect(hub).toEqual({
      model: 'gemini-2.5-flash',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a weather bot.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [toolCall(callId, 'get_weather', '{"city":"Paris"}')],
        },
        { role: 'tool', tool_call_id: callId, content: '{"temp_c":21}', name: 'get_weather' },
        { role: 'assistant', content: 'It is 21 °C.' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string', description: 'City name' } },
              required: ['city'],
            },
          },
        },
      ],
      tool_choice: 'auto',
      temperature: 0.4,
      top_p: 0.9,
      top_k: 40,
      max_tokens: 256,
      stop: ['END'],
      n: 1,
      seed: 7,
    } satisfies HubRequest);
  });

  it('reads snake_case fields everywhere but never renames argument, result or schema property names', () => {
    const hub = geminiFormat.requestToHub(
      {
        system_instruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'Look' },
              { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { file_data: { mime_type: 'application/pdf', file_uri: 'https://x.test/a.pdf' } },
            ],
          },
          { role: 'model', parts: [{ function_call: { name: 'lookup', args: { city_name: 'Paris' } } }] },
          {
            role: 'user',
            parts: [{ function_response: { name: 'lookup', response: { temp_c: 21, feels_like: 19 } } }],
          },
        ],
        tools: [
          {
            function_declarations: [
              {
                name: 'lookup',
                parameters: { type: 'object', properties: { city_name: { type: 'string', max_length: 40 } } },
              },
            ],
          },
        ],
        tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['lookup'] } },
        generation_config: { max_output_tokens: 100, stop_sequences: ['x'], response_mime_type: 'application/json' },
      },
      ctx,
    );
    expect(hub.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(hub.messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'https://x.test/a.pdf' } },
      ],
    });
    expect((hub.messages[2] as { tool_calls: { function: unknown }[] }).tool_calls[0]!.function).toEqual({
      name: 'lookup',
      arguments: '{"city_name":"Paris"}',
    });
    expect(hub.messages[3]).toMatchObject({ role: 'tool', content: '{"temp_c":21,"feels_like":19}' });
    expect(hub.tools?.[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { city_name: { type: 'string', maxLength: 40 } },
    });
    expect(hub.tool_choice).toEqual({ type: 'function', function: { name: 'lookup' } });
    expect(hub.max_tokens).toBe(100);
    expect(hub.stop).toEqual(['x']);
    expect(hub.response_format).toEqual({ type: 'json_object' });
  });

  it('prefers camelCase when a field comes in both casings', () => {
    const hub = geminiFormat.requestToHub(
      {
        contents: [{ parts: [{ text: 'a' }] }],
        generationConfig: { temperature: 0.1 },
        generation_config: { temperature: 0.9 },
      },
      ctx,
    );
    expect(hub.temperature).toBe(0.1);
  });

  describe('pairs functionResponses with functionCalls', () => {
    const callTurn = (ids: (string | undefined)[], names = ['f', 'f']) => ({
      role: 'model',
      parts: ids.map((id, k) => ({ functionCall: { ...(id ? { id } : {}), name: names[k]!, args: { k } } })),
    });
    const toolMessages = (hub: HubRequest) =>
      hub.messages.filter((m) => m.role === 'tool') as { tool_call_id: string; content: string }[];
    const callIds = (hub: HubRequest) =>
      (hub.messages.find((m) => m.role === 'assistant') as { tool_calls: { id: string }[] }).tool_calls.map(
        (c) => c.id,
      );

    it('keeps ids when the calls carry them and matches responses by id, in any order', () => {
      const hub = geminiFormat.requestToHub(
        {
          contents: [
            { parts: [{ text: 'go' }] },
            callTurn(['a1', 'a2']),
            {
              role: 'user',
              parts: [
                { functionResponse: { id: 'a2', name: 'f', response: { r: 2 } } },
                { functionResponse: { id: 'a1', name: 'f', response: { r: 1 } } },
              ],
            },
          ],
        },
        ctx,
      );
      expect(callIds(hub)).toEqual(['a1', 'a2']);
      expect(toolMessages(hub).map((m) => [m.tool_call_id, m.content])).toEqual([
        ['a2', '{"r":2}'],
        ['a1', '{"r":1}'],
      ]);
    });

    const noIds = 'matches by name order when calls have no ids (minted ids), and when a response id matches no call';
    it(`${noIds} (Gemini CLI)`, () => {
      const hub = geminiFormat.requestToHub(
        {
          contents: [
            { parts: [{ text: 'go' }] },
            callTurn([undefined, undefined], ['f', 'g']),
            {
              role: 'user',
              parts: [
                { functionResponse: { id: 'g-1700000000-x', name: 'g', response: { output: 'G' } } },
                { functionResponse: { id: 'f-1700000000-y', name: 'f', response: { output: 'F' } } },
              ],
            },
          ],
        },
        ctx,
      );
      const [f, g] = callIds(hub);
      expect(f).toMatch(/^call_/);
      expect(f).not.toBe(g);
      // {"output": "<text>"} reads back as the text.
      expect(toolMessages(hub).map((m) => [m.tool_call_id, m.content])).toEqual([
        [g, 'G'],
        [f, 'F'],
      ]);
    });

    it('answers two calls of one name in order, and text after the results becomes a user message', () => {
      const hub = geminiFormat.requestToHub(
        {
          contents: [
            { parts: [{ text: 'go' }] },
            callTurn([undefined, undefined]),
            {
              role: 'user',
              parts: [
                { functionResponse: { name: 'f', response: { n: 1 } } },
                { functionResponse: { name: 'f', response: { n: 2 } } },
                { text: 'and?' },
              ],
            },
          ],
        },
        ctx,
      );
      expect(toolMessages(hub).map((m) => m.tool_call_id)).toEqual(callIds(hub));
      expect(hub.messages.at(-1)).toEqual({ role: 'user', content: 'and?' });
    });

    it('refuses a functionResponse that answers no call of the previous model turn', () => {
      badRequest(
        () =>
          geminiFormat.requestToHub(
            {
              contents: [
                { parts: [{ text: 'go' }] },
                callTurn(['a']),
                { parts: [{ functionResponse: { name: 'other', response: {} } }] },
              ],
            },
            ctx,
          ),
        'contents[2].parts[0].functionResponse "other"',
      );
    });
  });

  it.each([
    [{ mode: 'NONE' }, 'none', ['f', 'g']],
    [{ mode: 'ANY' }, 'required', ['f', 'g']],
    [{ mode: 'ANY', allowedFunctionNames: ['g'] }, { type: 'function', function: { name: 'g' } }, ['f', 'g']],
    [{ mode: 'ANY', allowedFunctionNames: ['f', 'g'] }, 'required', ['f', 'g']],
    [{ mode: 'any', allowedFunctionNames: ['g', 'h'] }, 'required', ['g']],
    [{ mode: 'VALIDATED' }, 'auto', ['f', 'g']],
  ])('maps functionCallingConfig %j to tool_choice %j', (config, choice, toolNames) => {
    const hub = geminiFormat.requestToHub(
      {
        contents: [{ parts: [{ text: 'x' }] }],
        tools: [{ functionDeclarations: [{ name: 'f' }, { name: 'g' }] }],
        toolConfig: { functionCallingConfig: config },
      },
      ctx,
    );
    expect(hub.tool_choice).toEqual(choice);
    expect(hub.tools?.map((t) => t.function.name)).toEqual(toolNames);
  });

  it('maps JSON output with a schema to json_schema (Gemini Schema converted, JSON Schema kept)', () => {
    const withSchema = geminiFormat.requestToHub(
      {
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: {
          responseMimeType: 'application/json',
          responseSchema: { type: 'ARRAY', items: { type: 'STRING', nullable: true } },
        },
      },
      ctx,
    );
    expect(withSchema.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: { type: 'array', items: { type: ['string', 'null'] } } },
    });
    const jsonSchema = { type: 'object', properties: { a_b: { type: 'integer' } }, additionalProperties: false };
    const withJsonSchema = geminiFormat.requestToHub(
      {
        contents: [{ parts: [{ text: 'x' }] }],
        generation_config: { response_mime_type: 'application/json', response_json_schema: jsonSchema },
      },
      ctx,
    );
    expect(withJsonSchema.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: jsonSchema },
    });
  });

  it('reads thought parts of model turns as reasoning, and names the thought signatures it drops (issue 32)', () => {
    const noted: ClientContext = { pathModel: 'gemini-2.5-pro' };
    const hub = geminiFormat.requestToHub(
      {
        contents: [
          { parts: [{ text: 'Hi' }] },
          {
            role: 'model',
            parts: [
              { text: 'Plan…', thought: true },
              { text: 'Hello', thoughtSignature: 'sig' },
            ],
          },
          { parts: [{ text: 'Go on' }] },
        ],
      },
      noted,
    );
    expect(hub.messages[1]).toEqual({ role: 'assistant', content: 'Hello', reasoning_content: 'Plan…' });
    expect(noted.dropped).toEqual([
      expect.stringMatching(/^contents\[\]\.parts\[\]\.thoughtSignature: Gemini's signature/),
    ]);
  });

  it('takes the model from the path (or models/-prefixed) and accepts a string systemInstruction', () => {
    const hub = geminiFormat.requestToHub(
      { systemInstruction: 'Be kind.', contents: [{ parts: [{ text: 'x' }] }] },
      { pathModel: 'models/gemini-2.5-pro' },
    );
    expect(hub.model).toBe('gemini-2.5-pro');
    expect(hub.stream).toBeUndefined();
    expect(hub.messages[0]).toEqual({ role: 'system', content: 'Be kind.' });
  });

  it('refuses invalid requests with a 400 naming the field and the fix', () => {
    badRequest(() => geminiFormat.requestToHub([], ctx), 'must be a JSON object');
    badRequest(() => geminiFormat.requestToHub({}, ctx), 'contents is required');
    badRequest(() => geminiFormat.requestToHub({ contents: [] }, ctx), 'contents is required');
    badRequest(
      () => geminiFormat.requestToHub({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, ctx),
      'contents[0].role must be "user" or "model"',
    );
    badRequest(
      () => geminiFormat.requestToHub({ contents: [{ role: 'user', parts: 'x' }] }, ctx),
      'contents[0].parts must be an array',
    );
    badRequest(
      () => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 5 }] }] }, ctx),
      'contents[0].parts[0].text must be a string',
    );
    badRequest(
      () => geminiFormat.requestToHub({ contents: [{ parts: [{ inlineData: { data: 'x' } }] }] }, ctx),
      'contents[0].parts[0].inlineData needs a mimeType',
    );
    badRequest(
      () =>
        geminiFormat.requestToHub(
          { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { temperature: 'hot' } },
          ctx,
        ),
      '"generationConfig.temperature" must be a number',
    );
    badRequest(
      () =>
        geminiFormat.requestToHub(
          { contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [{ description: 'no name' }] }] },
          ctx,
        ),
      'tools[0].functionDeclarations[0].name',
    );
    badRequest(
      () =>
        geminiFormat.requestToHub(
          {
            contents: [{ parts: [{ text: 'x' }] }],
            tools: [{ functionDeclarations: [{ name: 'f' }] }],
            toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } },
          },
          ctx,
        ),
      'toolConfig.functionCallingConfig.mode',
    );
    expect(() => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }] }, {})).toThrow(/model is missing/);
  });

  it('accepts numbers written as strings, as proto3 JSON does', () => {
    expect(
      geminiFormat.requestToHub(
        { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { maxOutputTokens: '64', temperature: '0.5' } },
        ctx,
      ),
    ).toMatchObject({
      max_tokens: 64,
      temperature: 0.5,
    });
  });
});

describe('client side: sampling fields and tool arguments through the shared skeleton', () => {
  const text = { contents: [{ parts: [{ text: 'x' }] }] };

  it('carries topK, accepts numeric strings, and leaves out an empty stopSequences list (parameter map)', () => {
    const hub = geminiFormat.requestToHub(
      { ...text, generationConfig: { topK: '5', topP: 0.5, stopSequences: [], frequencyPenalty: '0.25' } },
      ctx,
    );
    expect(hub).toMatchObject({ top_k: 5, top_p: 0.5, frequency_penalty: 0.25 });
    expect('stop' in hub).toBe(false);
    expect(geminiFormat.requestToHub({ ...text, generation_config: { top_k: 40 } }, ctx).top_k).toBe(40);
  });

  it('refuses what the parameter map refuses, naming the field by its path', () => {
    const config = (generationConfig: unknown) => () => geminiFormat.requestToHub({ ...text, generationConfig }, ctx);
    badRequest(config({ topK: 'many' }), '"generationConfig.topK" must be a number');
    badRequest(config({ stopSequences: 'END' }), '"generationConfig.stopSequences" must be an array of strings');
    badRequest(config({ stopSequences: ['END', 5] }), '"generationConfig.stopSequences" must be an array of strings');
    badRequest(config({ maxOutputTokens: 0 }), '"generationConfig.maxOutputTokens" must be a whole number');
    badRequest(config({ candidateCount: 1.5 }), '"generationConfig.candidateCount" must be a whole number');
  });

  it('reads functionCall args {"_raw": text} back as the text (the one tool-arguments policy)', () => {
    const hub = geminiFormat.requestToHub(
      {
        contents: [
          { parts: [{ text: 'go' }] },
          {
            role: 'model',
            parts: [{ functionCall: { name: 'f', args: { _raw: '{"a":' } } }, { functionCall: { name: 'g' } }],
          },
        ],
      },
      ctx,
    );
    const calls = (hub.messages[1] as { tool_calls: { function: { arguments: string } }[] }).tool_calls;
    expect(calls.map((c) => c.function.arguments)).toEqual(['{"a":', '{}']);
  });
});
