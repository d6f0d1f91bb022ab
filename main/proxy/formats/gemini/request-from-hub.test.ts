// Provider side: the hub request as a Gemini request body.
import { describe, expect, it } from 'vitest';
import { badRequest, toolCall } from '../fixtures.test-helper.ts';
import { foldChunks, type HubRequest } from '../hub/index.ts';
import { geminiFormat } from './index.ts';
import { SKIP_THOUGHT_SIGNATURE } from './request-from-hub.ts';

describe('provider side: the hub request as a Gemini request', () => {
  const conversation: HubRequest = {
    model: 'gemini-2.5-flash',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: 'Use metric units.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather here and there?' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          { type: 'image_url', image_url: { url: 'https://x.test/photo.PNG?size=2' } },
          { type: 'image_url', image_url: { url: 'https://x.test/photo' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          toolCall('call_p', 'get_weather', '{"city":"Paris"}'),
          toolCall('call_r', 'get_weather', '{"city":"Rome"}'),
        ],
      },
      { role: 'tool', tool_call_id: 'call_p', content: '{"temp_c":21}' },
      { role: 'tool', tool_call_id: 'call_r', content: 'sunny, 25 °C' },
      { role: 'user', content: 'Which is warmer?' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
        },
      },
    ],
    tool_choice: 'required',
    temperature: 0.3,
    top_p: 0.8,
    max_completion_tokens: 500,
    max_tokens: 100,
    stop: 'END',
    seed: 1,
    presence_penalty: 0.1,
    frequency_penalty: 0.2,
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
    parallel_tool_calls: true,
    user: 'u1',
    stream: true,
  };

  it('writes system, turns (merged where roles repeat), results by function name, media, tools and config (a forced tool call: no JSON format)', () => {
    expect(geminiFormat.requestFromHub(conversation)).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Weather here and there?' },
            { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
            { fileData: { mimeType: 'image/png', fileUri: 'https://x.test/photo.PNG?size=2' } },
            { fileData: { fileUri: 'https://x.test/photo' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'Checking.' },
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { temp_c: 21 } } },
            { functionResponse: { name: 'get_weather', response: { output: 'sunny, 25 °C' } } },
            { text: 'Which is warmer?' },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Use metric units.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather for a city',
              parametersJsonSchema: {
                type: 'object',
                properties: { city: { type: 'string' } },
                additionalProperties: false,
              },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      generationConfig: {
        temperature: 0.3,
        topP: 0.8,
        maxOutputTokens: 500,
        stopSequences: ['END'],
        seed: 1,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
      },
    });
  });

  it('signs replayed function calls for models after Gemini 2 (Gemini 3 refuses unsigned ones)', () => {
    const body = geminiFormat.requestFromHub({ ...conversation, model: 'gemini-3-pro-preview' }) as {
      contents: { parts: Record<string, unknown>[] }[];
    };
    const calls = body.contents[1]!.parts.filter((p) => p.functionCall);
    expect(calls.map((p) => p.thoughtSignature)).toEqual([SKIP_THOUGHT_SIGNATURE, SKIP_THOUGHT_SIGNATURE]);
    const old = geminiFormat.requestFromHub({ ...conversation, model: 'models/gemini-2.0-flash' }) as {
      contents: { parts: Record<string, unknown>[] }[];
    };
    expect(old.contents[1]!.parts.some((p) => 'thoughtSignature' in p)).toBe(false);
  });

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    [
      { type: 'function', function: { name: 'get_weather' } },
      { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    ],
  ] as const)('maps tool_choice %j to %j', (choice, config) => {
    const { response_format: _, ...plain } = conversation;
    expect(
      (geminiFormat.requestFromHub({ ...plain, tool_choice: choice }) as { toolConfig: unknown }).toolConfig,
    ).toEqual({ functionCallingConfig: config });
  });

  // Issue 32, item 4: Gemini 2.5 refuses "Function calling with a response mime type: 'application/json'".
  describe('a JSON response format beside function tools (the answer tool, as toward Anthropic)', () => {
    const schema = { type: 'object', properties: { files: { type: 'array', items: { type: 'string' } } } };
    const asked = (
      tool_choice?: HubRequest['tool_choice'],
      format = { type: 'json_schema' as const, json_schema: { name: 'listing', schema } },
    ) => {
      const { tool_choice: _c, ...rest } = conversation;
      return geminiFormat.requestFromHub({
        ...rest,
        ...(tool_choice ? { tool_choice } : {}),
        response_format: format,
      }) as any;
    };

    it('declares the answer tool beside the client functions and makes the model call one (mode ANY); no JSON mime type', () => {
      for (const choice of [undefined, 'auto'] as const) {
        const body = asked(choice);
        expect(body.generationConfig).not.toHaveProperty('responseMimeType');
        expect(body.generationConfig).not.toHaveProperty('responseJsonSchema');
        expect(body.tools[0].functionDeclarations.map((d: any) => d.name)).toEqual([
          'get_weather',
          'switchboard_json_answer',
        ]);
        expect(body.tools[0].functionDeclarations[1]).toMatchObject({
          description: expect.stringContaining('The answer is a listing.'),
          parametersJsonSchema: schema,
        });
        expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
      }
    });

    it('with tool_choice "none", allows the answer tool alone; json_object gets an open object; a root that is not an object is wrapped', () => {
      expect(asked('none').toolConfig).toEqual({
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['switchboard_json_answer'] },
      });
      const open = asked(undefined, { type: 'json_object' } as never).tools[0].functionDeclarations[1];
      expect(open.parametersJsonSchema).toEqual({ type: 'object', properties: {}, additionalProperties: true });
      const array = asked(undefined, {
        type: 'json_schema',
        json_schema: { name: 'response', schema: { type: 'array', items: { type: 'string' } } as never },
      }).tools[0].functionDeclarations[1];
      expect(array).toMatchObject({
        name: 'switchboard_json_value',
        parametersJsonSchema: { type: 'object', properties: { value: { type: 'array' } }, required: ['value'] },
      });
    });

    it('sends responseMimeType and responseJsonSchema when there are no tools, and refuses a client function named like the answer tool', () => {
      const { tools: _t, tool_choice: _c, ...noTools } = conversation;
      const body = geminiFormat.requestFromHub(noTools) as any;
      expect(body.generationConfig).toMatchObject({
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
      });
      expect(body).not.toHaveProperty('tools');
      const clash = { ...conversation, tool_choice: 'auto' as const };
      clash.tools = [
        { type: 'function', function: { name: 'switchboard_json_answer', parameters: { type: 'object' } } },
      ];
      expect(() => geminiFormat.requestFromHub(clash)).toThrow(/reserved by Switchboard/);
    });

    it("reads the answer tool's call back as the assistant's text and a normal stop, whole and streamed", () => {
      const call = { functionCall: { name: 'switchboard_json_answer', args: { files: ['a.ts'] } } };
      const whole = geminiFormat.responseToHub(
        { candidates: [{ content: { parts: [call], role: 'model' }, finishReason: 'STOP', index: 0 }] },
        'm',
      );
      expect(whole.choices[0]).toMatchObject({ message: { content: '{"files":["a.ts"]}' }, finish_reason: 'stop' });
      expect(whole.choices[0]!.message.tool_calls).toBeUndefined();
      const dec = geminiFormat.streamDecoder('m');
      const value = { functionCall: { name: 'switchboard_json_value', args: { value: ['x', 'y'] } } };
      const chunks = [
        ...dec.push(
          `data: ${JSON.stringify({ candidates: [{ content: { parts: [value], role: 'model' }, finishReason: 'STOP' }] })}\r\n\r\n`,
        ),
        ...dec.end(),
      ];
      const folded = foldChunks(chunks);
      expect(folded.choices[0]).toMatchObject({ message: { content: '["x","y"]' }, finish_reason: 'stop' });
      expect(folded.choices[0]!.message.tool_calls).toBeUndefined();
    });
  });

  it('keeps tool arguments that are not a JSON object, and takes a result name from the tool message', () => {
    const body = geminiFormat.requestFromHub({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', tool_calls: [toolCall('c1', 'f', '{"a":')] },
        { role: 'tool', tool_call_id: 'c-unknown', name: 'g', content: [{ type: 'text', text: '[1,2]' }] },
      ],
    }) as { contents: { parts: unknown[] }[] };
    expect(body.contents[1]!.parts).toEqual([{ functionCall: { name: 'f', args: { _raw: '{"a":' } } }]);
    expect(body.contents[2]!.parts).toEqual([{ functionResponse: { name: 'g', response: { output: '[1,2]' } } }]);
  });

  it('refuses a tool result whose call it cannot name', () => {
    badRequest(
      () =>
        geminiFormat.requestFromHub({
          model: 'm',
          messages: [
            { role: 'user', content: 'x' },
            { role: 'tool', tool_call_id: 'nope', content: 'r' },
          ],
        }),
      'messages[1].tool_call_id "nope"',
    );
  });
});

