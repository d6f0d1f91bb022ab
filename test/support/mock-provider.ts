// A real OpenAI-compatible HTTP server for tests and benchmarks: scripted replies, failures, stalls and resets.
//
// Decisions the brief leaves open (tests pin them in mock-provider.test.ts):
// - `status`, `hang`, `destroy` and `firstByteDelayMs` apply to POST /v1/chat/completions and GET /v1/models
//   alike; unknown paths always answer 404 at once. `failTimes` counts chat requests only: the models list fails
//   while the chat failure budget is not spent ("the provider is down for its first N chat requests").
// - `failTimes` counts from the last setBehavior().
// - `headersThenHangMs` also applies to non-stream replies: headers go out, the body follows after the wait.
// - `failAfterChunks` counts every SSE event, the role chunk first and `[DONE]` last; it ignores non-stream replies.
// - Timestamps (`receivedAt`, `sentChunksAt`) are performance.now() values of this process.
// - Default usage: prompt_tokens 10, completion_tokens = number of tokens.
// - A chat body that is not JSON answers 400; `model` is echoed back, or models[0] when the request has none.
// - `toolCalls` answer several calls in one reply (ids call_mock1, call_mock2…); a stream sends each call's three
//   deltas under its own index, one call after the other. `reasoningField: 'reasoning'` sends the reasoning as
//   OpenRouter does, in `reasoning` (default: DeepSeek's `reasoning_content`).
// - POST /v1/completions (legacy text completions, recorded like chat) answers the tokens as `text`, as one JSON
//   reply or as text_completion SSE chunks (usage last when stream_options.include_usage); it ignores the failure
//   knobs.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { CommonBehavior, MockHttp, MockServer, RecordedHttpRequest } from './mock-http.ts';
import {
  callsOf,
  finished,
  MockState,
  parseBodyText,
  requestKey,
  sendJsonText,
  setReplyHeaders,
  startMockHttp,
  writeStream,
} from './mock-http.ts';

/**
 * The shared knobs (`status`: an OpenAI error body {error:{message,type,param,code}}; a streamed tool call splits
 * its arguments across three deltas), and:
 */
export type MockBehavior = CommonBehavior & {
  /** Delay before sending response headers; default 0. */
  firstByteDelayMs?: number;
  /** Accept the request and never answer (until close()). */
  hang?: boolean;
  /** Reset the connection right after reading the request. */
  destroy?: boolean;
  /** Send headers and the first chunk, then wait this long before the rest (idle-timeout tests). */
  headersThenHangMs?: number;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens?: number };
    completion_tokens_details?: { reasoning_tokens?: number };
  };
  /** Reasoning pieces (`reasoning_content`, as DeepSeek sends them) before the reply's text. */
  reasoning?: string[];
  /** The field the reasoning goes in: `reasoning_content` (DeepSeek, vLLM; the default) or `reasoning` (OpenRouter). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** Behaviours consumed one per chat request (the first request gets script[0]...); this behaviour applies after. */
  script?: MockBehavior[];
};

export type RecordedRequest = RecordedHttpRequest & {
  /** performance.now() when the request's headers arrived. */
  receivedAt: number;
};

/**
 * baseUrl: 'http://127.0.0.1:<port>/v1'; requests: chat and models, none when started with record: false;
 * chatCount(): the POST /v1/chat/completions received (counted even with record: false).
 */
export type MockProvider = MockServer<MockBehavior, RecordedRequest> & {
  /** performance.now() at which each SSE chunk of the latest stream was written. */
  readonly sentChunksAt: number[];
};

export type MockProviderOptions = {
  name?: string;
  behavior?: MockBehavior;
  port?: number;
  /** Keep every request in `requests` (default true). Benchmarks turn it off so memory stays flat. */
  record?: boolean;
};

/** The pieces of every reply that depend only on the behaviour, computed once per setBehavior(). */
type Plan = {
  behavior: MockBehavior;
  /** `"Hello from mock"` as a JSON string literal. */
  contentJson: string;
  /** `{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n` per token. */
  tokenTails: string[];
  /** `,"usage":{...}}` */
  usageJson: string;
  defaultModelJson: string;
  modelsBody: string;
  errorBody: string;
};

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const;
const ROLE_TAIL = '{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n';
const STOP_TAIL = '{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';
const DONE = 'data: [DONE]\n\n';

