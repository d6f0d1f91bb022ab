// Test helper: fixtures the tests of every format share (nothing in production imports it). Hub replies, chunks and
// tool calls; a provider stream decoded in pieces; refusals checked as 400s; a loopback HTTP server for the official
// clients. Per-format fixtures live in `<format>/fixtures.test-helper.ts`; the conformance suite's own helpers
// (responseToChunks, encodeStream, decodeStream) stay in conformance.case.ts.
import http from 'node:http';
import { expect } from 'vitest';
import { ApiError, type WireError } from '../../errors.ts';
import type {
  ClientFormat,
  FinishReason,
  HubAssistantMessage,
  HubChunk,
  HubDelta,
  HubRequest,
  HubResponse,
  HubToolCall,
  HubUsage,
  ProviderFormat,
} from './hub/index.ts';

/** What a hub reply or chunk is stamped with. */
export type Head = { id: string; created: number; model: string };

/** The head most tests give a provider's reply. */
export const HUB_HEAD: Head = { id: 'chatcmpl-1', created: 1700000000, model: 'provider-model' };

/** One hub tool call. */
export const toolCall = (id: string, name: string, args: string): HubToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

/** A one-choice hub reply: the assistant's message (its role implied), the finish reason, and usage when given. */
export function hubReply(
  head: Head,
  message: Omit<HubAssistantMessage, 'role'>,
  finish: FinishReason | null,
  usage?: HubUsage,
): HubResponse {
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
}

/** Makes one-choice hub chunks under one head: `chunk(delta, finish?, usage?)`. */
export const chunkMaker =
  (head: Head) =>
  (delta: HubDelta, finish: FinishReason | null = null, usage?: HubUsage): HubChunk => ({
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });

/** Chunk `c` carrying `delta` instead, unfinished (to split a delta in pieces, as providers stream them). */
export const withDelta = (c: HubChunk, delta: HubDelta): HubChunk => ({
  ...c,
  choices: [{ index: 0, delta, finish_reason: null }],
});

/** The chunk with no choices that carries the usage at the end of an OpenAI stream (stream_options.include_usage). */
export const usageChunk = (head: Head, usage: HubUsage): HubChunk => ({
  id: head.id,
  object: 'chat.completion.chunk',
  created: head.created,
  model: head.model,
  choices: [],
  usage,
});

/** An upstream failure as the forwarder hands it to a stream encoder or an error body. */
export const upstreamError = (message: string, status = 502): WireError => ({
  status,
  code: 'upstream_error',
  type: 'upstream_error',
  message,
});

/** Decodes a provider stream pushed in pieces cut at the offsets `cuts` (ascending), then ended. */
export function decodeCut(format: ProviderFormat, model: string, text: string, cuts: number[] = []): HubChunk[] {
  const dec = format.streamDecoder(model);
  const out: HubChunk[] = [];
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    out.push(...dec.push(text.slice(at, cut)));
    at = cut;
  }
  return [...out, ...dec.end()];
}

/** The offsets that cut a text of `length` characters into pieces of `size` (1: one character at a time). */
export const cutsEvery = (length: number, size: number): number[] =>
  Array.from({ length: Math.ceil(length / size) - 1 }, (_, i) => (i + 1) * size);

/** What `fn` throws; the test fails when it throws nothing. */
export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return expect.unreachable('expected a throw');
}

/** The ApiError `fn` throws. */
export function apiErrorOf(fn: () => unknown): ApiError {
  const e = caught(fn);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

/** Expects `fn` to refuse with a 400 ApiError that suggests an action and whose message holds each of `parts`. */
export function badRequest(fn: () => unknown, ...parts: string[]): ApiError {
  const e = apiErrorOf(fn);
  expect(e.status).toBe(400);
  for (const part of parts) expect(e.message).toContain(part);
  expect(e.action).toBeTruthy();
  return e;
}

/** A loopback server; `root` is its URL without a trailing slash. */
export type TestServer = { root: string; close: () => Promise<void> };

/** Serves `handle` (given each request's body text) on a loopback port. */
export async function listen(
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    root: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Serves one handler on a loopback port for an official client, for the time of `use` (given the root URL). */
export async function withServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  use: (root: string) => Promise<void>,
): Promise<void> {
  const server = await listen(handle);
  try {
    await use(server.root);
  } finally {
    await server.close();
  }
}

/** What a format's test server answers one request with. */
export type Answer =
  /** A JSON reply. */
  | { reply: HubResponse }
  /** A stream of these chunks, ended by `error` (a mid-stream failure) when there is one. */
  | { chunks: HubChunk[]; error?: WireError }
  /** The format's error body, with the error's status. */
  | { error: WireError };

/**
 * A format's side of Switchboard on a loopback port, for its official client to read: each request body goes through
 * the format's requestToHub (a refusal is answered with the format's error body), and `answer` says what to send
 * back, written with the format's responseFromHub or stream encoder.
 */
export function serveFormat(format: ClientFormat, answer: (hub: HubRequest) => Answer): Promise<TestServer> {
  const json = (res: http.ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  return listen((_req, res, body) => {
    let hub: HubRequest;
    try {
      hub = format.requestToHub(JSON.parse(body), {});
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return json(res, e.status, format.errorBody(e.toWire()));
    }
    const a = answer(hub);
    if ('reply' in a) return json(res, 200, format.responseFromHub(a.reply, { model: hub.model }));
    if (!('chunks' in a)) return json(res, a.error.status, format.errorBody(a.error));
    const enc = format.streamEncoder({ model: hub.model });
    res.writeHead(200, { 'content-type': enc.contentType });
    for (const c of a.chunks) res.write(enc.chunk(c));
    res.end(a.error ? enc.error(a.error) : enc.end());
  });
}
