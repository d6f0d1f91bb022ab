// A real HTTP server speaking Ollama's native API (/api/chat, /api/generate, /api/tags, /api/version, /api/show)
// for tests: scripted replies, tool calls, failures, mid-stream cuts and Ollama's own mid-stream error line.
//
// Decisions (pinned in mock-ollama.test.ts):
// - baseUrl is the server root (`http://127.0.0.1:<port>`), like Ollama's http://127.0.0.1:11434.
// - `stream` defaults to true on /api/chat and /api/generate, as in Ollama; replies are NDJSON.
// - A tool call is sent whole in one line (Ollama sends complete calls with object arguments: they cannot be
//   split across lines as OpenAI-style argument text is); with `toolCall` set, /api/chat replies with no text.
// - `status` answers Ollama's error body {"error": "<text>"} on /api/chat, /api/generate, /api/tags and /api/show;
//   `failTimes` counts /api/chat and /api/generate requests from the last setBehavior().
// - `failAfterChunks` counts NDJSON lines (the final done line included), then destroys the socket;
//   `errorAfterChunks` sends that many lines, then {"error": "..."} and ends the reply, as Ollama does.
// - Model names: /api/chat and /api/generate echo any model; /api/show answers 404 for a model not in `models`
//   (a name without a tag means ":latest"). Default usage: prompt 10, completion = number of tokens.
// - `toolCalls` go whole in one line's message.tool_calls, as Ollama sends several calls.
// - `reasoning` pieces go on /api/chat as `message.thinking` (one line each in a stream) before the reply.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { CommonBehavior, MockHttp, MockServer, RecordedHttpRequest } from './mock-http.ts';
import { callsOf, finished, MockState, sendJsonText, startMockHttp, writeStream } from './mock-http.ts';

/**
 * The shared knobs (one NDJSON line per token; toolCall: on /api/chat; models: the names for /api/tags and
 * /api/show, default ['mock-model:latest']), and:
 */
export type MockOllamaBehavior = CommonBehavior & {
  /** Delay before the response headers; default 0. */
  firstByteDelayMs?: number;
  /** Accept the request and never answer (until close()). */
  hang?: boolean;
  /** Stream: send N lines, then Ollama's mid-stream error line {"error": "..."}, and end the reply. */
  errorAfterChunks?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Thinking pieces (`message.thinking` on /api/chat) before the reply. */
  reasoning?: string[];
};

export type RecordedOllamaRequest = RecordedHttpRequest;

/** baseUrl: the server root 'http://127.0.0.1:<port>'; chatCount(): the POST /api/chat received. */
export type MockOllama = MockServer<MockOllamaBehavior, RecordedOllamaRequest>;

export type MockOllamaOptions = { name?: string; behavior?: MockOllamaBehavior; port?: number };

export const MOCK_OLLAMA_VERSION = '0.6.4';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;
const NDJSON_HEADERS = { 'content-type': 'application/x-ndjson' } as const;
const TEXT_HEADERS = { 'content-type': 'text/plain; charset=utf-8' } as const;
const DETAILS = {
  parent_model: '',
  format: 'gguf',
  family: 'llama',
  families: ['llama'],
  parameter_size: '8.0B',
  quantization_level: 'Q4_K_M',
};
const MODIFIED_AT = '2025-01-15T10:20:30.123456789Z';

/** Ollama's error text for a status, naming the mock so tests can tell providers apart. */
function errorText(status: number, name: string, model: string): string {
  switch (status) {
    case 400:
      return `invalid request (mock ${name})`;
    case 401:
      return `unauthorized (mock ${name})`;
    case 404:
      return `model "${model}" not found, try pulling it first (mock ${name})`;
    case 429:
      return `too many requests (mock ${name})`;
    case 500:
      return `llama runner process has terminated: exit status 2 (mock ${name})`;
    case 503:
      return `server busy, please try again.  maximum pending requests exceeded (mock ${name})`;
    default:
      return `request failed with status ${status} (mock ${name})`;
  }
}