/** OpenAI's error type and code for a status, so clients classify the failure as they would in production. */
const OPENAI_ERRORS: Record<number, { message: string; type: string; code: string }> = {
  400: { message: 'Invalid request (mock).', type: 'invalid_request_error', code: 'invalid_request' },
  401: { message: 'Incorrect API key provided (mock).', type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { message: 'Forbidden (mock).', type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { message: 'The model does not exist (mock).', type: 'invalid_request_error', code: 'model_not_found' },
  408: { message: 'Request timed out (mock).', type: 'timeout', code: 'timeout' },
  429: { message: 'Rate limit reached (mock).', type: 'requests', code: 'rate_limit_exceeded' },
  503: { message: 'The engine is currently overloaded (mock).', type: 'server_error', code: 'service_unavailable' },
};

export function openAiError(status: number): { message: string; type: string; code: string } {
  const known = OPENAI_ERRORS[status];
  if (known) return known;
  return status >= 500
    ? {
        message: `The server had an error while processing your request (mock ${status}).`,
        type: 'server_error',
        code: 'server_error',
      }
    : {
        message: `Request failed with status ${status} (mock).`,
        type: 'invalid_request_error',
        code: `http_${status}`,
      };
}

function errorJson(message: string, type: string, code: string): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

function makePlan(name: string, behavior: MockBehavior): Plan {
  const tokens = behavior.tokens ?? ['Hello', ' from', ` ${name}`];
  const models = behavior.models ?? ['mock-model'];
  const usage = behavior.usage ?? { prompt_tokens: 10, completion_tokens: tokens.length };
  const created = Math.floor(Date.now() / 1000);
  const err = behavior.status === undefined ? undefined : openAiError(behavior.status);
  return {
    behavior,
    contentJson: JSON.stringify(tokens.join('')),
    tokenTails: tokens.map((t) => `{"index":0,"delta":{"content":${JSON.stringify(t)}},"finish_reason":null}]}\n\n`),
    usageJson: `,"usage":${JSON.stringify({ ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens })}}`,
    defaultModelJson: JSON.stringify(models[0] ?? 'mock-model'),
    modelsBody: JSON.stringify({
      object: 'list',
      data: models.map((id) => ({ id, object: 'model', created, owned_by: name })),
    }),
    errorBody: err ? errorJson(err.message, err.type, err.code) : '',
  };
}

const sendJson = sendJsonText;

export async function startMockProvider(opts: MockProviderOptions = {}): Promise<MockProvider> {
  const name = opts.name ?? 'mock';
  const record = opts.record ?? true;
  const state = new MockState<MockBehavior, RecordedRequest>(opts.behavior ?? {});
  let plan = makePlan(name, state.behavior);
  let scriptStep = 0;
  let sequence = 0;
  let latestChunkTimes: number[] = [];
  let mockHttp: MockHttp | undefined;

  const later = (fn: () => void, ms: number): void => mockHttp?.later(fn, ms);

  const completionBody = (modelJson: string, plan: Plan): string => {
    const calls = callsOf(plan.behavior);
    const field = plan.behavior.reasoningField ?? 'reasoning_content';
    const reasoning = plan.behavior.reasoning ? `,"${field}":${JSON.stringify(plan.behavior.reasoning.join(''))}` : '';
    const toolCalls = calls.map(
      (tc, k) =>
        `{"id":"call_mock${k + 1}","type":"function","function":{"name":${JSON.stringify(tc.name)},"arguments":${JSON.stringify(JSON.stringify(tc.arguments))}}}`,
    );
    const message = calls.length
      ? `{"role":"assistant","content":null${reasoning},"tool_calls":[${toolCalls.join(',')}]}`
      : `{"role":"assistant","content":${plan.contentJson}${reasoning}}`;
    return (
      `{"id":"chatcmpl-mock${++sequence}","object":"chat.completion","created":${Math.floor(Date.now() / 1000)},` +
      `"model":${modelJson},"choices":[{"index":0,"message":${message},` +
      `"finish_reason":"${calls.length ? 'tool_calls' : 'stop'}"}]${plan.usageJson}`
    );
  };

  const answerCompletion = (res: http.ServerResponse, p: Plan, modelJson: string): void => {
    const body = completionBody(modelJson, p);
    const hangMs = p.behavior.headersThenHangMs ?? 0;
    if (hangMs <= 0) return sendJson(res, 200, body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.flushHeaders();
    later(() => {
      if (!finished(res)) res.end(body);
    }, hangMs);
  };

  const answerStream = (res: http.ServerResponse, p: Plan, modelJson: string, includeUsage: boolean): void => {
    const head =
      `data: {"id":"chatcmpl-mock${++sequence}","object":"chat.completion.chunk",` +
      `"created":${Math.floor(Date.now() / 1000)},"model":${modelJson},"choices":[`;
    const events: string[] = [head + ROLE_TAIL];
    const field = p.behavior.reasoningField ?? 'reasoning_content';
    for (const r of p.behavior.reasoning ?? []) {
      events.push(`${head}{"index":0,"delta":{"${field}":${JSON.stringify(r)}},"finish_reason":null}]}\n\n`);
    }
    const calls = callsOf(p.behavior);
    if (calls.length) {
      calls.forEach((tc, k) => {
        const args = JSON.stringify(tc.arguments);
        const cuts = [0, Math.floor(args.length / 3), Math.floor((2 * args.length) / 3), args.length];
        for (let i = 0; i < 3; i++) {
          const first = i === 0 ? `"id":"call_mock${k + 1}","type":"function",` : '';
          const fn =
            i === 0
              ? `{"name":${JSON.stringify(tc.name)},"arguments":${JSON.stringify(args.slice(cuts[i], cuts[i + 1]))}}`
              : `{"arguments":${JSON.stringify(args.slice(cuts[i], cuts[i + 1]))}}`;
          events.push(
            `${head}{"index":0,"delta":{"tool_calls":[{"index":${k},${first}"function":${fn}}]},"finish_reason":null}]}\n\n`,
          );
        }
      });
      events.push(`${head}{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n`);
    } else {
      for (const tail of p.tokenTails) events.push(head + tail);
      events.push(head + STOP_TAIL);
    }
    if (includeUsage) events.push(head + ']' + p.usageJson + '\n\n');
    events.push(DONE);

    const b = p.behavior;
    const chunkDelay = b.chunkDelayMs ?? 0;
    const times: number[] = [];
    latestChunkTimes = times;
    res.writeHead(200, STREAM_HEADERS);
    writeStream(res, later, events, {
      failAfter: b.failAfterChunks,
      delayMs: (written) => (written === 1 && b.headersThenHangMs ? b.headersThenHangMs : chunkDelay),
      onWrite: () => times.push(performance.now()),
    });
  };

  /** Legacy text completions: the tokens as `text` (the prompt and suffix are only recorded). */
  const answerTextCompletion = (res: http.ServerResponse, body: Record<string, unknown> | undefined, p: Plan): void => {
    const model = JSON.stringify(typeof body?.model === 'string' ? body.model : 'mock-model');
    const head = `{"id":"cmpl-mock${++sequence}","object":"text_completion","created":${Math.floor(Date.now() / 1000)},"model":${model}`;
    const tokens = p.behavior.tokens ?? ['Hello', ' from', ` ${name}`];
    if (body?.stream !== true) {
      const choice = `{"text":${p.contentJson},"index":0,"logprobs":null,"finish_reason":"length"}`;
      return sendJson(res, 200, `${head},"choices":[${choice}]${p.usageJson}`);
    }
    const events = tokens.map((t, i) => {
      const finish = i === tokens.length - 1 ? '"length"' : 'null';
      return `data: ${head},"choices":[{"text":${JSON.stringify(t)},"index":0,"logprobs":null,"finish_reason":${finish}}]}\n\n`;
    });
    const options = body.stream_options as { include_usage?: unknown } | undefined;
    if (options?.include_usage === true) events.push(`data: ${head},"choices":[]${p.usageJson}\n\n`);
    events.push(DONE);
    res.writeHead(200, STREAM_HEADERS);
    writeStream(res, later, events, { delayMs: p.behavior.chunkDelayMs ?? 0 });
  };

  /** The error answer of a failing request: the status's error body, or the page or message the behaviour makes. */
  const answerError = (res: http.ServerResponse, p: Plan, headers: http.IncomingHttpHeaders): void => {
    const b = p.behavior;
    const status = b.status as number;
    if (b.errorPage) return sendJsonText(res, status, b.errorPage(headers), { 'content-type': 'text/html' });
    if (!b.errorMessage) return sendJson(res, status, p.errorBody);
    const e = openAiError(status);
    sendJson(res, status, errorJson(b.errorMessage(headers), e.type, e.code));
  };

  const answer = (
    res: http.ServerResponse,
    body: unknown,
    isChat: boolean,
    p: Plan,
    failing: boolean,
    headers: http.IncomingHttpHeaders,
  ): void => {
    if (finished(res)) return;
    if (isChat) setReplyHeaders(res, p.behavior);
    const key = requestKey(headers);
    if (isChat && key !== undefined && p.behavior.rejectKeys?.includes(key)) {
      const e = openAiError(401);
      return sendJson(res, 401, errorJson(e.message, e.type, e.code));
    }
    if (failing) return answerError(res, p, headers);
    if (!isChat) return sendJson(res, 200, p.modelsBody);
    if (body === null || typeof body !== 'object') {
      return sendJson(
        res,
        400,
        errorJson('We could not parse the JSON body of your request (mock).', 'invalid_request_error', 'invalid_json'),
      );
    }
    const request = body as { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } };
    const modelJson = typeof request.model === 'string' ? JSON.stringify(request.model) : p.defaultModelJson;
    if (request.stream === true) answerStream(res, p, modelJson, request.stream_options?.include_usage === true);
    else answerCompletion(res, p, modelJson);
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, chunks: Buffer[], receivedAt: number): void => {
    const raw =
      chunks.length === 0
        ? ''
        : chunks.length === 1
          ? (chunks[0] as Buffer).toString()
          : Buffer.concat(chunks).toString();
    const body = parseBodyText(raw);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const isChat = req.method === 'POST' && path === '/v1/chat/completions';
    const isModels = req.method === 'GET' && path === '/v1/models';
    if (req.method === 'POST' && path === '/v1/embeddings') {
      if (record) state.requests.push({ method: req.method ?? '', url, headers: req.headers, body, receivedAt });
      // A deterministic 3-dimensional vector per input: its length, its first char code, 1.
      const input = (body as { input?: unknown })?.input;
      const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map(String) : [];
      const data = texts.map((t, index) => ({
        object: 'embedding',
        index,
        embedding: [t.length, t.charCodeAt(0) || 0, 1],
      }));
      const model = (body as { model?: unknown })?.model ?? 'mock-embed';
      return sendJson(
        res,
        200,
        JSON.stringify({
          object: 'list',
          data,
          model,
          usage: { prompt_tokens: texts.length, total_tokens: texts.length },
        }),
      );
    }
    if (req.method === 'POST' && path === '/v1/completions') {
      if (record) state.requests.push({ method: req.method ?? '', url, headers: req.headers, body, receivedAt });
      return answerTextCompletion(res, body as Record<string, unknown> | undefined, plan);
    }
    if (isChat) state.chats++;
    if (record) state.requests.push({ method: req.method ?? '', url, headers: req.headers, body, receivedAt });

    if (!isChat && !isModels) {
      return sendJson(
        res,
        404,
        errorJson(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', 'unknown_url'),
      );
    }
    let p = plan;
    if (isChat && plan.behavior.script && scriptStep < plan.behavior.script.length) {
      const step = plan.behavior.script[scriptStep++] as MockBehavior;
      p = makePlan(name, { ...step, models: plan.behavior.models });
    }
    const b = p.behavior;
    if (b.destroy) return void req.socket.resetAndDestroy();
    if (b.hang) return; // close() destroys the socket
    const failing = state.failing(b, isChat);
    const delay = b.firstByteDelayMs ?? 0;
    if (delay > 0) later(() => answer(res, body, isChat, p, failing, req.headers), delay);
    else answer(res, body, isChat, p, failing, req.headers);
  };

  mockHttp = await startMockHttp(opts.port, (req, res, chunks, receivedAt) => handle(req, res, chunks, receivedAt));
  return {
    ...state.handle(name, mockHttp, `http://127.0.0.1:${mockHttp.port}/v1`),
    setBehavior(b: MockBehavior) {
      state.setBehavior(b);
      plan = makePlan(name, b);
      scriptStep = 0;
    },
    get sentChunksAt() {
      return latestChunkTimes;
    },
  };
}
