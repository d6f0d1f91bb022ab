// A real HTTP server speaking Gemini's generateContent API (as generativelanguage.googleapis.com/v1beta does), for
// tests that route to a gemini provider: scripted text or a function call, failures, mid-stream cuts.
//
// A config's base_url for it is `mock.baseUrl`, `http://127.0.0.1:<port>/v1beta` (like Google's
// https://generativelanguage.googleapis.com/v1beta); the official client takes the root, `http://127.0.0.1:<port>`.
//
// Decisions (mock-gemini.test.ts pins them):
// - Routes: POST /v1beta/models/{model}:generateContent, :streamGenerateContent (SSE with ?alt=sse, otherwise one
//   JSON array written element by element: `[{…}`, `,\r\n{…}`, `]`), GET /v1beta/models and /v1beta/models/{model}.
//   Anything else answers 404 with a Gemini error body.
// - The key is recorded from `x-goog-api-key`, or from `?key=` when the header is absent.
// - Text streams send one event per token; every event carries usageMetadata with the prompt count, the last one
//   adds finishReason STOP and the candidate count, as Gemini does.
// - Gemini sends each functionCall part whole, so a tool call is ONE event; to make decoders meet cut input, its
//   bytes are written in three pieces split inside the arguments (chunkDelayMs apart).
// - `failAfterChunks` counts events (SSE events or array elements) and destroys the socket after that many;
//   it ignores non-stream replies. `status` applies to chat and model routes; `failTimes` counts chat requests.
// - Error bodies are {"error":{"code","message","status"}}; the JSON-array stream wraps it in an array, as Google's does.
// - Default usage: prompt 10, candidates = number of tokens (1 for a tool call).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { type MockHttp, parseBodyText, startMockHttp, writeStream } from './mock-http.ts';

export type MockGeminiBehavior = {
  /** Reply pieces; default ['Hello', ' from', ' <name>']. */
  tokens?: string[];
  /** Delay between stream events (and between the pieces of a tool call event); default 0. */
  chunkDelayMs?: number;
  /** Delay before sending response headers; default 0. */
  firstByteDelayMs?: number;
  /** Answer this status with a Gemini error body. */
  status?: number;
  /** With status: fail only the first N chat requests, then behave normally. */
  failTimes?: number;
  /** Stream: send N events, then destroy the socket mid-stream. */
  failAfterChunks?: number;
  /** Reply with this function call instead of text. */
  toolCall?: { name: string; arguments: object };
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Model ids for GET /v1beta/models; default ['mock-model']. */
  models?: string[];
};

export type RecordedGeminiRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** From x-goog-api-key, else from ?key=. */
  apiKey: string | undefined;
  /** Parsed JSON; the raw text when the body is not JSON; undefined when there is no body. */
  body: any;
  /** performance.now() when the request's headers arrived. */
  receivedAt: number;
};

export type MockGemini = {
  name: string;
  port: number;
  /** 'http://127.0.0.1:<port>/v1beta': a config's base_url. */
  baseUrl: string;
  /** 'http://127.0.0.1:<port>': the official client's httpOptions.baseUrl. */
  rootUrl: string;
  /** Every request, in order. Empty when started with record: false. */
  requests: RecordedGeminiRequest[];
  /** Number of generateContent and streamGenerateContent requests (counted even with record: false). */
  chatCount(): number;
  /** Replaces the behaviour for later requests and restarts the failTimes count. */
  setBehavior(b: MockGeminiBehavior): void;
  /** Closes the server and destroys every open socket. */
  close(): Promise<void>;
};

export type MockGeminiOptions = {
  name?: string;
  behavior?: MockGeminiBehavior;
  port?: number;
  record?: boolean;
};

const STATUS_NAMES: Record<number, [string, string]> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument. (mock)'],
  401: ['UNAUTHENTICATED', 'Request had invalid authentication credentials. (mock)'],
  403: ['PERMISSION_DENIED', "Method doesn't allow unregistered callers. (mock)"],
  404: ['NOT_FOUND', 'models/unknown is not found for API version v1beta. (mock)'],
  429: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota). (mock)'],
  500: ['INTERNAL', 'An internal error has occurred. (mock)'],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later. (mock)'],
  504: ['DEADLINE_EXCEEDED', 'The request timed out. (mock)'],
};

