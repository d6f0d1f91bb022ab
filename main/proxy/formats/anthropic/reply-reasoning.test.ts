// Client side: a translated provider's reasoning written as thinking blocks (replies and streams, read by the
// official SDK), and a stream's usage: the request's estimate in message_start, the provider's exact counts (cache
// and thinking tokens included) in message_delta.
import { describe, expect, it } from 'vitest';
import { encodeStream } from '../conformance.case.ts';
import { chunkMaker, hubReply } from '../fixtures.test-helper.ts';
import { foldChunks, type HubChunk, type HubUsage, type ReplyContext } from '../hub/index.ts';
import { base, ctx, decode, sdkAnswering } from './fixtures.test-helper.ts';
import { anthropicFormat, countTokens } from './index.ts';

const chunk = chunkMaker(base);
const SIGNATURE = 'switchboard-translated-reasoning';
const usage: HubUsage = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  total_tokens: 1500,
  prompt_tokens_details: { cached_tokens: 1000 },
  completion_tokens_details: { reasoning_tokens: 120 },
};
const ask = { model: 'claude-test-1', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Why?' }] };

/** The SSE text's events as parsed data. */
const eventsOf = (text: string): { type: string; [k: string]: unknown }[] =>
  text
    .trim()
    .split('\n\n')
    .map((e) => JSON.parse(e.split('\ndata: ')[1]!) as { type: string });

describe('client side: reasoning → thinking blocks', () => {
  it('writes reasoning_content as a signed thinking block before the text (non-stream), read by the SDK', async () => {
    const res = hubReply(base, { content: 'Because.', reasoning_content: 'The user asks why.' }, 'stop', usage);
    const body = anthropicFormat.responseFromHub(res, ctx);
    const msg = await sdkAnswering(JSON.stringify(body), 'application/json').messages.create(ask);
    expect(msg.content).toEqual([
      { type: 'thinking', thinking: 'The user asks why.', signature: SIGNATURE },
      { type: 'text', text: 'Because.' },
    ]);
    expect(msg.usage).toEqual({
      input_tokens: 200,
      output_tokens: 300,
      cache_read_input_tokens: 1000,
      output_tokens_details: { thinking_tokens: 120 },
    });
  });

  it('streams reasoning as thinking_delta, then a signature_delta before the block stops', () => {
    const text = encodeStream(
      anthropicFormat,
      [
        chunk({ role: 'assistant', content: '' }),
        chunk({ reasoning_content: 'Think' }),
        chunk({ reasoning_content: 'ing.' }),
        chunk({ content: 'Done.' }),
        chunk({}, 'stop', usage),
      ],
      ctx,
    );
    expect(eventsOf(text).slice(2, 9)).toEqual([
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Think' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'ing.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Done.' } },
    ]);
    // And back: Switchboard's own decoder reads the thinking block as reasoning again.
    expect(foldChunks(decode(text)).choices[0]?.message).toMatchObject({
      content: 'Done.',
      reasoning_content: 'Thinking.',
    });
  });

  it('closes a thinking block before a tool call, and the SDK keeps both', async () => {
    const text = encodeStream(
      anthropicFormat,
      [
        chunk({ reasoning_content: 'Need the weather.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'w', arguments: '{}' } }] }),
        chunk({}, 'tool_calls', usage),
      ],
      ctx,
    );
    const msg = await sdkAnswering(text, 'text/event-stream').messages.stream(ask).finalMessage();
    expect(msg.content).toEqual([
      { type: 'thinking', thinking: 'Need the weather.', signature: SIGNATURE },
      { type: 'tool_use', id: 'call_1', name: 'w', input: {} },
    ]);
    expect(msg.stop_reason).toBe('tool_use');
  });
});

describe("client side: a stream's usage", () => {
  const body = {
    model: 'claude-test-1',
    max_tokens: 100,
    stream: true,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'What is the weather like in Paris today, please?' }],
  };
  const chunks: HubChunk[] = [chunk({ content: 'Sunny.' }), chunk({}, 'stop', usage)];

  /** The stream the client gets for `body` through the format (its reply context carries the request, as the door's). */
  const stream = (): string => {
    const replyCtx: ReplyContext = { model: 'claude-test-1', request: anthropicFormat.requestToHub(body, {}) };
    return encodeStream(anthropicFormat, chunks, replyCtx);
  };

  it("starts with the request's count_tokens estimate as input_tokens (not 0)", () => {
    const start = eventsOf(stream())[0] as unknown as { message: { usage: unknown } };
    const estimate = countTokens(body).input_tokens;
    expect(estimate).toBeGreaterThan(0);
    expect(start.message.usage).toEqual({ input_tokens: estimate, output_tokens: 0 });
  });

  it("ends with the provider's exact counts in message_delta: cache reads and thinking tokens", () => {
    const delta = eventsOf(stream()).at(-2);
    expect(delta).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: {
        input_tokens: 200,
        output_tokens: 300,
        cache_read_input_tokens: 1000,
        output_tokens_details: { thinking_tokens: 120 },
      },
    });
  });

  it("gives the SDK's final message the provider's counts, the estimate replaced", async () => {
    const msg = await sdkAnswering(stream(), 'text/event-stream').messages.stream(ask).finalMessage();
    expect(msg.usage).toMatchObject({
      input_tokens: 200,
      output_tokens: 300,
      cache_read_input_tokens: 1000,
      output_tokens_details: { thinking_tokens: 120 },
    });
  });

  it('keeps the estimate when the provider reports no usage', async () => {
    const replyCtx: ReplyContext = { model: 'm', request: anthropicFormat.requestToHub(body, {}) };
    const text = encodeStream(anthropicFormat, [chunk({ content: 'Sunny.' }), chunk({}, 'stop')], replyCtx);
    const msg = await sdkAnswering(text, 'text/event-stream').messages.stream(ask).finalMessage();
    expect(msg.usage.input_tokens).toBe(countTokens(body).input_tokens);
  });
});
