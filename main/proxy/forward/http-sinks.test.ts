// The passthrough sink over a real socket (issue 17, per-stream memory): a long stream of small events reaches the
// client byte for byte, its usage is still read from the first and last few KB, and what the sink keeps for that
// stays a few buffers however many events went by (it kept every event of the last 4 KB and the first 4 KB before).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { openaiFormat } from '../formats/openai/index.ts';
import { PassthroughSink } from './http-sinks.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Serves one reply through a PassthroughSink fed `events` one by one; resolves with the sink once it ended. */
async function throughSink(
  events: string[],
  contentType = 'text/event-stream',
): Promise<{ received: string; sink: PassthroughSink; held: number[] }> {
  let done!: (s: PassthroughSink) => void;
  const ended = new Promise<PassthroughSink>((r) => (done = r));
  const held: number[] = [];
  const server = http.createServer((_req, res) => {
    const sink = new PassthroughSink(
      res,
      { status: 200, headers: { 'content-type': contentType }, extraHeaders: {}, committer: { commit() {} } },
      openaiFormat,
      { model: 'gpt-4o-mini' },
    );
    for (const e of events) {
      sink.data(Buffer.from(e));
      held.push(sink.held().buffers);
    }
    sink.end();
    done(sink);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const received = await new Promise<string>((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
  return { received, sink: await ended, held };
}

it('keeps a few buffers for the usage of a long stream of small events, and still reads its counts', async () => {
  // Anthropic's shape: the prompt's counts in the opening event, the completion's in the last.
  const events = [
    `event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1234,"cache_read_input_tokens":100}}}\n\n`,
    ...Array.from(
      { length: 2000 },
      (_, i) => `event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":" w${i}"}}\n\n`,
    ),
    `event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":2000}}\n\n`,
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ];
  const { received, sink, held } = await throughSink(events);
  expect(received).toBe(events.join(''));
  // Each event is ~80 bytes: the first and last 4 KB used to be some 90 buffers kept; now at most 4 chunks as they
  // came, then two fixed allocations for the whole stream: the head (4 KB) and the tail's window (5 KB).
  expect(Math.max(...held)).toBeLessThanOrEqual(6);
  expect(new Set(held.slice(100))).toEqual(new Set([2]));
  expect(sink.held().bytes).toBeLessThanOrEqual(4096 + 5120);
  expect(sink.usage()).toEqual({
    prompt: 1334,
    completion: 2000,
    cacheRead: 100,
    cacheWrite: null,
    cacheWrite5m: null,
    cacheWrite1h: null,
    reasoning: null,
  });
});

it('reads a short reply whole, from the tail alone', async () => {
  const events = [
    'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n',
    'data: {"usage":{"prompt_tokens":7,"completion_tokens":2}}\n\n',
  ];
  const { received, sink } = await throughSink(events);
  expect(received).toBe(events.join(''));
  expect(sink.usage()).toMatchObject({ prompt: 7, completion: 2 });
});

it('reads the counts of a long JSON reply that came in small chunks, split anywhere', async () => {
  const text = JSON.stringify({
    choices: [{ message: { role: 'assistant', content: 'x'.repeat(10_000) } }],
    usage: { prompt_tokens: 321, completion_tokens: 654, completion_tokens_details: { reasoning_tokens: 12 } },
  });
  const chunks = Array.from({ length: Math.ceil(text.length / 61) }, (_, i) => text.slice(i * 61, (i + 1) * 61));
  const { received, sink, held } = await throughSink(chunks, 'application/json');
  expect(received).toBe(text);
  expect(Math.max(...held)).toBeLessThanOrEqual(6);
  expect(sink.usage()).toMatchObject({ prompt: 321, completion: 654, reasoning: 12 });
});
