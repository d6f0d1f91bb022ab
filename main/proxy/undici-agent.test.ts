// The deep import of undici's Agent is the very class the package's index exports, and it dispatches.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent as IndexAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent } from './undici-agent.ts';

describe('undici Agent from its own module', () => {
  it('is the class undici exports, and answers a request through dispatch', async () => {
    expect(Agent).toBe(IndexAgent);
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const agent = new Agent({ keepAliveTimeout: 1000 });
    try {
      const port = (server.address() as AddressInfo).port;
      const body = await new Promise<string>((resolve, reject) => {
        let text = '';
        agent.dispatch(
          { origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' },
          {
            onConnect: () => {},
            onHeaders: () => true,
            onData: (chunk: Buffer) => ((text += chunk.toString()), true),
            onComplete: () => resolve(text),
            onError: reject,
          },
        );
      });
      expect(body).toBe('ok');
    } finally {
      await agent.close();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('undici Agent request API', () => {
  it('has request() as the index gives it (the /models listing uses it)', async () => {
    const server = http.createServer((_req, res) => res.end('{"data":[]}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const agent = new Agent();
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await agent.request({ origin: `http://127.0.0.1:${port}`, path: '/v1/models', method: 'GET' });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ data: [] });
    } finally {
      await agent.close();
      await new Promise((r) => server.close(r));
    }
  });
});
