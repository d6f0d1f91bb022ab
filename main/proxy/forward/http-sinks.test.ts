// The passthrough sink over a real socket (issue 17, per-stream memory): a long stream of small events reaches the
// client byte for byte, its usage is still read from the first and last few KB, and what the sink keeps for that
// stays a few buffers however many events went by (it kept every event of the last 4 KB and the first 4 KB before).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiFormat } from '../formats/openai/index.ts';
import { type PassthroughEnds, PassthroughSink } from './http-sinks.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * Serves one reply through a PassthroughSink fed `events` one by one; resolves with the sink once it ended. With
 * `ends`, a failure at the end is answered as the attempt does (fail() once committed, else a 502) and kept.
 */
async function throughSink(
  events: string[],
  contentType = 'text/event-stream',
  ends?: PassthroughEnds,
  sent?: string[],
  upstreamHeaders: Record<string, string> = {},
): Promise<{ received: string; status: number; sink: PassthroughSink; held: number[]; failure?: Error }> {
  let done!: (s: PassthroughSink) => void;
  const ended = new Promise<PassthroughSink>((r) => (done = r));
  const held: number[] = [];
  let failure: Error | undefined;
  const server = http.createServer((_req, res) => {
    const sink = new PassthroughSink(
      res,
      {
        status: 200,
        headers: { 'content-type': contentType, ...upstreamHeaders },
        extraHeaders: {},
        committer: { commit() {} },
      },
      openaiFormat,
      { model: 'gpt-4o-mini' },
      ends,
    );
    const write = res.write.bind(res);
    res.write = ((chunk: string | Buffer, ...rest: never[]) => {
      sent?.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof res.write;
    for (const e of events) {
      sink.data(Buffer.from(e));
      held.push(sink.held().buffers);
    }
    try {
      sink.end();
    } catch (err) {
      failure = err as Error;
      const e = { status: 502, code: 'upstream_error', type: 'upstream_error', message: failure.message };
      if (sink.committed) sink.fail(e);
      else res.writeHead(502).end('not committed');
    }
    done(sink);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const [received, status] = await new Promise<[string, number]>((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve([text, res.statusCode!]));
      })
      .on('error', reject);
  });
  return { received, status, sink: await ended, held, ...(failure ? { failure } : {}) };
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

describe('a passthrough reply cut by a clean close (issue 32)', () => {
  const chunk = (content: string) =>
    `data: {"choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;

  it("ends a chat stream that stops before its terminal event with the client's error event, the half event dropped", async () => {
    const events = [chunk('Hel'), chunk('lo'), 'data: {"choices":[{"index":0,"delta":{"cont'];
    const { received, failure } = await throughSink(events, 'text/event-stream', { format: 'openai', stream: true });
    expect(failure?.message).toMatch(/ended before its end \(finish_reason or \[DONE\]\)/);
    expect(received).toBe(
      `${chunk('Hel')}${chunk('lo')}data: {"error":{"code":"upstream_error","message":"${failure!.message}","type":"upstream_error"}}\n\n`,
    );
  });

  it('passes a stream that reached its end untouched, and judges no stream of a route without an end (images)', async () => {
    const whole = [chunk('Hi'), 'data: [DONE]\n\n'];
    expect((await throughSink(whole, 'text/event-stream', { format: 'openai', stream: true })).received).toBe(
      whole.join(''),
    );
    const images = ['event: image_generation.partial_image\ndata: {"b64_json":"AAAA"}\n\n'];
    const r = await throughSink(images, 'text/event-stream');
    expect(r.failure).toBeUndefined();
    expect(r.received).toBe(images[0]);
  });

  it("streams Gemini's CRLF events as they come (they were held whole until the end)", async () => {
    const ev = (o: unknown) => `data: ${JSON.stringify(o)}\r\n\r\n`;
    const events = [
      ev({ candidates: [{ content: { parts: [{ text: 'a' }] } }] }),
      ev({ candidates: [{ content: { parts: [{ text: 'b' }] }, finishReason: 'STOP' }] }),
    ];
    const sent: string[] = [];
    const r = await throughSink(events, 'text/event-stream', { format: 'gemini', stream: true }, sent);
    expect(r.received).toBe(events.join(''));
    expect(sent).toEqual(events);
  });

  it('holds a whole JSON reply until it is complete: a cut one is not committed (the client gets an error status)', async () => {
    const body = JSON.stringify({ choices: [{ message: { content: 'Hello' }, finish_reason: 'stop' }] });
    const ok = await throughSink([body.slice(0, 20), body.slice(20)], 'application/json', {
      format: 'openai',
      stream: false,
    });
    expect([ok.status, ok.received]).toEqual([200, body]);
    const cut = await throughSink([body.slice(0, 20), body.slice(20, 40)], 'application/json', {
      format: 'openai',
      stream: false,
    });
    expect(cut.failure?.message).toMatch(/ended before its JSON was whole/);
    expect([cut.status, cut.received]).toEqual([502, 'not committed']);
  });

  it('passes a reply framed by a content-length on as it comes (whole by its framing), without holding it', async () => {
    const body = JSON.stringify({ choices: [{ message: { content: 'Hello' }, finish_reason: 'stop' }] });
    const sent: string[] = [];
    const r = await throughSink(
      [body.slice(0, 20), body.slice(20)],
      'application/json',
      { format: 'openai', stream: false },
      sent,
      { 'content-length': String(body.length) },
    );
    expect([r.status, r.received]).toEqual([200, body]);
    expect(sent).toEqual([body.slice(0, 20), body.slice(20)]);
  });
});
