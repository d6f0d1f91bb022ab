// A real Anthropic Messages API server for tests: POST /v1/messages (JSON, or SSE event by event as Anthropic sends
// it) and GET /v1/models, with scripted replies, tool calls, failures and mid-stream cuts.
//
// Decisions (mock-anthropic.test.ts pins them, driving the mock with the official @anthropic-ai/sdk):
// - baseUrl is `http://127.0.0.1:<port>/v1` (a provider config's base_url, like https://api.anthropic.com/v1;
//   requests go to `<base_url>/messages`). The official SDK appends /v1/messages itself: give it rootUrl.
// - Like Anthropic, every request needs a key (else 401 authentication_error) and an `anthropic-version` header
//   (else 400). The key is read from `x-api-key` or from `Authorization: Bearer` (the official SDK 1.x sends the
//   latter) and recorded with the header that carried it. A messages body needs model, max_tokens and messages.
// - `status` answers Anthropic's error body {type:"error", error:{type, message}, request_id} with the type Anthropic
//   uses for that status (529 → overloaded_error). `failTimes` counts message requests from the last setBehavior();
//   the models list fails while that budget is not spent.
// - Streams send message_start, content_block_start, ping, the deltas, content_block_stop, message_delta and
//   message_stop. A tool call streams an empty input_json_delta first, as Anthropic does, then the arguments JSON in
//   three pieces. `failAfterChunks` and `errorEventAfterChunks` count SSE events, message_start first.
// - Default usage: input_tokens 10, output_tokens = the number of deltas (thinking's left out).
// - `reasoning` pieces make a thinking block first (thinking_delta each, then a signature_delta; whole replies carry
//   the signature too); `toolCalls` make one tool_use block each (ids toolu_mock<n>, toolu_mock<n>_1…), in order,
//   each streamed as the single call is. `ping` follows the first content_block_start.
// - With `forcedToolInput`, a request that forces a tool (tool_choice {type: "tool", name}) is answered, as
//   Anthropic does, with a call of that tool taking this input.
import http from 'node:http';
import type { CommonBehavior, MockHttp, MockServer, RecordedHttpRequest } from './mock-http.ts';
import {
  callsOf,
  MockState,
  parseBodyText,
  sendJsonText,
  setReplyHeaders,
  splitInto,
  startMockHttp,
  writeStream,
} from './mock-http.ts';

/** The shared knobs (chat requests: POST /v1/messages; models default ['claude-mock']), and: */
export type MockAnthropicBehavior = CommonBehavior & {
  /** Stream: send N events, then Anthropic's `event: error` (overloaded_error; errorMessage's), and end the response. */
  errorEventAfterChunks?: number;
  /**
   * Usage as Anthropic reports it (cache_read_input_tokens / cache_creation_input_tokens: prompt tokens read from and
   * written to the cache, apart from input_tokens).
   */
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
    /** The writes' split by how long they are kept (within cache_creation_input_tokens), as Anthropic reports it. */
    cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  };
  /** Thinking pieces: a thinking block (thinking_delta each, then its signature_delta) before the reply. */
  reasoning?: string[];
  /** The input of the call that answers a request forcing a tool (tool_choice {type: "tool", name}). */
  forcedToolInput?: object;
};

export type MockAnthropicRequest = RecordedHttpRequest & {
  /** The key from x-api-key, else from Authorization: Bearer; undefined when neither is sent. */
  apiKey: string | undefined;
  /** The header that carried the key. */
  apiKeyHeader: 'x-api-key' | 'authorization' | undefined;
};

/** baseUrl: 'http://127.0.0.1:<port>/v1'; requests: messages, models and unknown paths. */
export type MockAnthropic = MockServer<MockAnthropicBehavior, MockAnthropicRequest> & {
  /** 'http://127.0.0.1:<port>': the official SDK's baseURL (it appends /v1/messages). */
  rootUrl: string;
};

export type MockAnthropicOptions = { name?: string; behavior?: MockAnthropicBehavior; port?: number };

type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

