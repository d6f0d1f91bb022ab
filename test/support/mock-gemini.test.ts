// The Gemini mock, driven by the official @google/genai client so tests that use it test against Gemini's habits.
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { geminiFormat } from '../../main/proxy/formats/gemini/index.ts';
import { foldChunks } from '../../main/proxy/formats/hub/index.ts';
import { withMock } from './lifecycle.ts';
import { startMockGemini } from './mock-gemini.ts';

const mock = withMock(
  startMockGemini,
  (m) => new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: m.rootUrl } }),
);

const weatherTool = {
  functionDeclarations: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
};
type ErrorJson = { error: { code: number; message: string; status: string } };

const toolCall = { name: 'get_weather', arguments: { city: 'Paris', units: { temp: 'C' } } };

async function collect(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const out: GenerateContentResponse[] = [];
  for await (const r of stream) out.push(r);
  return out;
}

describe('mock gemini: the official client, non-stream', () => {
  it('answers generateContent with text naming the provider, and records path, body and key', async () => {
    const { mock: m, client: ai } = await mock({ name: 'alpha' });
    const res = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'hi',
      config: { temperature: 0.2 },
    });

    expect(res.text).toBe('Hello from alpha');
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    expect(res.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 });
    expect(res.modelVersion).toBe('gemini-2.5-flash');
    expect(res.responseId).toMatch(/^mockresp\d+alpha$/);

    expect(m.chatCount()).toBe(1);
    const r = m.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(r.apiKey).toBe('test-key');
    expect(r.headers['x-goog-api-key']).toBe('test-key');
    expect(r.body).toEqual({
      contents: [{ parts: [{ text: 'hi' }], role: 'user' }],
      generationConfig: { temperature: 0.2 },
    });
  });

  it("refuses, as Gemini 2.5 does, a JSON mime type beside functions and gemini-2.5-pro's thinkingBudget 0", async () => {
    const { client: ai } = await mock({ name: 'strict' });
    const json = await ai.models
      .generateContent({
        model: 'gemini-2.5-flash',
        contents: 'hi',
        config: { tools: [weatherTool], responseMimeType: 'application/json' },
      })
      .catch((e: unknown) => e);
    expect(json).toBeInstanceOf(ApiError);
    expect((json as ApiError).status).toBe(400);
    expect((json as Error).message).toContain("Function calling with a response mime type: 'application/json'");
    const off = await ai.models
      .generateContent({ model: 'gemini-2.5-pro', contents: 'hi', config: { thinkingConfig: { thinkingBudget: 0 } } })
      .catch((e: unknown) => e);
    expect((off as Error).message).toContain('only works in thinking mode');
    const least = await ai.models.generateContent({
      model: 'gemini-2.5-pro',
      contents: 'hi',
      config: { thinkingConfig: { thinkingBudget: 128 } },
    });
    expect(least.text).toBe('Hello from strict');
  });

  it('replies with a function call that response.functionCalls reads', async () => {
    const { mock: m, client: ai } = await mock({ behavior: { toolCall } });
    const res = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather in Paris?',
      config: { tools: [weatherTool] },
    });
    expect(res.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris', units: { temp: 'C' } } }]);
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    expect(m.requests[0]?.body.tools).toEqual([weatherTool]);
  });
});

describe('mock gemini: the official client, stream', () => {
  it('streams one event per token over :streamGenerateContent?alt=sse; the last carries STOP and usage', async () => {
    const { mock: m, client: ai } = await mock({ name: 'beta', behavior: { chunkDelayMs: 5 } });
    const events = await collect(await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' }));

    expect(m.requests[0]?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(events.map((e) => e.text)).toEqual(['Hello', ' from', ' beta']);
    expect(events.map((e) => e.candidates?.[0]?.finishReason)).toEqual([undefined, undefined, 'STOP']);
    expect(events.at(-1)?.usageMetadata).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 3,
      totalTokenCount: 13,
    });
    expect(new Set(events.map((e) => e.responseId)).size).toBe(1);
  });

  it('streams a function call whole, its bytes cut inside the arguments', async () => {
    const { client: ai } = await mock({ behavior: { toolCall, chunkDelayMs: 5 } });
    const events = await collect(
      await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'Weather?',
        config: { tools: [weatherTool] },
      }),
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris', units: { temp: 'C' } } }]);
    expect(events[0]?.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('breaks the connection after failAfterChunks events', async () => {
    const { client: ai } = await mock({ behavior: { failAfterChunks: 2 } });
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const e of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' }))
          got.push(e.text ?? '');
      })(),
    ).rejects.toThrow();
    expect(got).toEqual(['Hello', ' from']);
  });
});

