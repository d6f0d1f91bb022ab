// Golden tests of the Gemini format: exact wire JSON both ways, stream bytes, error bodies, and the edge cases
// (snake_case input, call/response pairing without ids, cut streams, errors outside SSE framing).
import http from 'node:http';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.ts';
import { countTokens, geminiChatPath, geminiFormat, geminiModelList, schemaToJsonSchema, SKIP_THOUGHT_SIGNATURE } from './gemini.ts';
import { foldChunks, type HubChunk, type HubRequest, type HubResponse, UpstreamStreamError } from './hub/index.ts';
import { responseToChunks } from './conformance.case.ts';

const ctx = { pathModel: 'gemini-2.5-flash' };
const sseCtx = { model: 'gemini-2.5-flash', pathStream: true, query: new URLSearchParams('alt=sse') };
const arrayCtx = { model: 'gemini-2.5-flash', pathStream: true, query: new URLSearchParams() };

function badRequest(fn: () => unknown, messagePart: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ApiError);
  expect((caught as ApiError).status).toBe(400);
  expect((caught as ApiError).message).toContain(messagePart);
  expect((caught as ApiError).action).toBeTruthy();
}

// ---------------------------------------------------------------------------------------------------------------
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
              parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', description: 'City name' } }, required: ['city'] },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { temperature: 0.4, topP: 0.9, topK: 40, maxOutputTokens: 256, stopSequences: ['END'], candidateCount: 1, seed: 7 },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    };
    const hub = geminiFormat.requestToHub(body, { ...ctx, pathStream: true });
    const callId = (hub.messages[2] as { tool_calls: { id: string }[] }).tool_calls[0]!.id;
    expect(callId).toMatch(/^call_/);
    expect(hub).toEqual({
      model: 'gemini-2.5-flash',
      stream: true,
      messages: [
        { role: 'system', content: 'You are a weather bot.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
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
            parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: 'auto',
      temperature: 0.4,
      top_p: 0.9,
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
          { role: 'user', parts: [{ text: 'Look' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } }, { file_data: { mime_type: 'application/pdf', file_uri: 'https://x.test/a.pdf' } }] },
          { role: 'model', parts: [{ function_call: { name: 'lookup', args: { city_name: 'Paris' } } }] },
          { role: 'user', parts: [{ function_response: { name: 'lookup', response: { temp_c: 21, feels_like: 19 } } }] },
        ],
        tools: [{ function_declarations: [{ name: 'lookup', parameters: { type: 'object', properties: { city_name: { type: 'string', max_length: 40 } } } }] }],
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
    expect((hub.messages[2] as { tool_calls: { function: unknown }[] }).tool_calls[0]!.function).toEqual({ name: 'lookup', arguments: '{"city_name":"Paris"}' });
    expect(hub.messages[3]).toMatchObject({ role: 'tool', content: '{"temp_c":21,"feels_like":19}' });
    expect(hub.tools?.[0]?.function.parameters).toEqual({ type: 'object', properties: { city_name: { type: 'string', maxLength: 40 } } });
    expect(hub.tool_choice).toEqual({ type: 'function', function: { name: 'lookup' } });
    expect(hub.max_tokens).toBe(100);
    expect(hub.stop).toEqual(['x']);
    expect(hub.response_format).toEqual({ type: 'json_object' });
  });

  it('prefers camelCase when a field comes in both casings', () => {
    const hub = geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'a' }] }], generationConfig: { temperature: 0.1 }, generation_config: { temperature: 0.9 } }, ctx);
    expect(hub.temperature).toBe(0.1);
  });

  describe('pairs functionResponses with functionCalls', () => {
    const callTurn = (ids: (string | undefined)[], names = ['f', 'f']) => ({
      role: 'model',
      parts: ids.map((id, k) => ({ functionCall: { ...(id ? { id } : {}), name: names[k]!, args: { k } } })),
    });
    const toolMessages = (hub: HubRequest) => hub.messages.filter((m) => m.role === 'tool') as { tool_call_id: string; content: string }[];
    const callIds = (hub: HubRequest) => (hub.messages.find((m) => m.role === 'assistant') as { tool_calls: { id: string }[] }).tool_calls.map((c) => c.id);

    it('keeps ids when the calls carry them and matches responses by id, in any order', () => {
      const hub = geminiFormat.requestToHub(
        {
          contents: [
            { parts: [{ text: 'go' }] },
            callTurn(['a1', 'a2']),
            { role: 'user', parts: [{ functionResponse: { id: 'a2', name: 'f', response: { r: 2 } } }, { functionResponse: { id: 'a1', name: 'f', response: { r: 1 } } }] },
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

    it('matches by name order when calls have no ids (minted ids), and when a response id matches no call (Gemini CLI)', () => {
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
            { role: 'user', parts: [{ functionResponse: { name: 'f', response: { n: 1 } } }, { functionResponse: { name: 'f', response: { n: 2 } } }, { text: 'and?' }] },
          ],
        },
        ctx,
      );
      expect(toolMessages(hub).map((m) => m.tool_call_id)).toEqual(callIds(hub));
      expect(hub.messages.at(-1)).toEqual({ role: 'user', content: 'and?' });
    });

    it('refuses a functionResponse that answers no call of the previous model turn', () => {
      badRequest(
        () => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'go' }] }, callTurn(['a']), { parts: [{ functionResponse: { name: 'other', response: {} } }] }] }, ctx),
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
      { contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [{ name: 'f' }, { name: 'g' }] }, { googleSearch: {} }], toolConfig: { functionCallingConfig: config } },
      ctx,
    );
    expect(hub.tool_choice).toEqual(choice);
    expect(hub.tools?.map((t) => t.function.name)).toEqual(toolNames);
  });

  it('maps JSON output with a schema to json_schema (Gemini Schema converted, JSON Schema kept)', () => {
    const withSchema = geminiFormat.requestToHub(
      {
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'ARRAY', items: { type: 'STRING', nullable: true } } },
      },
      ctx,
    );
    expect(withSchema.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: { type: 'array', items: { type: ['string', 'null'] } } } });
    const jsonSchema = { type: 'object', properties: { a_b: { type: 'integer' } }, additionalProperties: false };
    const withJsonSchema = geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }], generation_config: { response_mime_type: 'application/json', response_json_schema: jsonSchema } }, ctx);
    expect(withJsonSchema.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: jsonSchema } });
  });

  it('reads thought parts of model turns as reasoning, and skips parts the hub cannot carry', () => {
    const hub = geminiFormat.requestToHub(
      {
        contents: [
          { parts: [{ text: 'Hi' }] },
          { role: 'model', parts: [{ text: 'Plan…', thought: true }, { text: 'Hello', thoughtSignature: 'sig' }, { executableCode: { code: '1' } }] },
          { parts: [{ text: 'Go on' }] },
        ],
      },
      ctx,
    );
    expect(hub.messages[1]).toEqual({ role: 'assistant', content: 'Hello', reasoning_content: 'Plan…' });
  });

  it('takes the model from the path (or models/-prefixed) and accepts a string systemInstruction', () => {
    const hub = geminiFormat.requestToHub({ systemInstruction: 'Be kind.', contents: [{ parts: [{ text: 'x' }] }] }, { pathModel: 'models/gemini-2.5-pro' });
    expect(hub.model).toBe('gemini-2.5-pro');
    expect(hub.stream).toBeUndefined();
    expect(hub.messages[0]).toEqual({ role: 'system', content: 'Be kind.' });
  });

  it('refuses invalid requests with a 400 naming the field and the fix', () => {
    badRequest(() => geminiFormat.requestToHub([], ctx), 'must be a JSON object');
    badRequest(() => geminiFormat.requestToHub({}, ctx), 'contents is required');
    badRequest(() => geminiFormat.requestToHub({ contents: [] }, ctx), 'contents is required');
    badRequest(() => geminiFormat.requestToHub({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, ctx), 'contents[0].role must be "user" or "model"');
    badRequest(() => geminiFormat.requestToHub({ contents: [{ role: 'user', parts: 'x' }] }, ctx), 'contents[0].parts must be an array');
    badRequest(() => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 5 }] }] }, ctx), 'contents[0].parts[0].text must be a string');
    badRequest(() => geminiFormat.requestToHub({ contents: [{ parts: [{ inlineData: { data: 'x' } }] }] }, ctx), 'contents[0].parts[0].inlineData needs a mimeType');
    badRequest(() => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { temperature: 'hot' } }, ctx), 'generationConfig.temperature must be a number');
    badRequest(() => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [{ description: 'no name' }] }] }, ctx), 'tools[0].functionDeclarations[0].name');
    badRequest(
      () => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [{ name: 'f' }] }], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } }, ctx),
      'toolConfig.functionCallingConfig.mode',
    );
    expect(() => geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }] }, {})).toThrow(/model is missing/);
  });

  it('accepts numbers written as strings, as proto3 JSON does', () => {
    expect(geminiFormat.requestToHub({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { maxOutputTokens: '64', temperature: '0.5' } }, ctx)).toMatchObject({
      max_tokens: 64,
      temperature: 0.5,
    });
  });
});

