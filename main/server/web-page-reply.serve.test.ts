// A provider that answers a passed-through request with a web page (status 200, text/html: a base_url pointing at a web
// UI or a captive portal) or a redirect fails like a 5xx: failover before any byte reaches the client, else the
// client's own 502 naming the provider and quoting what came. Issue 32, item 3: the OpenAI SDK's stream used to yield
// nothing and no error. Requests: the official SDKs', and Claude Code's captured one (test/fixtures/real/).
import fs from 'node:fs';
import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const PAGE = '<!DOCTYPE html>\n<html>\n  <head><title>Open WebUI</title></head>\n  <body>Sign in</body>\n</html>\n';

/** What the misconfigured server answers every request with. */
type Answer = { status: number; headers: Record<string, string>; body: string };
let answer: Answer = { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE };
let hits = 0;

let page: http.Server;
let pageRoot: string;
let good: MockProvider;
let sb: ServeProcess;

const claudeCode = JSON.parse(
  fs.readFileSync(new URL('../../test/fixtures/real/claude-code/request-1-with-user-id.json', import.meta.url), 'utf8'),
) as { headers: Record<string, string>; body: Record<string, unknown> };

beforeAll(async () => {
  page = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageRoot = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
  good = await startMockProvider({ name: 'good' });
  const config = configFor(
    { webui: `${pageRoot}/v1`, good: good.baseUrl },
    {
      rules: [
        { pattern: 'solo-*', provider: 'webui' },
        { pattern: 'chain-*', provider: 'webui' },
        { pattern: 'chain-*', provider: 'good' },
        { pattern: 'claude-*', provider: 'webui-anthropic' },
        { pattern: 'llama*', provider: 'webui-ollama' },
      ],
      default_provider: '',
      // Every test fails the same provider on purpose: its breaker must not open and skip it.
      circuit_breaker: { failure_threshold: 1000, cooldown_ms: 1000 },
    },
  ) as { providers: object[] };
  config.providers.push(
    { name: 'webui-anthropic', type: 'anthropic', base_url: `${pageRoot}/v1`, api_key: 'sk-ant-x', enabled: true },
    { name: 'webui-ollama', type: 'ollama', base_url: pageRoot, api_key: '', enabled: true },
  );
  sb = await startServe({ config });
});
shutDownAfterAll(() => [sb, good, { close: () => new Promise<void>((r) => page.close(() => r())) }]);

const openai = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
const chat = (model: string) =>
  openai().chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });

async function streamed(model: string): Promise<string> {
  let text = '';
  for await (const chunk of await chat(model)) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

const webPage = () => (answer = { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE });

describe('a web page answered with 200 on a passthrough route', () => {
  it('fails over to the next provider before any byte reached the client (OpenAI SDK stream)', async () => {
    webPage();
    const before = hits;
    expect(await streamed('chain-model')).toBe('Hello from good');
    expect(hits).toBe(before + 1);
  });

  it("is the OpenAI SDK's error (502 naming the provider, quoting the page), streamed or not, never an empty stream", async () => {
    webPage();
    const err = await streamed('solo-model').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const message = (err as Error).message;
    expect(message).toContain('webui');
    expect(message).toContain('web page (text/html)');
    expect(message).toContain('<!DOCTYPE html> <html> <head><title>Open WebUI</title>');
    const whole = await openai()
      .chat.completions.create({ model: 'solo-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect((whole as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((whole as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_error');
  });

  it("is Anthropic's error shape for Claude Code's captured request passed through to an Anthropic-type provider", async () => {
    webPage();
    const r = await fetch(`${sb.url}/v1/messages`, {
      method: 'POST',
      headers: { ...claudeCode.headers, 'content-type': 'application/json', 'x-api-key': 'x' },
      body: JSON.stringify({ ...claudeCode.body, model: 'claude-sonnet-4-5', stream: true }),
    });
    expect(r.status).toBe(502);
    const body = (await r.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toContain('webui-anthropic');
    expect(body.error.message).toContain('<title>Open WebUI</title>');
    const sdk = await new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 }).messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(sdk).toBeInstanceOf(Anthropic.InternalServerError);
  });

  it("is the Ollama client's error on /api/chat passed through to an Ollama-type provider", async () => {
    webPage();
    const ollama = new Ollama({ host: sb.url });
    const err = await (async () => {
      for await (const part of await ollama.chat({
        model: 'llama3.2',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }))
        void part;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('webui-ollama');
    expect((err as Error).message).toContain('web page');
  });

  it('reads only the start of a long page (quoted at most 200 characters) and fails over all the same', async () => {
    answer = {
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: PAGE + `<p>${'x'.repeat(200_000)}</p>`,
    };
    const err = await streamed('solo-model').catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const quoted = (err as Error).message.split('answers like this): ')[1] ?? '';
    expect(quoted.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(quoted.length).toBeLessThanOrEqual(210);
    expect(await streamed('chain-model')).toBe('Hello from good');
  });

  it('treats a redirect (a captive portal) the same way, naming where it pointed', async () => {
    answer = { status: 302, headers: { location: 'http://portal.example/login', 'content-length': '0' }, body: '' };
    const err = await streamed('solo-model').catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as Error).message).toContain('redirect to http://portal.example/login');
    answer.status = 302;
    expect(await streamed('chain-model')).toBe('Hello from good');
  });

  it('still passes through an event stream a server labels text/plain, and fails one that is plain text', async () => {
    const sse =
      'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"solo-model","choices":[{"index":0,' +
      '"delta":{"content":"fine"},"finish_reason":null}]}\n\ndata: [DONE]\n\n';
    answer = { status: 200, headers: { 'content-type': 'text/plain' }, body: sse };
    expect(await streamed('solo-model')).toBe('fine');
    answer = { status: 200, headers: { 'content-type': 'text/plain' }, body: 'Service temporarily moved' };
    const err = await streamed('solo-model').catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as Error).message).toContain('text/plain that is neither JSON nor an event stream');
    expect((err as Error).message).toContain('Service temporarily moved');
  });
});
