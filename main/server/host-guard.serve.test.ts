// The Host guard of the proxy routes, the agent API and the realtime upgrade in local mode (issue 33, item 7):
// `Host: evil.local` (and .internal, .localhost names) was accepted, with an Origin of the same name, where the threat
// table says only a Host naming this machine is. Raw requests to the compiled serve (fetch cannot set Host).
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let mock: MockProvider;
let sb: ServeProcess;

beforeAll(async () => {
  mock = await startMockProvider({ name: 'm' });
  sb = await startServe({ config: { ...configFor({ m: mock.baseUrl }), allowed_hosts: ['host.docker.internal'] } });
}, 30_000);
afterAll(async () => {
  await sb?.stop();
  await mock?.close();
});

type Answer = { status: number; body: string };
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: sb.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const routes = (host: string, origin?: string) => {
  const h = { host, 'content-type': 'application/json', ...(origin ? { origin } : {}) };
  return [
    () => send('POST', '/v1/chat/completions', h, CHAT), // the hot path
    () => send('POST', '/v1/messages', { ...h, 'anthropic-version': '2023-06-01' }, CHAT),
    () => send('GET', '/v1/models', h),
    () => send('GET', '/api/v1/health', h), // the agent API
    () =>
      send('GET', '/v1/realtime?model=gpt-4o-mini', {
        ...h,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      }),
  ];
};

describe('the Host guard in local mode', () => {
  it('*.local, *.internal and *.localhost names that are not this machine are refused, Origin or not', async () => {
    const port = sb.port;
    for (const name of ['evil.local', 'evil.internal', 'evil.localhost']) {
      for (const origin of [`http://${name}:${port}`, undefined]) {
        for (const call of routes(`${name}:${port}`, origin)) {
          const a = await call();
          expect(a.status, `${name} ${origin ?? '(no Origin)'}`).toBe(403);
          if (a.body) expect(a.body).toContain(`host \\"${name}\\" is refused`);
        }
      }
    }
    expect(mock.requests.length).toBe(0);
  });

  it('this machine by its loopback names, and a name of allowed_hosts, are served', async () => {
    for (const host of [`localhost:${sb.port}`, `127.0.0.1:${sb.port}`, `host.docker.internal:${sb.port}`]) {
      const answers = await Promise.all(
        routes(host)
          .slice(0, 4)
          .map((call) => call()),
      );
      expect(
        answers.map((a) => a.status),
        host,
      ).toEqual([200, 200, 200, 200]);
    }
  });

  it('the refusal names the fix: localhost, or allowed_hosts', async () => {
    const a = await send('GET', '/v1/models', { host: `evil.local:${sb.port}` });
    const body = JSON.parse(a.body) as { error: { message: string } };
    expect(body.error.message).toContain('host "evil.local" is refused: it does not resolve to this machine');
    expect(body.error.message).toContain('allowed_hosts');
  });
});
