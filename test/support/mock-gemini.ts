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
// - `toolCalls` go as several functionCall parts of one event (one candidate), as Gemini sends parallel calls.
// - `reasoning` pieces go first as thought parts ({text, thought: true}), one event each in a stream; `usage` may
//   add cachedContentTokenCount and thoughtsTokenCount (which Gemini counts outside candidatesTokenCount).
// - As Gemini 2.5 does, a chat request is refused (400 INVALID_ARGUMENT, Gemini's message) when it asks for
//   responseMimeType application/json beside function declarations, or gemini-2.5-pro* for thinkingBudget 0 or a
//   budget outside 128-32768 (-1, dynamic, is fine).
import http from 'node:http';
import type { CommonBehavior, MockHttp, MockServer, RecordedHttpRequest } from './mock-http.ts';
import { callsOf, finished, MockState, parseBodyText, sendJsonText, startMockHttp, writeStream } from './mock-http.ts';

/**
 * The shared knobs (chunkDelayMs also parts the pieces of a tool call event; chat requests: generateContent and
 * streamGenerateContent, counted even with record: false), and:
 */
export type MockGeminiBehavior = CommonBehavior & {
  /** Delay before sending response headers; default 0. */
  firstByteDelayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number; reasoning_tokens?: number };
  /** Thought pieces ({text, thought: true} parts) before the reply. */
  reasoning?: string[];
};

export type RecordedGeminiRequest = RecordedHttpRequest & {
  /** From x-goog-api-key, else from ?key=. */
  apiKey: string | undefined;
  /** performance.now() when the request's headers arrived. */
  receivedAt: number;
};

/** baseUrl: 'http://127.0.0.1:<port>/v1beta', a config's base_url; requests: empty when started with record: false. */
export type MockGemini = MockServer<MockGeminiBehavior, RecordedGeminiRequest> & {
  /** 'http://127.0.0.1:<port>': the official client's httpOptions.baseUrl. */
  rootUrl: string;
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

/**
 * What Gemini 2.5 refuses of a well-formed request, with its own messages: a JSON response mime type beside function
 * declarations, and thinkingBudget 0 to gemini-2.5-pro (which cannot stop thinking) or a budget out of its range.
 */
function refusal(request: Record<string, any>, model: string): string | undefined {
  const config = request.generationConfig ?? {};
  const functions = (request.tools ?? []).some((t: Record<string, unknown>) => t.functionDeclarations);
  if (functions && config.responseMimeType === 'application/json') {
    return "Function calling with a response mime type: 'application/json' is unsupported (mock)";
  }
  const budget = config.thinkingConfig?.thinkingBudget;
  if (/^gemini-2\.5-pro/.test(model) && budget === 0) {
    return 'Budget 0 is invalid. This model only works in thinking mode. (mock)';
  }
  if (
    /^gemini-2\.5-pro/.test(model) &&
    typeof budget === 'number' &&
    budget !== -1 &&
    (budget < 128 || budget > 32768)
  ) {
    return 'The thinking budget is invalid. Please choose a value between 128 and 32768. (mock)';
  }
  return undefined;
}

const sendJson = (res: http.ServerResponse, status: number, value: unknown): void =>
  sendJsonText(res, status, JSON.stringify(value), { 'content-type': 'application/json; charset=UTF-8' });

const CHAT_PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const MODEL_PATH = /^\/v1beta\/models\/([^/:]+)$/;

export async function startMockGemini(opts: MockGeminiOptions = {}): Promise<MockGemini> {
  const name = opts.name ?? 'mock';
  const record = opts.record ?? true;
  const state = new MockState<MockGeminiBehavior, RecordedGeminiRequest>(opts.behavior ?? {});
  let sequence = 0;
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

  /** The events of one reply: text tokens, or the function calls (whole, all in one event, as Gemini sends them). */
  const replyEvents = (b: MockGeminiBehavior, model: string): { events: object[]; whole: object } => {
    const responseId = `mockresp${++sequence}${name}`;
    const tokens = b.tokens ?? ['Hello', ' from', ` ${name}`];
    const prompt = b.usage?.prompt_tokens ?? 10;
    const calls = callsOf(b);
    const completion = b.usage?.completion_tokens ?? (calls.length ? 1 : tokens.length);
    const thoughts = b.usage?.reasoning_tokens ?? 0;
    const fullUsage = {
      promptTokenCount: prompt,
      candidatesTokenCount: completion,
      totalTokenCount: prompt + completion + thoughts,
      ...(b.usage?.cached_tokens ? { cachedContentTokenCount: b.usage.cached_tokens } : {}),
      ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
    };
    const event = (parts: object[], last: boolean) => ({
      candidates: [{ content: { parts, role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
      usageMetadata: last ? fullUsage : { promptTokenCount: prompt, totalTokenCount: prompt },
      modelVersion: model,
      responseId,
    });
    const reasoning = b.reasoning ?? [];
    const thoughtEvents = reasoning.map((t) => event([{ text: t, thought: true }], false));
    const thoughtParts = reasoning.length ? [{ text: reasoning.join(''), thought: true }] : [];
    if (calls.length) {
      const parts = calls.map((c) => ({ functionCall: { name: c.name, args: c.arguments } }));
      return { events: [...thoughtEvents, event(parts, true)], whole: event([...thoughtParts, ...parts], true) };
    }
    return {
      events: [...thoughtEvents, ...tokens.map((t, i) => event([{ text: t }], i === tokens.length - 1))],
      whole: event([...thoughtParts, { text: tokens.join('') }], true),
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
      if (!callsOf(b).length) return [frame];
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
    if (chat) state.chats++;
    if (record)
      state.requests.push({
        method: req.method ?? '',
        url: req.url ?? '/',
        headers: req.headers,
        apiKey,
        body,
        receivedAt,
      });

    const stream = chat?.[2] === 'streamGenerateContent';
    const sse = url.searchParams.get('alt') === 'sse';
    // The JSON-array stream reports errors as an array, like Google's.
    const sendError = (status: number, message?: string): void =>
      sendJson(res, status, stream && !sse ? [errorBody(status, message)] : errorBody(status, message));

    if (!chat && !isList && !getModel) return sendError(404, `Method not found: ${req.method} ${url.pathname} (mock).`);
    const b = state.behavior;
    const failing = state.failing(b, chat !== null);

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
      const refused = refusal(request as Record<string, any>, model);
      if (refused) return sendError(400, refused);
      if (stream) answerStream(res, b, model, sse);
      else sendJson(res, 200, replyEvents(b, model).whole);
    };
    const delay = b.firstByteDelayMs ?? 0;
    if (delay > 0) later(answer, delay);
    else answer();
  };

  mockHttp = await startMockHttp(opts.port, (req, res, chunks, receivedAt) => handle(req, res, chunks, receivedAt));
  const root = `http://127.0.0.1:${mockHttp.port}`;
  return { ...state.handle(name, mockHttp, `${root}/v1beta`), rootUrl: root };
}
