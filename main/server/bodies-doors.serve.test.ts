// The HTTP front of `switchboard serve` (issue 13, items 3 and 8), over real sockets: every route's body bounded
// while it streams (413 before the body ends, in the route's own error shape), a malformed percent-encoding in a path
// is the client's 400, a client that hangs up mid-body is a 499 at info level, a body that stops arriving is a 408
// (a slow streaming reply is not cut), and browser requests: JSON content types on JSON routes, pages on other ports
// refused, the origins config.json allows granted (CORS).
import http from 'node:http';
import net from 'node:net';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AgentServeProcess, useAgentServe } from '../../test/support/agent-serve.ts';
import type { MockProvider } from '../../test/support/mock-provider.ts';
import { eventually } from '../../test/support/serve-process.ts';

const LIMIT = Math.round(0.05 * 1024 * 1024); // max_body_mb 0.05
const API_CAP = 2 * 1024 * 1024; // the admin and agent APIs' fixed cap
const IDLE_MS = 600;

const world = useAgentServe('sb-bodies-', ['acme'], {
  max_body_mb: 0.05,
  body_idle_timeout_ms: IDLE_MS,
  allowed_origins: ['app://obsidian.md', 'vscode-webview://*'],
});
let sb: AgentServeProcess;
let mock: MockProvider;
let key = '';

beforeAll(async () => {
  ({ mock } = world());
  [key] = world().keys;
  sb = await world().serve();
}, 30_000);

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string; json: any };

function answerOf(res: http.IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON
      }
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
    });
  });
}

/**
 * POSTs (or PUTs) a chunked body of up to `total` bytes and never ends it: resolves with the answer, which must come
 * while the body is still open (the server refused it as it streamed, without waiting for the end).
 */
function answerWhileSending(
  path: string,
  total: number,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<Answer & { sent: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${sb.url}${path}`, {
      method: opts.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...opts.headers },
    });
    let sent = 0;
    let answered = false;
    let wake = () => {};
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer with ${sent} bytes sent and the body still open`));
    }, 10_000);
    req.on('response', (res) => {
      answered = true;
      wake();
      answerOf(res).then(
        (a) => {
          clearTimeout(timer);
          req.destroy();
          resolve({ ...a, sent });
        },
        (err: unknown) => reject(err as Error),
      );
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    void (async () => {
      const piece = Buffer.alloc(16 * 1024, 'a');
      req.write('{"model":"mock-model","messages":[{"role":"user","content":"');
      while (!answered && sent < total) {
        sent += piece.length;
        if (!req.write(piece)) await new Promise<void>((r) => ((wake = r), req.once('drain', r)));
      }
    })();
  });
}

/** A raw HTTP/1.1 request on its own socket: what came back, and whether the server closed the connection. */
function rawExchange(
  head: string,
  opts: { body?: string; hangUpAfterMs?: number; waitMs?: number } = {},
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(sb.port, '127.0.0.1');
    let text = '';
    let closedByServer = false;
    socket.on('data', (d) => (text += d.toString()));
    socket.on('end', () => (closedByServer = true));
    socket.on('error', () => {});
    socket.write(head + (opts.body ?? ''));
    if (opts.hangUpAfterMs !== undefined) setTimeout(() => socket.destroy(), opts.hangUpAfterMs);
    const done = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedByServer });
    }, opts.waitMs ?? 5_000);
    socket.on('close', () => {
      clearTimeout(done);
      resolve({ text, closedByServer });
    });
  });
}

const jsonOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as any;

