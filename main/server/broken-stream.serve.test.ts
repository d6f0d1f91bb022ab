// A provider that answers a stream request with something that is not a stream (an HTML error page with status
// 200, a whole JSON body): when Switchboard translates, the client gets its own error, never an empty success.
import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let broken: http.Server;
let brokenUrl: string;
let good: MockProvider;
let sb: ServeProcess;
let answer = { type: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' };

beforeAll(async () => {
  broken = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': answer.type });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as { port: number }).port}/v1`;
  good = await startMockProvider({ name: 'good' });
  sb = await startServe({
    config: configFor(
      { broken: brokenUrl, good: good.baseUrl },
      {
        rules: [
          { pattern: 'solo-*', provider: 'broken' },
          { pattern: 'chain-*', provider: 'broken' },
          { pattern: 'chain-*', provider: 'good' },
        ],
        default_provider: '',
      },
    ),
  });
});
shutDownAfterAll(() => [sb, good, { close: () => new Promise<void>((r) => broken.close(() => r())) }]);

const claude = () => new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
const ask = (model: string) =>
  claude()
    .messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
    .finalMessage();

describe('a provider stream that carries no events', () => {
  it('fails over to the next provider before anything reached the client', async () => {
    const reply = await ask('chain-model');
    expect(reply.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from good' })]);
  });

  it("is the client's own error (502, Anthropic's shape, quoting what came) when no provider is left", async () => {
    const err = await ask('solo-model').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(String((err as Error).message)).toMatch(/carried no events: <html><body><h1>502 Bad Gateway/);
  });

  it('treats a whole JSON body answered to a stream request the same way', async () => {
    answer = { type: 'application/json', body: '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}' };
    const err = await ask('solo-model').catch((e: unknown) => e);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(String((err as Error).message)).toContain('carried no events');
    expect(String((err as Error).message)).toContain('chatcmpl-1');
  });
});
