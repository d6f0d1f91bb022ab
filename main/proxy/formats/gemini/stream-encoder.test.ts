// Client side: hub streams as Gemini streams (SSE or the JSON array), read by the official client.
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { responseToChunks } from '../conformance.case.ts';
import { chunkMaker, hubReply, upstreamError, usageChunk, withServer } from '../fixtures.test-helper.ts';
import type { HubChunk } from '../hub/index.ts';
import { hubBase } from './fixtures.test-helper.ts';
import { geminiFormat } from './index.ts';

const sseCtx = { model: 'gemini-2.5-flash', pathStream: true, query: new URLSearchParams('alt=sse') };
const arrayCtx = { model: 'gemini-2.5-flash', pathStream: true, query: new URLSearchParams() };

const chunkBase = { id: 'chatcmpl-s', created: 1700000000, model: 'gpt-4o' };
const chunk = chunkMaker(chunkBase);

/** An OpenAI-style stream: text, a tool call whose arguments arrive in three deltas, finish, then usage. */
const openAiStyle: HubChunk[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Let me' }),
  chunk({ content: ' check.' }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Par' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
  chunk({}, 'tool_calls'),
  usageChunk(chunkBase, { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 }),
];

const textEvent = (text: string) => ({
  candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }],
  modelVersion: 'gpt-4o',
  responseId: 'chatcmpl-s',
});
const finalEvent = {
  candidates: [
    {
      content: {
        parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }],
        role: 'model',
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
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
    expect(written).toEqual([
      '',
      sse(textEvent('Let me')),
      sse(textEvent(' check.')),
      '',
      '',
      '',
      '',
      '',
      sse(finalEvent),
      '',
    ]);
  });

  it('sends the final event at once when the finish chunk carries the usage', () => {
    const enc = geminiFormat.streamEncoder(sseCtx);
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    const chunks = responseToChunks(hubReply(hubBase, { content: 'Hi' }, 'length', usage));
    const last = enc.chunk(chunks.at(-1)!);
    expect(JSON.parse(last.slice('data: '.length))).toMatchObject({
      candidates: [{ finishReason: 'MAX_TOKENS' }],
      usageMetadata: { totalTokenCount: 2 },
    });
    expect(enc.end()).toBe('');
  });

  it('writes one JSON array element by element without alt=sse', () => {
    const enc = geminiFormat.streamEncoder(arrayCtx);
    expect(enc.contentType).toBe('application/json');
    const text = openAiStyle.map((c) => enc.chunk(c)).join('') + enc.end();
    expect(text).toBe(
      `[${JSON.stringify(textEvent('Let me'))},\r\n${JSON.stringify(textEvent(' check.'))},\r\n` +
        `${JSON.stringify(finalEvent)}]`,
    );
    expect(JSON.parse(text)).toHaveLength(3);
    const empty = geminiFormat.streamEncoder(arrayCtx);
    expect(empty.end()).toBe('[]');
  });

  it('ends a stream that stops without a finish chunk with STOP, tool calls included', () => {
    const enc = geminiFormat.streamEncoder(sseCtx);
    enc.chunk(chunk({ tool_calls: [{ index: 0, id: 'call_9', function: { name: 'f', arguments: '{"a":1}' } }] }));
    const end = enc.end();
    expect(JSON.parse(end.slice('data: '.length)).candidates).toEqual([
      {
        content: { parts: [{ functionCall: { id: 'call_9', name: 'f', args: { a: 1 } } }], role: 'model' },
        finishReason: 'STOP',
        index: 0,
      },
    ]);
  });

  it('writes a mid-stream error as Gemini does: an SSE event, or the next array element then ]', () => {
    const e = upstreamError('Provider "x" failed mid-stream.', 500);
    const errorJson =
      '{"error":{"code":500,"message":"Provider \\"x\\" failed mid-stream.","status":"INTERNAL","details":' +
      '[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_error","domain":"switchboard"}]}}';
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
