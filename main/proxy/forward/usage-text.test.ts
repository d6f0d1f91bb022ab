// Token counts read from a passed-through reply in each format, in the hub's sense (prompt with cache reads and
// writes, completion with reasoning). The replies are hand-written, modelled on each vendor's documented usage shape:
// OpenAI chat's usage with prompt_tokens_details / completion_tokens_details (platform.openai.com API reference,
// "The chat completion object"), the Responses API's input_tokens_details / output_tokens_details, Anthropic's
// message_start / message_delta events (docs.anthropic.com, "Streaming Messages" and "Prompt caching"), Gemini's
// usageMetadata with cachedContentTokenCount and thoughtsTokenCount (ai.google.dev, GenerateContentResponse), and
// Ollama's prompt_eval_count / eval_count.
import { describe, expect, it } from 'vitest';
import { usageFromText, usageOfHub } from './usage-text.ts';

const sse = (events: [string, object][]) =>
  events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');

describe('usageFromText', () => {
  it('OpenAI chat: the last chunk’s usage, cached and reasoning tokens within the totals', () => {
    const text =
      'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n' +
      'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":300,"total_tokens":1500,' +
      '"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},' +
      '"completion_tokens_details":{"reasoning_tokens":128,"audio_tokens":0}}}\n\ndata: [DONE]\n\n';
    expect(usageFromText(text)).toEqual({
      prompt: 1200,
      completion: 300,
      cacheRead: 1024,
      cacheWrite: null,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: 128,
    });
  });

  it('Responses: input_tokens with its cached details, output_tokens with its reasoning', () => {
    const text = JSON.stringify({
      id: 'resp_1',
      object: 'response',
      usage: {
        input_tokens: 900,
        input_tokens_details: { cached_tokens: 512 },
        output_tokens: 80,
        output_tokens_details: { reasoning_tokens: 64 },
        total_tokens: 980,
      },
    });
    expect(usageFromText(text)).toEqual({
      prompt: 900,
      completion: 80,
      cacheRead: 512,
      cacheWrite: null,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: 64,
    });
  });

  it('Anthropic: cache reads and writes apart from input_tokens are added to the prompt', () => {
    const whole = JSON.stringify({
      type: 'message',
      usage: { input_tokens: 50, cache_creation_input_tokens: 2048, cache_read_input_tokens: 4096, output_tokens: 120 },
    });
    expect(usageFromText(whole)).toEqual({
      prompt: 6194,
      completion: 120,
      cacheRead: 4096,
      cacheWrite: 2048,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: null,
    });
  });

  it('Anthropic stream: the prompt’s counts from message_start (the head), the output from message_delta (the tail)', () => {
    const head = sse([
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_1',
            usage: {
              input_tokens: 25,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 1800,
              output_tokens: 1,
            },
          },
        },
      ],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ]);
    const tail = sse([
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 700 } }],
      ['message_stop', { type: 'message_stop' }],
    ]);
    expect(usageFromText(tail, head)).toEqual({
      prompt: 1825,
      completion: 700,
      cacheRead: 1800,
      cacheWrite: 0,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: null,
    });
  });

  it("Anthropic: the cache writes' 5-minute / 1-hour split (cache_creation), from message_start", () => {
    // docs.anthropic.com, "Prompt caching" (1-hour cache duration): usage.cache_creation holds
    // ephemeral_5m_input_tokens and ephemeral_1h_input_tokens, which add up to cache_creation_input_tokens.
    const head = sse([
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_2',
            usage: {
              input_tokens: 30,
              cache_creation_input_tokens: 2500,
              cache_read_input_tokens: 0,
              cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 2000 },
              output_tokens: 1,
            },
          },
        },
      ],
    ]);
    const tail = sse([['message_delta', { type: 'message_delta', delta: {}, usage: { output_tokens: 9 } }]]);
    expect(usageFromText(tail, head)).toEqual({
      prompt: 2530,
      completion: 9,
      cacheRead: 0,
      cacheWrite: 2500,
      cacheWrite5m: 500,
      cacheWrite1h: 2000,
      reasoning: null,
    });
    expect(usageFromText(head + tail)).toEqual(usageFromText(tail, head)); // a short stream: all of it in the tail
  });

  it('Gemini: thoughts are apart from the candidates (added to the completion), the cache within the prompt', () => {
    const text =
      'data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":400,"totalTokenCount":400}}\r\n\r\n' +
      'data: {"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":400,' +
      '"candidatesTokenCount":30,"totalTokenCount":530,"cachedContentTokenCount":256,"thoughtsTokenCount":100}}\r\n\r\n';
    expect(usageFromText(text)).toEqual({
      prompt: 400,
      completion: 130,
      cacheRead: 256,
      cacheWrite: null,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: 100,
    });
  });

  it('Ollama: prompt_eval_count and eval_count', () => {
    const text =
      '{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":26,"eval_count":290}\n';
    expect(usageFromText(text)).toEqual({
      prompt: 26,
      completion: 290,
      cacheRead: null,
      cacheWrite: null,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: null,
    });
  });

  it('a reply without counts has none', () => {
    expect(usageFromText('data: {"choices":[]}\n\n')).toEqual({
      prompt: null,
      completion: null,
      cacheRead: null,
      cacheWrite: null,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: null,
    });
  });
});

describe('usageOfHub', () => {
  it('carries the hub usage’s details', () => {
    expect(
      usageOfHub({
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 3 },
      }),
    ).toEqual({
      prompt: 10,
      completion: 5,
      cacheRead: 4,
      cacheWrite: 2,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: 3,
    });
  });
});
