// The data client's Connect and usage calls (shared/http-client.ts, which the desktop's IPC handlers also use) against
// a real HTTP server: each goes to its admin route with the token, bodies and queries as the routes take them, the
// desktop handlers reach the same routes, and `notification` events arrive from GET /admin/v1/events.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTransport } from '../../shared/http-client.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import type { Notification } from '../../shared/usage.ts';
import { desktopHandlers } from './ipc-handlers.ts';

type Seen = { method: string; url: string; auth: string | undefined; body: unknown };
const seen: Seen[] = [];
let server: http.Server;
let client: SwitchboardApi;
let eventsOpen = 0;

const notice: Notification = {
  kind: 'provider_down',
  time: '2025-01-02T03:04:05.000Z',
  title: 'Provider alpha is down',
  message: 'alpha failed 5 times in a row.',
  provider: 'alpha',
  app: null,
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/admin/v1/events') {
      eventsOpen++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // A request-log event the notification listener must ignore, then the notice.
      res.write(`event: request\ndata: {"id":"x"}\n\n`);
      res.write(`event: notification\nid: 7\ndata: ${JSON.stringify(notice)}\n\n`);
      return;
    }
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        auth: req.headers.authorization,
        body: text ? JSON.parse(text) : undefined,
      });
      if (req.url!.startsWith('/admin/v1/connect/codex')) {
        res.writeHead(409, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'connect_conflict', message: 'Codex points elsewhere.' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echoed: req.url }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  let key: string | null = null;
  client = httpTransport({
    base: `http://127.0.0.1:${port}`,
    token: 'tok-123',
    keyStore: { get: () => key, set: (k) => void (key = k) },
  });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('the HTTP transport: Connect and usage', () => {
  it('calls each admin route with the token, its method, body and query', async () => {
    seen.length = 0;
    await client.getConnect();
    await client.connectTool({ tool: 'claude-code' });
    await client.connectTool({ tool: 'claude-code', force: true });
    await client.undoConnect({ tool: 'claude-code' });
    await client.tryMessage({ model: 'gpt-4o-mini', message: 'hi' });
    await client.getUsage({ range: 'today' });
    await client.usageRequests({ limit: 50, before: 'u_123' });
    await client.usageRequests({});
    expect(seen.map(({ method, url, body }) => [method, url, body])).toEqual([
      ['GET', '/admin/v1/connect', undefined],
      ['POST', '/admin/v1/connect/claude-code', {}],
      ['POST', '/admin/v1/connect/claude-code', { force: true }],
      ['POST', '/admin/v1/connect/claude-code/undo', {}],
      ['POST', '/admin/v1/try', { model: 'gpt-4o-mini', message: 'hi' }],
      ['GET', '/admin/v1/usage?range=today', undefined],
      ['GET', '/admin/v1/usage/requests?limit=50&before=u_123', undefined],
      ['GET', '/admin/v1/usage/requests', undefined],
    ]);
    expect(new Set(seen.map((s) => s.auth))).toEqual(new Set(['Bearer tok-123']));
  });

  it('the desktop IPC handlers reach the same routes', async () => {
    seen.length = 0;
    const h = desktopHandlers(client, () => ({ shell: 'electron', version: '0', port_conflict: null }), {
      settings: () => Promise.reject(new Error('not called here')),
      setAutoUpdate: () => Promise.reject(new Error('not called here')),
    });
    await h.getConnect();
    await h.connectTool({ tool: 'aider', force: true });
    await h.undoConnect({ tool: 'aider' });
    await h.tryMessage({ model: 'm', message: 'x', app: 'try' });
    await h.getUsage({ range: '7d' });
    await h.usageRequests({ limit: 5 });
    expect(seen.map(({ method, url, body }) => [method, url, body])).toEqual([
      ['GET', '/admin/v1/connect', undefined],
      ['POST', '/admin/v1/connect/aider', { force: true }],
      ['POST', '/admin/v1/connect/aider/undo', {}],
      ['POST', '/admin/v1/try', { model: 'm', message: 'x', app: 'try' }],
      ['GET', '/admin/v1/usage?range=7d', undefined],
      ['GET', '/admin/v1/usage/requests?limit=5', undefined],
    ]);
  });

  it("answers a 409 as a failure with the server's error", async () => {
    const r = await client.connectTool({ tool: 'codex' });
    expect(r).toEqual({
      ok: false,
      failure: { status: 409, error: { code: 'connect_conflict', message: 'Codex points elsewhere.' } },
    });
  });

  it('delivers notification events from /admin/v1/events, and only those', async () => {
    const got: Notification[] = [];
    const off = client.subscribe('notification', (n) => got.push(n));
    const deadline = Date.now() + 3000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    off();
    expect(got).toEqual([notice]);
    expect(eventsOpen).toBe(1);
  });
});