describe('mock gemini: raw wire', () => {
  it('writes the SSE bytes Gemini writes, which the gemini format decodes', async () => {
    const { mock: m } = await mock({ name: 'gamma', behavior: { tokens: ['a', 'b'] } });
    const res = await fetch(`${m.baseUrl}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    const events = text.split('\r\n\r\n');
    expect(events.pop()).toBe('');
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[0]!.slice('data: '.length))).toEqual({
      candidates: [{ content: { parts: [{ text: 'a' }], role: 'model' }, index: 0 }],
      usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
      modelVersion: 'gemini-2.5-flash',
      responseId: expect.stringMatching(/^mockresp/),
    });
    const decoder = geminiFormat.streamDecoder('gemini-2.5-flash');
    const folded = foldChunks([...decoder.push(text), ...decoder.end()]);
    expect(folded.choices[0]).toMatchObject({ message: { content: 'ab' }, finish_reason: 'stop' });
    expect(folded.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 });
  });

  it('writes the JSON-array stream without alt=sse, and records ?key=', async () => {
    const { mock: m } = await mock({ behavior: { tokens: ['a', 'b'] } });
    const res = await fetch(`${m.baseUrl}/models/gemini-2.5-flash:streamGenerateContent?key=qk`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await res.text();
    expect(text.startsWith('[{"candidates"')).toBe(true);
    expect(text.split(',\r\n{')).toHaveLength(2);
    expect(text.endsWith('}]')).toBe(true);
    const array = JSON.parse(text) as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(array.map((e) => e.candidates[0]?.content.parts[0]?.text)).toEqual(['a', 'b']);
    expect(m.requests[0]?.apiKey).toBe('qk');
  });

  it('lists its models as GET /v1beta/models does, through the official client', async () => {
    const { mock: m, client: ai } = await mock({ behavior: { models: ['gemini-2.5-flash', 'gemini-2.5-pro'] } });
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? '');
    expect(names).toEqual(['models/gemini-2.5-flash', 'models/gemini-2.5-pro']);
    expect(m.requests[0]?.url).toMatch(/^\/v1beta\/models(\?|$)/);
    expect(m.chatCount()).toBe(0);
  });
});

describe('mock gemini: failures', () => {
  it('answers status with a Gemini error body for failTimes requests, then succeeds', async () => {
    const { mock: m, client: ai } = await mock({ behavior: { status: 429, failTimes: 1 } });
    const err = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    expect((err as ApiError).message).toContain('RESOURCE_EXHAUSTED');
    expect((await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text).toBe(
      'Hello from mock',
    );
    expect(m.chatCount()).toBe(2);
  });

  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [503, 'UNAVAILABLE'],
  ] as const)('answers %i with status %s, on streams too', async (status, name) => {
    const { mock: m, client: ai } = await mock({ behavior: { status } });
    const err = await ai.models
      .generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(status);
    const res = await fetch(`${m.baseUrl}/models/x:generateContent`, { method: 'POST', body: '{"contents":[]}' });
    const body = (await res.json()) as ErrorJson;
    expect(body).toEqual({ error: { code: status, message: expect.any(String), status: name } });
    expect(geminiFormat.errorMessage(body)).toBe(body.error.message);
  });

  it('wraps the error in an array on the JSON-array stream', async () => {
    const { mock: m } = await mock({ behavior: { status: 429 } });
    const res = await fetch(`${m.baseUrl}/models/x:streamGenerateContent`, {
      method: 'POST',
      body: '{"contents":[{"parts":[{"text":"hi"}]}]}',
    });
    expect(res.status).toBe(429);
    const body = (await res.json()) as ErrorJson[];
    expect(body).toEqual([{ error: { code: 429, message: expect.any(String), status: 'RESOURCE_EXHAUSTED' } }]);
    expect(geminiFormat.errorMessage(body)).toBe(body[0]?.error.message);
  });

  it('refuses a request without contents, and unknown paths, as Gemini does', async () => {
    const { mock: m } = await mock();
    const noContents = await fetch(`${m.baseUrl}/models/x:generateContent`, { method: 'POST', body: '{}' });
    expect(noContents.status).toBe(400);
    expect(((await noContents.json()) as ErrorJson).error.status).toBe('INVALID_ARGUMENT');
    const unknown = await fetch(`${m.baseUrl}/chat/completions`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ErrorJson).error.status).toBe('NOT_FOUND');
    expect(m.chatCount()).toBe(1);
  });

  it('setBehavior changes later replies', async () => {
    const { mock: m, client: ai } = await mock({ name: 'delta' });
    m.setBehavior({ tokens: ['changed'] });
    expect((await ai.models.generateContent({ model: 'm', contents: 'hi' })).text).toBe('changed');
  });
});

describe('mock gemini: several function calls', () => {
  it('answers toolCalls as functionCall parts of one candidate, whole and streamed', async () => {
    const calls = [
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ];
    const { client } = await mock({ behavior: { toolCalls: calls } });
    const whole = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(whole.functionCalls?.map((c) => [c.name, c.args])).toEqual(calls.map((c) => [c.name, c.arguments]));
    const streamed: unknown[] = [];
    for await (const c of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' }))
      for (const f of c.functionCalls ?? []) streamed.push(f.args);
    expect(streamed).toEqual(calls.map((c) => c.arguments));
  });
});