describe('every route bounds its body while it streams: 413 before the body ends, in the route’s own shape', () => {
  it('POST /v1/messages/count_tokens: 413 in Anthropic’s shape (request_too_large)', async () => {
    const a = await answerWhileSending('/v1/messages/count_tokens', LIMIT * 3);
    expect(a.status).toBe(413);
    expect(a.json).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    expect(a.json.error.message).toContain('max_body_mb');
  });

  it('POST /v1beta/models/{m}:countTokens: 413 in Gemini’s shape', async () => {
    const a = await answerWhileSending('/v1beta/models/mock-model:countTokens', LIMIT * 3);
    expect(a.status).toBe(413);
    expect(a.json.error).toMatchObject({ code: 413, details: [{ reason: 'body_too_large' }] });
  });

  it('the agent API (POST /api/v1/agents): 413 body_too_large with details, past its 2 MB cap', async () => {
    const a = await answerWhileSending('/api/v1/agents', API_CAP * 1.5, { headers: { 'x-api-key': key } });
    expect(a.status).toBe(413);
    expect(a.json.error).toMatchObject({ code: 'body_too_large', details: null });
    expect(a.json.error.message).toContain('2 MB');
  });

  it('PUT /admin/v1/config: 413 past its 2 MB cap, and config.json is unchanged', async () => {
    const before = await (await sb.admin('/config')).json();
    const a = await answerWhileSending('/admin/v1/config', API_CAP * 1.5, {
      method: 'PUT',
      headers: { authorization: `Bearer ${sb.adminToken}` },
    });
    expect(a.status).toBe(413);
    expect(a.json.error.code).toBe('body_too_large');
    expect(await (await sb.admin('/config')).json()).toEqual(before);
  });

  it('POST /api/show: 413 in Ollama’s shape past the 2 MB cap', async () => {
    const a = await answerWhileSending('/api/show', API_CAP * 1.5);
    expect(a.status).toBe(413);
    expect(typeof a.json.error).toBe('string');
    expect(a.json.error).toContain('larger than the limit');
  });

  it('the front door (POST /v1/chat/completions) keeps its limit while streaming', async () => {
    const a = await answerWhileSending('/v1/chat/completions', LIMIT * 3);
    expect(a.status).toBe(413);
    expect(a.json.error.code).toBe('body_too_large');
  });

  it('a declared Content-Length over the limit is refused before a byte of the body is sent', async () => {
    const { text } = await rawExchange(
      `POST /v1/messages/count_tokens HTTP/1.1\r\nHost: 127.0.0.1:${sb.port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${150 * 1024 * 1024}\r\n\r\n`,
      { waitMs: 3_000 },
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(jsonOf(text)).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });
});

describe('a malformed percent-encoding in a path is the client’s 400, not a 500', () => {
  it('POST /v1beta/models/%ZZ:generateContent: 400 in Gemini’s shape', async () => {
    const res = await fetch(`${sb.url}/v1beta/models/%ZZ:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.message).toContain('percent-encoding');
  });

  it('GET /vendorb/…/%ZZ (a video task poll): 400 invalid_request', async () => {
    const res = await fetch(`${sb.url}/vendorb/v1/tasks/%ZZ`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('invalid_request');
  });
});

describe('a client that hangs up mid-body', () => {
  const errorLines = (from: number) =>
    sb
      .stderr()
      .slice(from)
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l));

  it('the front door logs 499 client_closed_request at info level, nothing at error level', async () => {
    const from = sb.stderr().length;
    await rawExchange(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${sb.port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 5000\r\n\r\n`,
      { body: '{"model":"mock-model","messages":[', hangUpAfterMs: 100 },
    );
    const entry = await eventually(async () => {
      const logs = (await (await sb.admin('/logs?limit=5')).json()) as { data: any[] };
      const e = logs.data.find((l) => l.path === '/v1/chat/completions' && l.status === 499);
      expect(e).toBeDefined();
      return e;
    });
    expect(entry.error_code).toBe('client_closed_request');
    await eventually(() => expect(sb.stderr().slice(from)).toMatch(/"level":30[^\n]*closed/));
    expect(errorLines(from)).toEqual([]);
  });

  it('a Hono route (count_tokens) logs nothing at error level either', async () => {
    const from = sb.stderr().length;
    await rawExchange(
      `POST /v1/messages/count_tokens HTTP/1.1\r\nHost: 127.0.0.1:${sb.port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 5000\r\n\r\n`,
      { body: '{"model":"mock-model","messages":[', hangUpAfterMs: 100 },
    );
    await eventually(() => expect(sb.stderr().slice(from)).toMatch(/"level":30[^\n]*closed/));
    expect(errorLines(from)).toEqual([]);
  });
});

describe('a body that stops arriving: 408 request_timeout after body_idle_timeout_ms, and the connection closed', () => {
  const trickle = (path: string) =>
    rawExchange(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${sb.port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 5000\r\n\r\n`,
      { body: '{"model":"mock-model",', waitMs: IDLE_MS + 4_000 },
    );

  it('the front door: 408 in OpenAI’s shape', async () => {
    const t0 = Date.now();
    const { text, closedByServer } = await trickle('/v1/chat/completions');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(jsonOf(text).error.code).toBe('request_timeout');
    expect(closedByServer).toBe(true);
    expect(Date.now() - t0).toBeLessThan(IDLE_MS + 3_000);
  });

  it('count_tokens: 408 in Anthropic’s shape', async () => {
    const { text, closedByServer } = await trickle('/v1/messages/count_tokens');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(jsonOf(text)).toMatchObject({ type: 'error' });
    expect(jsonOf(text).error.message).toContain('body_idle_timeout_ms');
    expect(closedByServer).toBe(true);
  });

  it('a streaming reply slower than the idle timeout is not cut (first byte and gaps longer than it)', async () => {
    mock.setBehavior({
      firstByteDelayMs: IDLE_MS * 2,
      chunkDelayMs: IDLE_MS + 300,
      tokens: ['slow', ' but', ' whole'],
    });
    const client = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'mock-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('slow but whole');
    mock.setBehavior({});
  });
});

describe('browser requests: JSON content types on JSON routes, other pages refused, allowed origins granted', () => {
  const chat = JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }], stream: false });
  const post = (path: string, headers: Record<string, string>, body = chat) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(`${sb.url}${path}`, { method: 'POST', headers });
      req.on('response', (res) => void answerOf(res).then(resolve, reject));
      req.on('error', reject);
      req.end(body);
    });
  const self = () => `http://127.0.0.1:${sb.port}`;

  it('a page of this origin posting text/plain (a CORS simple request) to /api/chat: 415 in Ollama’s shape', async () => {
    const a = await post('/api/chat', { origin: self(), 'content-type': 'text/plain;charset=UTF-8' });
    expect(a.status).toBe(415);
    expect(a.json.error).toContain('Content-Type: application/json');
  });

  it('Sec-Fetch-Site alone marks a browser too; a form post to /v1/messages: 415 in Anthropic’s shape', async () => {
    const a = await post('/v1/messages', {
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(a.status).toBe(415);
    expect(a.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('a browser body with no content type at all (a Blob) to the agent API: 415', async () => {
    const a = await post('/api/v1/agents', { origin: self(), 'x-api-key': key }, '{}');
    expect(a.status).toBe(415);
    expect(a.json.error).toMatchObject({ code: 'unsupported_media_type', details: null });
  });

  it('curl -d (x-www-form-urlencoded, no browser headers), as Ollama’s docs show, is still served', async () => {
    const a = await post('/api/chat', {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'curl/8.5.0',
    });
    expect(a.status).toBe(200);
    expect(a.json.message.content).toBe('Hello from mock');
  });

  it('Node’s fetch (Sec-Fetch-Mode only) with a text/plain string body is not taken for a browser', async () => {
    const res = await fetch(`${sb.baseUrl}/chat/completions`, { method: 'POST', body: chat });
    expect(res.status).toBe(200);
  });

  it('the same page sending application/json is served', async () => {
    const a = await post('/api/chat', { origin: self(), 'content-type': 'application/json; charset=utf-8' });
    expect(a.status).toBe(200);
    expect(a.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a page on another port of this machine is refused (403), whatever its content type', async () => {
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:5173']) {
      const a = await post('/api/chat', { origin, 'content-type': 'application/json' });
      expect(a.status).toBe(403);
      expect(a.json.error).toContain(origin);
    }
  });

  it('an origin in allowed_origins passes, with a CORS grant; its preflight is answered', async () => {
    const a = await post('/v1/chat/completions', { origin: 'app://obsidian.md', 'content-type': 'application/json' });
    expect(a.status).toBe(200);
    expect(a.headers['access-control-allow-origin']).toBe('app://obsidian.md');
    const b = await post('/api/chat', { origin: 'vscode-webview://1a2b3c', 'content-type': 'application/json' });
    expect(b.status).toBe(200);
    expect(b.headers['access-control-allow-origin']).toBe('vscode-webview://1a2b3c');
    const pre = await fetch(`${sb.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'app://obsidian.md',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('app://obsidian.md');
    expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    // Routes Hono answers itself carry the grant too: a model list, the agent API.
    const models = await fetch(`${sb.baseUrl}/models`, { headers: { origin: 'app://obsidian.md' } });
    expect(models.status).toBe(200);
    expect(models.headers.get('access-control-allow-origin')).toBe('app://obsidian.md');
    const agents = await fetch(`${sb.url}/api/v1/agents`, {
      headers: { origin: 'vscode-webview://1a2b3c', 'x-api-key': key },
    });
    expect(agents.status).toBe(200);
    expect(agents.headers.get('access-control-allow-origin')).toBe('vscode-webview://1a2b3c');
  });

  it('origins not in allowed_origins still get 403, and the admin API never takes them', async () => {
    for (const origin of ['https://evil.example', 'app://other.app', 'null']) {
      const a = await post('/v1/chat/completions', { origin, 'content-type': 'application/json' });
      expect(a.status).toBe(403);
      expect(a.json.error.code).toBe('origin_not_allowed');
    }
    const admin = await sb.admin('/status', { headers: { origin: 'app://obsidian.md' } });
    expect(admin.status).toBe(403);
  });
});
