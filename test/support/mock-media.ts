// Test support: an OpenAI-format provider for the gateway's endpoints (images, audio, rerank, moderations,
// embeddings, chat, video tasks incl. vendor A's shape). Every request is recorded; multipart bodies are parsed
// with the platform's own FormData parser (not Switchboard's).
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type MediaRequest = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  fields: Record<string, string>;
  fileBytes: number;
  /** sha-256 (hex) of the file parts' bytes, in order. */ fileSha256: string;
};

export const SPEECH_BYTES = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256));

export type MockMedia = {
  url: string;
  baseUrl: string;
  requests: MediaRequest[];
  /** Delay before answering chat completions (concurrency tests). */
  chatDelayMs: number;
  /** Chat completions being answered now, and the most there were at once (concurrency tests). */
  chatInFlight: number;
  chatMaxInFlight: number;
  chatUsage: { prompt_tokens: number; completion_tokens: number };
  /** When set, every POST is answered with this status (after reading the whole body): failover tests. */
  failStatus: number;
  /** When set, every GET (a video poll) is answered with this status. */
  pollFailStatus: number;
  /** The message of failStatus's and pollFailStatus's error, made from the request's headers (default: the mock's). */
  failMessage: ((headers: http.IncomingHttpHeaders) => string) | null;
  close: () => Promise<void>;
};

export async function startMockMedia(name: string): Promise<MockMedia> {
  let seq = 0;
  const state: MockMedia = {
    url: '',
    baseUrl: '',
    requests: [],
    chatDelayMs: 0,
    chatInFlight: 0,
    chatMaxInFlight: 0,
    chatUsage: { prompt_tokens: 5, completion_tokens: 5 },
    failStatus: 0,
    pollFailStatus: 0,
    failMessage: null,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const path = (req.url ?? '').split('?')[0]!;
        const ct = req.headers['content-type'] ?? '';
        let fields: Record<string, string> = {};
        let fileBytes = 0;
        const hash = createHash('sha256');
        if (ct.startsWith('multipart/form-data')) {
          // A form the platform's parser refuses is answered 400, as a provider would (the fuzz suite sends them).
          const form = await new Response(body, { headers: { 'content-type': ct } }).formData().catch(() => null);
          if (!form) {
            const text = JSON.stringify({
              error: { message: `mock ${name}: malformed multipart body`, type: 'invalid_request_error', code: null },
            });
            res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
            return res.end(text);
          }
          for (const [k, v] of form.entries()) {
            if (typeof v === 'string') fields[k] = v;
            else {
              fileBytes += v.size;
              hash.update(new Uint8Array(await v.arrayBuffer()));
            }
          }
        } else if (ct.includes('json') && body.length) {
          try {
            fields = JSON.parse(body.toString()) as Record<string, string>;
          } catch {
            fields = {};
          }
        }
        state.requests.push({
          method: req.method ?? '',
          path,
          headers: req.headers,
          bytes: body.length,
          fields,
          fileBytes,
          fileSha256: hash.digest('hex'),
        });
        const json = (status: number, v: unknown) => {
          const text = JSON.stringify(v);
          res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
          res.end(text);
        };
        const model = typeof fields.model === 'string' ? fields.model : 'none';
        const failing = req.method === 'POST' ? state.failStatus : req.method === 'GET' ? state.pollFailStatus : 0;
        if (failing)
          return json(failing, {
            error: {
              message: state.failMessage?.(req.headers) ?? `mock ${name}: failing with ${failing}`,
              type: 'server_error',
            },
          });
        let m: RegExpExecArray | null;
        if (req.method === 'GET' && path === '/v1/models') return json(200, { object: 'list', data: [] });
        if (req.method === 'POST' && path === '/v1/chat/completions') {
          state.chatMaxInFlight = Math.max(state.chatMaxInFlight, ++state.chatInFlight);
          try {
            if (state.chatDelayMs) await new Promise((r) => setTimeout(r, state.chatDelayMs));
          } finally {
            state.chatInFlight--;
          }
          const u = state.chatUsage;
          return json(200, {
            id: `chatcmpl-${++seq}`,
            object: 'chat.completion',
            created: 1,
            model,
            choices: [{ index: 0, message: { role: 'assistant', content: `hi from ${name}` }, finish_reason: 'stop' }],
            usage: { ...u, total_tokens: u.prompt_tokens + u.completion_tokens },
          });
        }
        if (path === '/v1/embeddings') {
          const vec = [0.5, 0.25];
          const embedding =
            (fields as { encoding_format?: string }).encoding_format === 'base64'
              ? Buffer.from(new Float32Array(vec).buffer).toString('base64')
              : vec;
          return json(200, {
            object: 'list',
            data: [{ object: 'embedding', index: 0, embedding }],
            model,
            usage: { prompt_tokens: 2, total_tokens: 2 },
          });
        }
        if (path === '/v1/images/generations')
          return json(200, {
            created: 1,
            data: [{ b64_json: Buffer.from(`img:${name}:${model}`).toString('base64') }],
          });
        if (path === '/v1/images/edits')
          return json(200, {
            created: 1,
            data: [{ b64_json: Buffer.from(`edit:${name}:${model}:${fileBytes}`).toString('base64') }],
          });
        if (path === '/v1/audio/transcriptions' || path === '/v1/audio/translations')
          return json(200, {
            text: `${path.endsWith('translations') ? 'translated' : 'heard'} ${fileBytes} bytes by ${name}/${model}`,
          });
        if (path === '/v1/audio/speech') {
          res.writeHead(200, { 'content-type': 'audio/mpeg' });
          res.write(SPEECH_BYTES.subarray(0, 1000));
          setTimeout(() => res.end(SPEECH_BYTES.subarray(1000)), 20);
          return;
        }
        if (path === '/v1/rerank')
          return json(200, {
            id: 'rr',
            results: [
              { index: 1, relevance_score: 0.9 },
              { index: 0, relevance_score: 0.1 },
            ],
            provider: name,
          });
        if (path === '/v1/moderations')
          return json(200, { id: 'modr', model, results: [{ flagged: false, categories: {}, category_scores: {} }] });
        if (req.method === 'POST' && path === '/v1/videos')
          return json(200, {
            id: `video_${name}_${++seq}`,
            object: 'video',
            status: 'queued',
            model,
            ...(fileBytes ? { input_reference_bytes: fileBytes } : {}),
          });
        if (req.method === 'POST' && path === '/v1/video/generations')
          return json(200, { task_id: `gen_${name}_${++seq}`, status: 'queued' });
        if (req.method === 'POST' && (m = /^\/v1\/videos\/(text2video|image2video)$/.exec(path)))
          return json(200, { code: 0, data: { task_id: `va_${m[1]}_${name}_${++seq}`, task_status: 'submitted' } });
        const get = req.method === 'GET' || req.method === 'HEAD'; // Node writes no body for a HEAD
        if (get && (m = /^\/v1\/videos\/([^/]+)\/content$/.exec(path))) {
          res.writeHead(200, { 'content-type': 'video/mp4' });
          res.end(`VIDEO:${m[1]}:${name}`);
          return;
        }
        if (
          get &&
          (m = /^\/v1\/(?:videos|video\/generations|videos\/text2video|videos\/image2video)\/([^/]+)$/.exec(path))
        ) {
          return json(200, { id: m[1], status: 'completed', served_by: name });
        }
        json(404, {
          error: {
            message: `mock ${name}: no ${req.method} ${path}`,
            type: 'invalid_request_error',
            code: 'not_found',
          },
        });
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${port}`;
  state.baseUrl = `${state.url}/v1`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
