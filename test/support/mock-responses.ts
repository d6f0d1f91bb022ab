// A real HTTP server speaking the OpenAI Responses API (POST /v1/responses, JSON and SSE) for integration tests.
//
// Written independently of main/proxy/formats/responses.ts so that tests of the provider side decode a stream
// they did not produce themselves. Decisions (pinned in mock-responses.test.ts):
// - baseUrl is 'http://127.0.0.1:<port>/v1', like OpenAI's: a config's base_url is that value.
// - `usage` takes the chat names ({prompt_tokens, completion_tokens}) like mock-provider.ts, so a test can give
//   every mock the same behaviour; the mock answers them as input_tokens / output_tokens.
// - `failAfterChunks` counts SSE events, response.created first; `failTimes` counts from the last setBehavior().
// - `toolCall` replies with one function_call item (no text); its arguments stream in three deltas.
// - GET /v1/models lists `models`; other paths answer 404 with an OpenAI error body.
import http from 'node:http';
import type { CommonBehavior, MockHttp, MockServer, RecordedHttpRequest } from './mock-http.ts';
import { MockState, parseBodyText, sendJsonText, splitInto, startMockHttp, writeStream } from './mock-http.ts';
import { openAiError } from './mock-provider.ts';

/** The shared knobs (`status`: an OpenAI error body; chat requests: POST /v1/responses), and: */
export type MockResponsesBehavior = CommonBehavior & {
  /** Default: prompt_tokens 10, completion_tokens = number of tokens. */
  usage?: { prompt_tokens: number; completion_tokens: number };
};

export type RecordedResponsesRequest = RecordedHttpRequest;

/** baseUrl: 'http://127.0.0.1:<port>/v1'. */
export type MockResponsesProvider = MockServer<MockResponsesBehavior, RecordedResponsesRequest>;

export type MockResponsesOptions = { name?: string; behavior?: MockResponsesBehavior; port?: number };

const errorJson = (message: string, type: string, code: string): string =>
  JSON.stringify({ error: { message, type, param: null, code } });

const sendJson = sendJsonText;

type Reply = { id: string; created: number; model: string; request: Record<string, unknown> };