describe('schemaToJsonSchema', () => {
  it('lower-cases types, turns nullable into a null type and keeps property names', () => {
    expect(
      schemaToJsonSchema({
        type: 'OBJECT',
        properties: { first_name: { type: 'STRING', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['A_B'] }, min_items: 1 } },
        any_of: [{ type: 'INTEGER' }],
        property_ordering: ['first_name', 'tags'],
      }),
    ).toEqual({
      type: 'object',
      properties: { first_name: { type: ['string', 'null'] }, tags: { type: 'array', items: { type: 'string', enum: ['A_B'] }, minItems: 1 } },
      anyOf: [{ type: 'integer' }],
      propertyOrdering: ['first_name', 'tags'],
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
const hubBase = { id: 'chatcmpl-9', object: 'chat.completion' as const, created: 1700000000, model: 'gpt-4o' };

describe('client side: hub responses as Gemini responses', () => {
  it('writes a text reply exactly as generateContent answers', () => {
    const res: HubResponse = {
      ...hubBase,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    };
    expect(geminiFormat.responseFromHub(res, { model: 'gemini-2.5-flash' })).toEqual({
      candidates: [{ content: { parts: [{ text: 'Hello there' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
      modelVersion: 'gpt-4o',
      responseId: 'chatcmpl-9',
    });
  });

  it('writes tool calls as functionCall parts with parsed args, ids, and finishReason STOP', () => {
    const res: HubResponse = {
      ...hubBase,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking.',
            reasoning_content: 'Need weather.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
              { id: 'call_c', type: 'function', function: { name: 'broken', arguments: '{"city":"Par' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    };
    expect(geminiFormat.responseFromHub(res, { model: 'gemini-2.5-flash' })).toEqual({
      candidates: [
        {
          content: {
            parts: [
              { text: 'Need weather.', thought: true },
              { text: 'Checking.' },
              { functionCall: { id: 'call_a', name: 'get_weather', args: { city: 'Paris' } } },
              { functionCall: { id: 'call_b', name: 'get_time', args: {} } },
              { functionCall: { id: 'call_c', name: 'broken', args: { arguments: '{"city":"Par' } } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      modelVersion: 'gpt-4o',
      responseId: 'chatcmpl-9',
    });
  });

  it.each([
    ['length', 'MAX_TOKENS'],
    ['content_filter', 'SAFETY'],
    ['stop', 'STOP'],
  ] as const)('maps finish_reason %s to %s', (finish, reason) => {
    const res: HubResponse = { ...hubBase, choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: finish }] };
    const candidate = (geminiFormat.responseFromHub(res, { model: 'm' }) as { candidates: Record<string, unknown>[] }).candidates[0]!;
    expect(candidate.finishReason).toBe(reason);
    // A blocked reply has no content, as in Gemini; others keep an empty text part.
    expect(candidate.content).toEqual(finish === 'content_filter' ? undefined : { parts: [{ text: '' }], role: 'model' });
  });

  it('is read by the official client (text, usage, functionCalls)', async () => {
    const res: HubResponse = {
      ...hubBase,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Sure.', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    };
    const body = JSON.stringify(geminiFormat.responseFromHub(res, { model: 'gemini-2.5-flash' }));
    await withServer(
      (_req, out) => {
        out.writeHead(200, { 'content-type': 'application/json' });
        out.end(body);
      },
      async (root) => {
        const ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: root } });
        const reply = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' });
        expect(reply.functionCalls).toEqual([{ id: 'call_a', name: 'get_weather', args: { city: 'Oslo' } }]);
        expect(reply.usageMetadata?.totalTokenCount).toBe(7);
        expect(reply.candidates?.[0]?.content?.parts?.[0]?.text).toBe('Sure.');
      },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
const chunkBase = { id: 'chatcmpl-s', object: 'chat.completion.chunk' as const, created: 1700000000, model: 'gpt-4o' };
const chunk = (delta: HubChunk['choices'][0]['delta'], finish: HubChunk['choices'][0]['finish_reason'] = null, extra: Partial<HubChunk> = {}): HubChunk => ({
  ...chunkBase,
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

/** An OpenAI-style stream: text, a tool call whose arguments arrive in three deltas, finish, then usage. */
const openAiStyle: HubChunk[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Let me' }),
  chunk({ content: ' check.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Par' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
  chunk({}, 'tool_calls'),
  { ...chunkBase, choices: [], usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 } },
];

const textEvent = (text: string) => ({ candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }], modelVersion: 'gpt-4o', responseId: 'chatcmpl-s' });
const finalEvent = {
  candidates: [{ content: { parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }], role: 'model' }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 6, totalTokenCount: 15 },
  modelVersion: 'gpt-4o',
  responseId: 'chatcmpl-s',
};

describe('client side: hub streams as Gemini streams', () => {
  it('writes SSE (alt=sse): text as it comes, the tool call whole in the final event with STOP and usage', () => {
    const enc = geminiFormat.streamEncoder(sseCtx);
    expect(enc.contentType).toBe('text/event-stream');
    const written = openAiStyle.map((c) => enc.chunk(c));
    written.push(enc.end());
    const sse = (e: unknown) => `data: ${JSON.stringify(e)}\r\n\r\n`;
    expect(written).toEqual(['', sse(textEvent('Let me')), sse(textEvent(' check.')), '', '', '', '', '', sse(finalEvent), '']);
  });

  it('sends the final event at once when the finish chunk carries the usage', () => {
    const enc = geminiFormat.streamEncoder(sseCtx);
    const chunks = responseToChunks({
      ...hubBase,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    const last = enc.chunk(chunks.at(-1)!);
    expect(JSON.parse(last.slice('data: '.length))).toMatchObject({ candidates: [{ finishReason: 'MAX_TOKENS' }], usageMetadata: { totalTokenCount: 2 } });
    expect(enc.end()).toBe('');
  });

  it('writes one JSON array element by element without alt=sse', () => {
    const enc = geminiFormat.streamEncoder(arrayCtx);
    expect(enc.contentType).toBe('application/json');
    const text = openAiStyle.map((c) => enc.chunk(c)).join('') + enc.end();
    expect(text).toBe(`[${JSON.stringify(textEvent('Let me'))},\r\n${JSON.stringify(textEvent(' check.'))},\r\n${JSON.stringify(finalEvent)}]`);
    expect(JSON.parse(text)).toHaveLength(3);
    const empty = geminiFormat.streamEncoder(arrayCtx);
    expect(empty.end()).toBe('[]');
  });

  it('ends a stream that stops without a finish chunk with STOP, tool calls included', () => {
    const enc = geminiFormat.streamEncoder(sseCtx);
    enc.chunk(chunk({ tool_calls: [{ index: 0, id: 'call_9', function: { name: 'f', arguments: '{"a":1}' } }] }));
    const end = enc.end();
    expect(JSON.parse(end.slice('data: '.length)).candidates).toEqual([
      { content: { parts: [{ functionCall: { id: 'call_9', name: 'f', args: { a: 1 } } }], role: 'model' }, finishReason: 'STOP', index: 0 },
    ]);
  });

  it('writes a mid-stream error as Gemini does: an SSE event, or the next array element then ]', () => {
    const e = { status: 500, code: 'upstream_error', type: 'upstream_error', message: 'Provider "x" failed mid-stream.' };
    const errorJson = '{"error":{"code":500,"message":"Provider \\"x\\" failed mid-stream.","status":"INTERNAL","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_error","domain":"switchboard"}]}}';
    const sse = geminiFormat.streamEncoder(sseCtx);
    sse.chunk(openAiStyle[1]!);
    expect(sse.error(e)).toBe(`data: ${errorJson}\r\n\r\n`);
    expect(sse.chunk(openAiStyle[2]!)).toBe('');
    expect(sse.end()).toBe('');

    const array = geminiFormat.streamEncoder(arrayCtx);
    const text = array.chunk(openAiStyle[1]!) + array.error(e);
    expect(text).toBe(`[${JSON.stringify(textEvent('Let me'))},\r\n${errorJson}]`);
    expect(JSON.parse(text)[1].error.code).toBe(500);
    expect(geminiFormat.streamEncoder(arrayCtx).error(e)).toBe(`[${errorJson}]`);
  });

  it('is read by the official client: text, then the function call', async () => {
    const enc = geminiFormat.streamEncoder(sseCtx);
    const text = openAiStyle.map((c) => enc.chunk(c)).join('') + enc.end();
    await withServer(
      (req, out) => {
        expect(req.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
        out.writeHead(200, { 'content-type': enc.contentType });
        // Cut the bytes in the middle of the final event.
        out.write(text.slice(0, text.length - 40));
        setTimeout(() => out.end(text.slice(text.length - 40)), 10);
      },
      async (root) => {
        const ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: root } });
        const texts: string[] = [];
        const calls: unknown[] = [];
        for await (const r of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'x' })) {
          if (r.text) texts.push(r.text);
          calls.push(...(r.functionCalls ?? []));
        }
        expect(texts.join('')).toBe('Let me check.');
        expect(calls).toEqual([{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }]);
      },
    );
  });
});

describe('client side: error bodies', () => {
  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [502, 'UNAVAILABLE'],
    [503, 'UNAVAILABLE'],
    [504, 'DEADLINE_EXCEEDED'],
  ])('answers HTTP %i with status %s', (status, name) => {
    expect(geminiFormat.errorBody({ status, code: 'c', type: 't', message: 'Boom.' })).toEqual({
      error: { code: status, message: 'Boom.', status: name, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'c', domain: 'switchboard' }] },
    });
  });

  it('puts the suggested action after the message, where Gemini clients show it', () => {
    const body = geminiFormat.errorBody({ status: 503, code: 'no_healthy_provider', type: 'upstream_error', message: 'No provider is healthy.', action: 'Check the providers.' });
    expect(geminiFormat.errorMessage(body)).toBe('No provider is healthy. Check the providers.');
  });
});

// ---------------------------------------------------------------------------------------------------------------
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
          { id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_r', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_p', content: '{"temp_c":21}' },
      { role: 'tool', tool_call_id: 'call_r', content: 'sunny, 25 °C' },
      { role: 'user', content: 'Which is warmer?' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } } }],
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

  it('writes system, turns (merged where roles repeat), results by function name, media, tools and config', () => {
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
            { name: 'get_weather', description: 'Weather for a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } },
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
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
      },
    });
  });

  it('signs replayed function calls for models after Gemini 2 (Gemini 3 refuses unsigned ones)', () => {
    const body = geminiFormat.requestFromHub({ ...conversation, model: 'gemini-3-pro-preview' }) as { contents: { parts: Record<string, unknown>[] }[] };
    const calls = body.contents[1]!.parts.filter((p) => p.functionCall);
    expect(calls.map((p) => p.thoughtSignature)).toEqual([SKIP_THOUGHT_SIGNATURE, SKIP_THOUGHT_SIGNATURE]);
    const old = geminiFormat.requestFromHub({ ...conversation, model: 'models/gemini-2.0-flash' }) as { contents: { parts: Record<string, unknown>[] }[] };
    expect(old.contents[1]!.parts.some((p) => 'thoughtSignature' in p)).toBe(false);
  });

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    [{ type: 'function', function: { name: 'get_weather' } }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
  ] as const)('maps tool_choice %j to %j', (choice, config) => {
    expect((geminiFormat.requestFromHub({ ...conversation, tool_choice: choice }) as { toolConfig: unknown }).toolConfig).toEqual({ functionCallingConfig: config });
  });

  it('keeps tool arguments that are not a JSON object, and takes a result name from the tool message', () => {
    const body = geminiFormat.requestFromHub({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":' } }] },
        { role: 'tool', tool_call_id: 'c-unknown', name: 'g', content: [{ type: 'text', text: '[1,2]' }] },
      ],
    }) as { contents: { parts: unknown[] }[] };
    expect(body.contents[1]!.parts).toEqual([{ functionCall: { name: 'f', args: { arguments: '{"a":' } } }]);
    expect(body.contents[2]!.parts).toEqual([{ functionResponse: { name: 'g', response: { output: '[1,2]' } } }]);
  });

  it('refuses a tool result whose call it cannot name', () => {
    badRequest(
      () => geminiFormat.requestFromHub({ model: 'm', messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'nope', content: 'r' }] }),
      'messages[1].tool_call_id "nope"',
    );
  });

  it('builds the provider path below base_url', () => {
    expect(geminiChatPath('gemini-2.5-flash', false)).toBe('/models/gemini-2.5-flash:generateContent');
    expect(geminiChatPath('models/gemini-2.5-flash', true)).toBe('/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });
});

describe('provider side: Gemini responses as hub responses', () => {
  it('reads text, thoughts and usage (thought tokens count as completion tokens)', () => {
    const res = geminiFormat.responseToHub(
      {
        candidates: [{ content: { parts: [{ text: 'Thinking…', thought: true }, { text: 'Hello' }, { text: ' there' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, thoughtsTokenCount: 10, totalTokenCount: 16 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'r-1',
      },
      'gemini-2.5-flash',
    );
    expect(res).toEqual({
      id: 'r-1',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gemini-2.5-flash',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there', reasoning_content: 'Thinking…' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 12, total_tokens: 16 },
    });
  });

  it('reads function calls as tool_calls with minted ids (or Gemini ids) and finish_reason tool_calls', () => {
    const res = geminiFormat.responseToHub(
      {
        candidates: [
          {
            content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'abc' }, { functionCall: { id: 'g-7', name: 'get_time' } }], role: 'model' },
            finishReason: 'STOP',
            index: 0,
          },
        ],
      },
      'gemini-2.5-flash',
    );
    const message = res.choices[0]!.message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'g-7', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.model).toBe('gemini-2.5-flash');
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    ['OTHER', 'stop'],
  ])('maps finishReason %s to %s', (reason, finish) => {
    expect(geminiFormat.responseToHub({ candidates: [{ finishReason: reason, index: 0 }] }, 'm').choices[0]!.finish_reason).toBe(finish);
  });

  it('reads a blocked prompt (no candidates) as content_filter', () => {
    const res = geminiFormat.responseToHub({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } }, 'm');
    expect(res.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' }]);
    expect(res.usage).toEqual({ prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 });
  });

  it('raises an error body given as a response', () => {
    expect(() => geminiFormat.responseToHub({ error: { code: 429, message: 'Quota.', status: 'RESOURCE_EXHAUSTED' } }, 'm')).toThrow(UpstreamStreamError);
  });

  it('reads the message of Gemini error bodies: object, JSON-stream array, text', () => {
    const body = { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } };
    expect(geminiFormat.errorMessage(body)).toBe('API key not valid.');
    expect(geminiFormat.errorMessage([body])).toBe('API key not valid.');
    expect(geminiFormat.errorMessage(JSON.stringify(body, null, 2))).toBe('API key not valid.');
    expect(geminiFormat.errorMessage('<html>Bad gateway</html>')).toBeUndefined();
    expect(geminiFormat.errorMessage({ error: 'x' })).toBeUndefined();
  });
});

describe('provider side: Gemini SSE streams as hub chunks', () => {
  // Shapes as generativelanguage.googleapis.com sends them (alt=sse, events ended by \r\n\r\n).
  const events = [
    {
      candidates: [{ content: { parts: [{ text: 'Let me' }], role: 'model' }, index: 0 }],
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'resp-1',
    },
    {
      candidates: [
        {
          content: {
            parts: [
              { text: ' check.' },
              { functionCall: { name: 'get_weather', args: { city: 'Paris', when: { day: 'today' } } }, thoughtSignature: 'CikB' },
              { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 14, thoughtsTokenCount: 4, totalTokenCount: 27 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'resp-1',
    },
  ];
  const wire = events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join('');

  it('emits role, text, each functionCall as one complete tool call delta, then finish with usage', () => {
    const dec = geminiFormat.streamDecoder('gemini-2.5-flash');
    const chunks = [...dec.push(wire), ...dec.end()];
    const base = { id: 'resp-1', object: 'chat.completion.chunk', created: expect.any(Number), model: 'gemini-2.5-flash' };
    expect(chunks).toEqual([
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: 'Let me' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: ' check.' }, finish_reason: null }] },
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","when":{"day":"today"}}' } }] },
            finish_reason: null,
          },
        ],
      },
      {
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] }, finish_reason: null }],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 9, completion_tokens: 18, total_tokens: 27 } },
    ]);
  });

  it('loses nothing when the bytes are cut at any position', () => {
    const whole = foldChunks((() => {
      const d = geminiFormat.streamDecoder('m');
      return [...d.push(wire), ...d.end()];
    })());
    for (let cut = 1; cut < wire.length; cut++) {
      const dec = geminiFormat.streamDecoder('m');
      const folded = foldChunks([...dec.push(wire.slice(0, cut)), ...dec.push(wire.slice(cut)), ...dec.end()]);
      expect(folded.choices[0]!.message.content).toBe('Let me check.');
      expect(folded.choices[0]!.message.tool_calls?.map((c) => c.function.arguments)).toEqual(['{"city":"Paris","when":{"day":"today"}}', '{"city":"Rome"}']);
      expect(folded.choices[0]!.finish_reason).toBe(whole.choices[0]!.finish_reason);
      expect(folded.usage).toEqual(whole.usage);
    }
  });

  it('raises an error event as UpstreamStreamError with its HTTP code', () => {
    const dec = geminiFormat.streamDecoder('m');
    dec.push(`data: ${JSON.stringify(events[0])}\r\n\r\n`);
    let caught: unknown;
    try {
      dec.push('data: {"error":{"code":429,"message":"Resource has been exhausted.","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(UpstreamStreamError);
    expect(caught).toMatchObject({ message: 'Resource has been exhausted.', status: 429, code: 'upstream_rate_limited' });
  });

  it('raises a pretty-printed JSON error written outside SSE framing', () => {
    const body = '[{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded.",\n    "status": "UNAVAILABLE"\n  }\n}\n]';
    const dec = geminiFormat.streamDecoder('m');
    expect(() => {
      for (const ch of body) dec.push(ch);
      dec.end();
    }).toThrow('The model is overloaded.');
    const mid = geminiFormat.streamDecoder('m');
    mid.push(`data: ${JSON.stringify(events[0])}\r\n\r\n`);
    expect(() => mid.push('{\n  "error": {\n    "code": 500,\n    "message": "Internal error.",\n    "status": "INTERNAL"\n  }\n}\n')).toThrow(
      UpstreamStreamError,
    );
  });

  it('raises an empty stream, and ends a stream without finishReason with a finish chunk', () => {
    expect(() => geminiFormat.streamDecoder('m').end()).toThrow(UpstreamStreamError);
    const dec = geminiFormat.streamDecoder('m');
    const chunks = [...dec.push(`data: ${JSON.stringify(events[0])}\r\n\r\n`), ...dec.end()];
    expect(chunks.at(-1)).toMatchObject({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 9 } });
  });

  it('reads a blocked prompt as content_filter', () => {
    const dec = geminiFormat.streamDecoder('m');
    const folded = foldChunks([...dec.push('data: {"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5}}\r\n\r\n'), ...dec.end()]);
    expect(folded.choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'content_filter' });
    expect(folded.usage?.prompt_tokens).toBe(5);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('countTokens and the model list', () => {
  it('estimates a quarter of the characters plus 258 per media part, in either casing', () => {
    expect(countTokens({ contents: [{ parts: [{ text: 'abcdefgh' }, { text: 'ij' }] }] })).toEqual({ totalTokens: 3 });
    expect(countTokens({ contents: [{ parts: [{ text: 'abcd' }, { inline_data: { mime_type: 'image/png', data: 'x' } }] }] })).toEqual({ totalTokens: 259 });
    const request = { contents: [{ parts: [{ text: 'abcd' }] }], systemInstruction: { parts: [{ text: 'efgh' }] }, tools: [{ functionDeclarations: [{ name: 'f' }] }] };
    expect(countTokens({ generateContentRequest: { model: 'models/x', ...request } })).toEqual({ totalTokens: Math.ceil((8 + JSON.stringify([{ name: 'f' }]).length) / 4) });
    badRequest(() => countTokens('x'), 'countTokens body');
  });

  it('lists models as GET /v1beta/models does', () => {
    expect(geminiModelList(['gemini-2.5-flash', 'models/gpt-4o'])).toEqual({
      models: [
        {
          name: 'models/gemini-2.5-flash',
          version: '001',
          displayName: 'gemini-2.5-flash',
          inputTokenLimit: 1048576,
          outputTokenLimit: 65536,
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
        expect.objectContaining({ name: 'models/gpt-4o', displayName: 'gpt-4o' }),
      ],
    });
  });
});

/** Serves one handler on a loopback port for the official client; the root URL is passed to `use`. */
async function withServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, use: (root: string) => Promise<void>): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    await use(`http://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