describe('provider side: sampling fields and tool arguments through the shared skeleton', () => {
  const base: HubRequest = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] };

  it('writes top_k as topK, n as candidateCount, and leaves out an empty stop list (parameter map)', () => {
    const body = geminiFormat.requestFromHub({ ...base, top_k: 40, n: 2, stop: [] }) as { generationConfig: unknown };
    expect(body.generationConfig).toEqual({ topK: 40, candidateCount: 2 });
    expect('generationConfig' in (geminiFormat.requestFromHub({ ...base, stop: [] }) as object)).toBe(false);
  });

  it('sends arguments that are not a JSON object as {"_raw": text}, which reads back as the text', () => {
    const body = geminiFormat.requestFromHub({
      ...base,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [toolCall('c', 'f', '[1]')] },
      ],
    }) as { contents: { parts: { functionCall?: unknown }[] }[] };
    const call = body.contents[1]!.parts[0]!.functionCall;
    expect(call).toEqual({ name: 'f', args: { _raw: '[1]' } });
    const reply = geminiFormat.responseToHub(
      { candidates: [{ content: { parts: [{ functionCall: call }] }, index: 0 }] },
      'm',
    );
    expect(reply.choices[0]!.message.tool_calls?.[0]?.function.arguments).toBe('[1]');
  });
});