function errorBody(code: number, message?: string): { error: { code: number; message: string; status: string } } {
  const [status, fallback] = STATUS_NAMES[code] ?? [
    code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT',
    `Request failed with status ${code}. (mock)`,
  ];
  return { error: { code, message: message ?? fallback, status } };
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

function finished(res: http.ServerResponse): boolean {
  return res.destroyed || res.writableEnded || res.socket?.destroyed === true;
}

const CHAT_PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const MODEL_PATH = /^\/v1beta\/models\/([^/:]+)$/;

export async function startMockGemini(opts: MockGeminiOptions = {}): Promise<MockGemini> {
  const name = opts.name ?? 'mock';
  const record = opts.record ?? true;
  let behavior = opts.behavior ?? {};
  let chatRequests = 0;
  let failuresSent = 0;
  let sequence = 0;
  const requests: RecordedGeminiRequest[] = [];
  let mockHttp: MockHttp | undefined;

  const later = (fn: () => void, ms: number): void => mockHttp?.later(fn, ms);

  const modelEntry = (id: string) => ({
    name: `models/${id}`,
    version: '001',
    displayName: `${id} (${name})`,
    description: `Mock model served by ${name}.`,
    inputTokenLimit: 1048576,
    outputTokenLimit: 65536,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  });

  /** The events of one reply: text tokens, or one whole function call. */
  const replyEvents = (b: MockGeminiBehavior, model: string): { events: object[]; whole: object } => {
    const responseId = `mockresp${++sequence}${name}`;
    const tokens = b.tokens ?? ['Hello', ' from', ` ${name}`];
    const prompt = b.usage?.prompt_tokens ?? 10;
    const completion = b.usage?.completion_tokens ?? (b.toolCall ? 1 : tokens.length);
    const fullUsage = {
      promptTokenCount: prompt,
      candidatesTokenCount: completion,
      totalTokenCount: prompt + completion,
    };
    const event = (parts: object[], last: boolean) => ({
      candidates: [{ content: { parts, role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
      usageMetadata: last ? fullUsage : { promptTokenCount: prompt, totalTokenCount: prompt },
      modelVersion: model,
      responseId,
    });
    if (b.toolCall) {
      const parts = [{ functionCall: { name: b.toolCall.name, args: b.toolCall.arguments } }];
      return { events: [event(parts, true)], whole: event(parts, true) };
    }
    return {
      events: tokens.map((t, i) => event([{ text: t }], i === tokens.length - 1)),
      whole: event([{ text: tokens.join('') }], true),
    };
  };

  const answerStream = (res: http.ServerResponse, b: MockGeminiBehavior, model: string, sse: boolean): void => {
    const { events } = replyEvents(b, model);
    const frames = events.map((e, i) =>
      sse ? `data: ${JSON.stringify(e)}\r\n\r\n` : `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(e)}`,
    );
    if (!sse) frames.push(']');
    const delay = b.chunkDelayMs ?? 0;
    const failAfter = b.failAfterChunks;
    res.writeHead(
      200,
      sse
        ? { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
        : { 'content-type': 'application/json; charset=UTF-8' },
    );
    // A tool call event goes out in three pieces cut inside its arguments.
    const pieces = (frame: string): string[] => {
      if (!b.toolCall) return [frame];
      const at = frame.indexOf('"args"');
      if (at < 0) return [frame];
      const mid = Math.floor((at + frame.length) / 2);
      return [frame.slice(0, at + 8), frame.slice(at + 8, mid), frame.slice(mid)].filter((p) => p !== '');
    };
    const queue: { text: string; endsEvent: boolean }[] = frames.flatMap((f) =>
      pieces(f).map((text, i, all) => ({ text, endsEvent: i === all.length - 1 })),
    );
    writeStream(res, later, queue, { failAfter, delayMs: delay });
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, chunks: Buffer[], receivedAt: number): void => {
    const raw = Buffer.concat(chunks).toString();
    const body = parseBodyText(raw);
    const url = new URL(req.url ?? '/', 'http://mock');
    const header = req.headers['x-goog-api-key'];
    const apiKey = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('key') ?? undefined;
    const chat = req.method === 'POST' ? CHAT_PATH.exec(url.pathname) : null;
    const isList = req.method === 'GET' && url.pathname === '/v1beta/models';
    const getModel = req.method === 'GET' ? MODEL_PATH.exec(url.pathname) : null;
    if (chat) chatRequests++;
    if (record)
      requests.push({ method: req.method ?? '', url: req.url ?? '/', headers: req.headers, apiKey, body, receivedAt });

    const stream = chat?.[2] === 'streamGenerateContent';
    const sse = url.searchParams.get('alt') === 'sse';
    // The JSON-array stream reports errors as an array, like Google's.
    const sendError = (status: number, message?: string): void =>
      sendJson(res, status, stream && !sse ? [errorBody(status, message)] : errorBody(status, message));

    if (!chat && !isList && !getModel) return sendError(404, `Method not found: ${req.method} ${url.pathname} (mock).`);
    const b = behavior;
    const failing = b.status !== undefined && (b.failTimes === undefined || failuresSent < b.failTimes);
    if (failing && chat) failuresSent++;

    const answer = (): void => {
      if (finished(res)) return;
      if (failing) return sendError(b.status!);
      const models = b.models ?? ['mock-model'];
      if (isList) return sendJson(res, 200, { models: models.map(modelEntry) });
      if (getModel) return sendJson(res, 200, modelEntry(decodeURIComponent(getModel[1]!)));
      const request = body as { contents?: unknown } | undefined;
      if (request === null || typeof request !== 'object')
        return sendError(400, 'Invalid JSON payload received. (mock)');
      if (!Array.isArray(request.contents) || request.contents.length === 0) {
        return sendError(400, '* GenerateContentRequest.contents: contents is not specified (mock)');
      }
      const model = decodeURIComponent(chat![1]!);
      if (stream) answerStream(res, b, model, sse);
      else sendJson(res, 200, replyEvents(b, model).whole);
    };
    const delay = b.firstByteDelayMs ?? 0;
    if (delay > 0) later(answer, delay);
    else answer();
  };

  mockHttp = await startMockHttp(opts.port, (req, res, chunks, receivedAt) => handle(req, res, chunks, receivedAt));
  const port = mockHttp.port;

  return {
    name,
    port,
    baseUrl: `http://127.0.0.1:${port}/v1beta`,
    rootUrl: `http://127.0.0.1:${port}`,
    requests,
    chatCount: () => chatRequests,
    setBehavior(b: MockGeminiBehavior) {
      behavior = b;
      failuresSent = 0;
    },
    close: () => mockHttp!.close(),
  };
}