/** Fixed, plausible timings in nanoseconds for given token counts. */
function metrics(usage: { prompt_tokens: number; completion_tokens: number }) {
  const load = 1_250_000;
  const promptEval = usage.prompt_tokens * 1_000_000;
  const evalDuration = usage.completion_tokens * 12_500_000;
  return {
    total_duration: load + promptEval + evalDuration,
    load_duration: load,
    prompt_eval_count: usage.prompt_tokens,
    prompt_eval_duration: promptEval,
    eval_count: usage.completion_tokens,
    eval_duration: evalDuration,
  };
}

const withTag = (model: string): string => (model.includes(':') ? model : `${model}:latest`);

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body), JSON_HEADERS);
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...TEXT_HEADERS, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startMockOllama(opts: MockOllamaOptions = {}): Promise<MockOllama> {
  const name = opts.name ?? 'mock';
  const state = new MockState<MockOllamaBehavior, RecordedOllamaRequest>(opts.behavior ?? {});
  let mockHttp: MockHttp | undefined;

  const later = (fn: () => void, ms: number): void => mockHttp?.later(fn, ms);

  const tokensOf = (b: MockOllamaBehavior): string[] => b.tokens ?? ['Hello', ' from', ` ${name}`];
  const usageOf = (b: MockOllamaBehavior, tokens: number) =>
    b.usage ?? { prompt_tokens: 10, completion_tokens: tokens };

  /** Writes NDJSON lines with the behaviour's delays, cuts and error line. */
  const sendLines = (res: http.ServerResponse, lines: string[], b: MockOllamaBehavior): void => {
    if (b.errorAfterChunks !== undefined) {
      lines = [
        ...lines.slice(0, Math.max(0, b.errorAfterChunks)),
        `${JSON.stringify({ error: `an error was encountered while running the model: unexpected EOF (mock ${name})` })}\n`,
      ];
    }
    const failAfter = b.failAfterChunks;
    const delay = b.chunkDelayMs ?? 0;
    res.writeHead(200, NDJSON_HEADERS);
    writeStream(res, later, lines, { failAfter, delayMs: delay });
  };

  /** Answers /api/chat or /api/generate for `model`, streamed unless the request says `stream: false`. */
  type Answer = (
    res: http.ServerResponse,
    model: string,
    request: Record<string, unknown>,
    b: MockOllamaBehavior,
  ) => void;

  const answerChat: Answer = (res, model, request, b) => {
    const created = () => new Date().toISOString();
    const calls = callsOf(b);
    const toolCalls = calls.length
      ? calls.map((c) => ({ function: { name: c.name, arguments: c.arguments } }))
      : undefined;
    const tokens = toolCalls ? [] : tokensOf(b);
    const done = { done_reason: 'stop', done: true, ...metrics(usageOf(b, toolCalls ? 1 : tokens.length)) };
    const reasoning = b.reasoning ?? [];
    if (request.stream === false) {
      const message = {
        role: 'assistant',
        content: tokens.join(''),
        ...(reasoning.length ? { thinking: reasoning.join('') } : {}),
        ...(toolCalls ? { tool_calls: toolCalls } : {}),
      };
      return sendJson(res, 200, { model, created_at: created(), message, ...done });
    }
    const thinkingLine = (t: string) =>
      `${JSON.stringify({ model, created_at: created(), message: { role: 'assistant', content: '', thinking: t }, done: false })}\n`;
    const lines = reasoning.map(thinkingLine);
    lines.push(
      ...tokens.map(
        (t) =>
          `${JSON.stringify({ model, created_at: created(), message: { role: 'assistant', content: t }, done: false })}\n`,
      ),
    );
    if (toolCalls)
      lines.push(
        `${JSON.stringify({ model, created_at: created(), message: { role: 'assistant', content: '', tool_calls: toolCalls }, done: false })}\n`,
      );
    lines.push(
      `${JSON.stringify({ model, created_at: created(), message: { role: 'assistant', content: '' }, ...done })}\n`,
    );
    sendLines(res, lines, b);
  };

  const answerGenerate: Answer = (res, model, request, b) => {
    const created = () => new Date().toISOString();
    const tokens = tokensOf(b);
    // Raw mode returns no context, as in Ollama.
    const done = {
      done: true,
      done_reason: 'stop',
      ...(request.raw === true ? {} : { context: [1, 2, 3] }),
      ...metrics(usageOf(b, tokens.length)),
    };
    if (request.stream === false)
      return sendJson(res, 200, { model, created_at: created(), response: tokens.join(''), ...done });
    const lines = tokens.map((t) => `${JSON.stringify({ model, created_at: created(), response: t, done: false })}\n`);
    lines.push(`${JSON.stringify({ model, created_at: created(), response: '', ...done })}\n`);
    sendLines(res, lines, b);
  };

  const modelsOf = (b: MockOllamaBehavior): string[] => b.models ?? ['mock-model:latest'];

  const tags = (b: MockOllamaBehavior) => ({
    models: modelsOf(b).map((m) => ({
      name: m,
      model: m,
      modified_at: MODIFIED_AT,
      size: 4_920_753_328,
      digest: createHash('sha256').update(m).digest('hex'),
      details: DETAILS,
    })),
  });

  const show = (model: string) => ({
    license: '',
    modelfile: `# Modelfile generated by "ollama show" (mock ${name})\nFROM ${model}\n`,
    parameters: 'stop                           "<|eot_id|>"',
    template: '{{ .System }}\nUSER: {{ .Prompt }}\nASSISTANT: ',
    details: DETAILS,
    model_info: {
      'general.architecture': 'llama',
      'general.parameter_count': 8_030_261_248,
      'llama.context_length': 131_072,
    },
    capabilities: ['completion', 'tools'],
    modified_at: MODIFIED_AT,
  });

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, raw: string): void => {
    let body: unknown;
    let badJson = false;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        badJson = true;
      }
    }
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const method = req.method ?? '';
    state.requests.push({ method, url, headers: req.headers, body });

    const route = `${method} ${path}`;
    const isChat = route === 'POST /api/chat';
    const isGenerate = route === 'POST /api/generate';
    if (isChat) state.chats++;
    if (route === 'GET /' || route === 'HEAD /') return sendText(res, 200, 'Ollama is running');
    if (route === 'GET /api/version') return sendJson(res, 200, { version: MOCK_OLLAMA_VERSION });
    const known = isChat || isGenerate || route === 'GET /api/tags' || route === 'POST /api/show';
    if (!known) return sendText(res, 404, '404 page not found');

    const b = state.behavior;
    if (b.hang) return; // close() destroys the socket
    const failing = state.failing(b, isChat || isGenerate);

    const answer = (): void => {
      if (finished(res)) return;
      const request = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<
        string,
        unknown
      >;
      const model =
        typeof request.model === 'string' ? request.model : typeof request.name === 'string' ? request.name : '';
      if (failing) return sendJson(res, b.status as number, { error: errorText(b.status as number, name, model) });
      if (route === 'GET /api/tags') return sendJson(res, 200, tags(b));
      if (badJson)
        return sendJson(res, 400, { error: `invalid character looking for beginning of value (mock ${name})` });
      if (model === '') return sendJson(res, 400, { error: 'model is required' });
      if (route === 'POST /api/show') {
        if (!modelsOf(b).includes(withTag(model))) return sendJson(res, 404, { error: `model '${model}' not found` });
        return sendJson(res, 200, show(model));
      }
      if (isChat) return answerChat(res, model, request, b);
      answerGenerate(res, model, request, b);
    };
    const delay = b.firstByteDelayMs ?? 0;
    if (delay > 0) later(answer, delay);
    else answer();
  };

  mockHttp = await startMockHttp(opts.port, (req, res, chunks) => handle(req, res, Buffer.concat(chunks).toString()));
  return state.handle(name, mockHttp, `http://127.0.0.1:${mockHttp.port}`);
}