export async function startMockResponses(opts: MockResponsesOptions = {}): Promise<MockResponsesProvider> {
  const name = opts.name ?? 'mock';
  const state = new MockState<MockResponsesBehavior, RecordedResponsesRequest>(opts.behavior ?? {});
  let sequence = 0;
  let mockHttp: MockHttp | undefined;

  const tokensOf = (b: MockResponsesBehavior): string[] => b.tokens ?? ['Hello', ' from', ` ${name}`];

  const usageOf = (b: MockResponsesBehavior) => {
    const u = b.usage ?? { prompt_tokens: 10, completion_tokens: tokensOf(b).length };
    return {
      input_tokens: u.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: u.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: u.prompt_tokens + u.completion_tokens,
    };
  };

  /** The output items of the finished reply. */
  const outputOf = (b: MockResponsesBehavior, r: Reply) => {
    if (b.toolCall) {
      return [
        {
          id: `fc_${r.id}`,
          type: 'function_call',
          status: 'completed',
          arguments: JSON.stringify(b.toolCall.arguments),
          call_id: `call_${r.id}`,
          name: b.toolCall.name,
        },
      ];
    }
    const text = tokensOf(b).join('');
    return [
      {
        id: `msg_${r.id}`,
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
        role: 'assistant',
      },
    ];
  };

  const responseObject = (b: MockResponsesBehavior, r: Reply, status: 'in_progress' | 'completed') => ({
    id: `resp_${r.id}`,
    object: 'response',
    created_at: r.created,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: r.request.instructions ?? null,
    max_output_tokens: r.request.max_output_tokens ?? null,
    model: r.model,
    output: status === 'completed' ? outputOf(b, r) : [],
    parallel_tool_calls: r.request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: r.request.store ?? true,
    temperature: r.request.temperature ?? 1,
    text: r.request.text ?? { format: { type: 'text' } },
    tool_choice: r.request.tool_choice ?? 'auto',
    tools: r.request.tools ?? [],
    top_p: r.request.top_p ?? 1,
    truncation: 'disabled',
    usage: status === 'completed' ? usageOf(b) : null,
    user: null,
    metadata: {},
  });

  /** The SSE events of one streamed reply, in order. */
  const eventsOf = (b: MockResponsesBehavior, r: Reply): string[] => {
    let seq = 0;
    const events: string[] = [];
    const emit = (type: string, fields: Record<string, unknown>): void => {
      events.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
    };
    emit('response.created', { response: responseObject(b, r, 'in_progress') });
    emit('response.in_progress', { response: responseObject(b, r, 'in_progress') });
    const [item] = outputOf(b, r);
    if (item?.type === 'function_call') {
      const fc = item as { id: string; arguments: string };
      emit('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of splitInto(fc.arguments, 3)) {
        emit('response.function_call_arguments.delta', { item_id: fc.id, output_index: 0, delta });
      }
      emit('response.function_call_arguments.done', {
        item_id: fc.id,
        output_index: 0,
        name: b.toolCall?.name,
        arguments: fc.arguments,
      });
      emit('response.output_item.done', { output_index: 0, item });
    } else if (item) {
      const id = item.id;
      const at = { item_id: id, output_index: 0, content_index: 0 };
      const text = tokensOf(b).join('');
      emit('response.output_item.added', {
        output_index: 0,
        item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
      emit('response.content_part.added', {
        ...at,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      });
      for (const delta of tokensOf(b)) emit('response.output_text.delta', { ...at, delta, logprobs: [] });
      emit('response.output_text.done', { ...at, text, logprobs: [] });
      emit('response.content_part.done', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text } });
      emit('response.output_item.done', { output_index: 0, item });
    }
    emit('response.completed', { response: responseObject(b, r, 'completed') });
    return events;
  };

  const later = (fn: () => void, ms: number): void => mockHttp?.later(fn, ms);

  const stream = (res: http.ServerResponse, b: MockResponsesBehavior, r: Reply): void => {
    const events = eventsOf(b, r);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    writeStream(res, later, events, { failAfter: b.failAfterChunks, delayMs: b.chunkDelayMs ?? 0 });
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, raw: string): void => {
    const body = parseBodyText(raw);
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    state.requests.push({ method: req.method ?? '', url, headers: req.headers, body });
    const b = state.behavior;
    if (req.method === 'GET' && path === '/v1/models') {
      const created = Math.floor(Date.now() / 1000);
      const data = (b.models ?? ['mock-model']).map((id) => ({ id, object: 'model', created, owned_by: name }));
      return sendJson(res, 200, JSON.stringify({ object: 'list', data }));
    }
    if (req.method !== 'POST' || path !== '/v1/responses') {
      return sendJson(
        res,
        404,
        errorJson(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', 'unknown_url'),
      );
    }
    state.chats++;
    if (state.failing(b, true)) {
      const e = openAiError(b.status!);
      return sendJson(res, b.status!, errorJson(e.message, e.type, e.code));
    }
    if (body === null || typeof body !== 'object') {
      return sendJson(
        res,
        400,
        errorJson('We could not parse the JSON body of your request (mock).', 'invalid_request_error', 'invalid_json'),
      );
    }
    const request = body as Record<string, unknown>;
    const reply: Reply = {
      id: `mock${++sequence}`,
      created: Math.floor(Date.now() / 1000),
      model: typeof request.model === 'string' ? request.model : (b.models?.[0] ?? 'mock-model'),
      request,
    };
    if (request.stream === true) stream(res, b, reply);
    else sendJson(res, 200, JSON.stringify(responseObject(b, reply, 'completed')));
  };

  mockHttp = await startMockHttp(opts.port, (req, res, chunks) => handle(req, res, Buffer.concat(chunks).toString()));
  return state.handle(name, mockHttp, `http://127.0.0.1:${mockHttp.port}/v1`);
}