/** Anthropic's error type and a message for a status, so clients classify the failure as in production. */
const ANTHROPIC_ERRORS: Record<number, { type: ErrorType; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request (mock).' },
  401: { type: 'authentication_error', message: 'invalid x-api-key (mock)' },
  403: {
    type: 'permission_error',
    message: 'Your API key does not have permission to use the specified resource (mock).',
  },
  404: { type: 'not_found_error', message: 'The requested resource could not be found (mock).' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes (mock).' },
  429: {
    type: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your per-minute rate limit (mock).',
  },
  529: { type: 'overloaded_error', message: 'Overloaded (mock)' },
};

function anthropicError(status: number): { type: ErrorType; message: string } {
  return (
    ANTHROPIC_ERRORS[status] ??
    (status >= 500
      ? { type: 'api_error', message: `Internal server error (mock ${status}).` }
      : { type: 'invalid_request_error', message: `Request failed with status ${status} (mock).` })
  );
}

function readKey(headers: http.IncomingHttpHeaders): Pick<MockAnthropicRequest, 'apiKey' | 'apiKeyHeader'> {
  const xApiKey = headers['x-api-key'];
  if (typeof xApiKey === 'string' && xApiKey !== '') return { apiKey: xApiKey, apiKeyHeader: 'x-api-key' };
  const bearer = /^Bearer\s+(\S+)/i.exec(headers.authorization ?? '');
  return bearer ? { apiKey: bearer[1], apiKeyHeader: 'authorization' } : { apiKey: undefined, apiKeyHeader: undefined };
}

/** The signature a thinking block carries (Anthropic's is opaque; clients send it back unchanged). */
const THINKING_SIGNATURE = 'sig_mock';

const sse = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

export async function startMockAnthropic(opts: MockAnthropicOptions = {}): Promise<MockAnthropic> {
  const name = opts.name ?? 'mock';
  const state = new MockState<MockAnthropicBehavior, MockAnthropicRequest>(opts.behavior ?? {});
  let sequence = 0;
  let requestIds = 0;
  let mockHttp: MockHttp | undefined;

  const later = (fn: () => void, ms: number): void => mockHttp?.later(fn, ms);

  const sendJson = (res: http.ServerResponse, status: number, body: unknown): void =>
    sendJsonText(res, status, JSON.stringify(body), { 'request-id': `req_mock${requestIds}` });
  const sendError = (res: http.ServerResponse, status: number, type: ErrorType, message: string): void =>
    sendJson(res, status, { type: 'error', error: { type, message }, request_id: `req_mock${requestIds}` });

  /** One content block of a reply and the pieces a stream of it carries (thinking, text, or a tool call). */
  type Block =
    | { type: 'thinking'; pieces: string[] }
    | { type: 'text'; pieces: string[] }
    | { type: 'tool_use'; id: string; name: string; input: object; pieces: string[] };

  /** The reply's content blocks: thinking (from `reasoning`) first, then the text or the tool calls. */
  const reply = (b: MockAnthropicBehavior) => {
    const n = ++sequence;
    const blocks: Block[] = b.reasoning?.length ? [{ type: 'thinking', pieces: b.reasoning }] : [];
    const calls = callsOf(b);
    calls.forEach((c, k) => {
      const id = k === 0 ? `toolu_mock${n}` : `toolu_mock${n}_${k}`;
      blocks.push({
        type: 'tool_use',
        id,
        name: c.name,
        input: c.arguments,
        pieces: splitInto(JSON.stringify(c.arguments), 3),
      });
    });
    if (!calls.length) blocks.push({ type: 'text', pieces: b.tokens ?? ['Hello', ' from', ` ${name}`] });
    const counted = blocks.reduce((sum, x) => sum + (x.type === 'thinking' ? 0 : x.pieces.length), 0);
    return { n, blocks, tools: calls.length > 0, usage: b.usage ?? { input_tokens: 10, output_tokens: counted } };
  };

  const whole = (x: Block): object => {
    if (x.type === 'thinking') return { type: 'thinking', thinking: x.pieces.join(''), signature: THINKING_SIGNATURE };
    if (x.type === 'text') return { type: 'text', text: x.pieces.join('') };
    return { type: 'tool_use', id: x.id, name: x.name, input: x.input };
  };

  const answerMessage = (res: http.ServerResponse, b: MockAnthropicBehavior, model: string): void => {
    const r = reply(b);
    sendJson(res, 200, {
      id: `msg_mock${r.n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: r.blocks.map(whole),
      stop_reason: r.tools ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: r.usage,
    });
  };

  /** A block's events: its start (ping after the first), its deltas, its stop. */
  const blockEvents = (x: Block, index: number): string[] => {
    const start =
      x.type === 'tool_use'
        ? { type: 'tool_use', id: x.id, name: x.name, input: {} }
        : x.type === 'thinking'
          ? { type: 'thinking', thinking: '' }
          : { type: 'text', text: '' };
    const events = [sse('content_block_start', { index, content_block: start })];
    if (index === 0) events.push(sse('ping', {}));
    const delta = (d: object) => sse('content_block_delta', { index, delta: d });
    if (x.type === 'tool_use')
      for (const p of ['', ...x.pieces]) events.push(delta({ type: 'input_json_delta', partial_json: p }));
    else if (x.type === 'text') for (const p of x.pieces) events.push(delta({ type: 'text_delta', text: p }));
    else {
      for (const p of x.pieces) events.push(delta({ type: 'thinking_delta', thinking: p }));
      events.push(delta({ type: 'signature_delta', signature: THINKING_SIGNATURE }));
    }
    events.push(sse('content_block_stop', { index }));
    return events;
  };

  const answerStream = (
    res: http.ServerResponse,
    b: MockAnthropicBehavior,
    model: string,
    headers: http.IncomingHttpHeaders,
  ): void => {
    const r = reply(b);
    const message = {
      id: `msg_mock${r.n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...r.usage, output_tokens: 1 },
    };
    const events = [sse('message_start', { message })];
    r.blocks.forEach((x, i) => events.push(...blockEvents(x, i)));
    events.push(
      sse('message_delta', {
        delta: { stop_reason: r.tools ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: r.usage.output_tokens },
      }),
      sse('message_stop', {}),
    );
    const errorAfter = b.errorEventAfterChunks;
    if (errorAfter !== undefined) {
      const message = b.errorMessage?.(headers) ?? 'Overloaded (mock)';
      events.splice(errorAfter, events.length, sse('error', { error: { type: 'overloaded_error', message } }));
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': `req_mock${requestIds}`,
    });
    writeStream(res, later, events, { failAfter: b.failAfterChunks, delayMs: b.chunkDelayMs ?? 0 });
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, raw: string): void => {
    const body = parseBodyText(raw);
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    requestIds++;
    const { apiKey, apiKeyHeader } = readKey(req.headers);
    state.requests.push({ method: req.method ?? '', url, headers: req.headers, apiKey, apiKeyHeader, body });
    const isMessages = req.method === 'POST' && path === '/v1/messages';
    const isModels = req.method === 'GET' && path === '/v1/models';
    if (isMessages) state.chats++;
    if (!isMessages && !isModels) return sendError(res, 404, 'not_found_error', 'Not found');
    if (!apiKey) return sendError(res, 401, 'authentication_error', 'x-api-key header is required');
    if (!req.headers['anthropic-version'])
      return sendError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');

    const b = state.behavior;
    if (isMessages) setReplyHeaders(res, b);
    if (isMessages && b.rejectKeys?.includes(apiKey))
      return sendError(res, 401, 'authentication_error', 'invalid x-api-key (mock)');
    if (state.failing(b, isMessages)) {
      const e = anthropicError(b.status!);
      return sendError(res, b.status!, e.type, b.errorMessage?.(req.headers) ?? e.message);
    }
    if (isModels) {
      const ids = b.models ?? ['claude-mock'];
      const data = ids.map((id) => ({
        type: 'model',
        id,
        display_name: `${id} (${name})`,
        created_at: '2025-01-01T00:00:00Z',
      }));
      return sendJson(res, 200, { data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return sendError(
        res,
        400,
        'invalid_request_error',
        'There was an issue with the format of your request: the body is not a JSON object (mock).',
      );
    }
    const request = body as {
      model?: unknown;
      max_tokens?: unknown;
      messages?: unknown;
      stream?: unknown;
      tool_choice?: { type?: unknown; name?: unknown };
    };
    for (const field of ['model', 'max_tokens', 'messages'] as const) {
      if (request[field] === undefined) return sendError(res, 400, 'invalid_request_error', `${field}: Field required`);
    }
    const model = String(request.model);
    const forced = request.tool_choice?.type === 'tool' ? request.tool_choice.name : undefined;
    const answer =
      typeof forced === 'string' && b.forcedToolInput
        ? { ...b, toolCalls: undefined, toolCall: { name: forced, arguments: b.forcedToolInput } }
        : b;
    if (request.stream === true) answerStream(res, answer, model, req.headers);
    else answerMessage(res, answer, model);
  };

  mockHttp = await startMockHttp(opts.port, (req, res, chunks) => handle(req, res, Buffer.concat(chunks).toString()));
  const root = `http://127.0.0.1:${mockHttp.port}`;
  return { ...state.handle(name, mockHttp, `${root}/v1`), rootUrl: root };
}
