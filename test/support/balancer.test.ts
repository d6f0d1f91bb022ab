// The test balancer fails over as nginx does (proxy_next_upstream): a backend that is not listening is skipped for
// the next one; a request that reached a backend which then died without answering is sent again only when it is
// idempotent. A POST it replayed made a second task of one client request whenever `kill -9` caught an instance
// between its commit and its answer (agents-team.serve.test.ts's "none runs twice" saw the marker twice).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startBalancer, type Balancer } from './balancer.ts';

type Backend = { url: string; seen: string[]; close: () => Promise<void> };
const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});

/** A backend that reads each request whole, records it, then answers, or dies without a word (`dies`). */
async function backend(name: string, dies: boolean): Promise<Backend> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${body}`);
      if (dies)
        req.socket.destroy(); // acted on, then gone before its answer (kill -9 after the commit)
      else res.end(`${name} answered`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const b = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  open.push(b);
  return b;
}

async function balance(urls: string[]): Promise<Balancer> {
  const lb = await startBalancer(() => urls);
  open.push(lb);
  return lb;
}

it('a POST that reached a backend which died before answering is not sent to the next one: 502', async () => {
  const a = await backend('a', true);
  const b = await backend('b', false);
  const lb = await balance([a.url, b.url]);
  const res = await fetch(`${lb.url}/api/v1/agents/x/run`, { method: 'POST', body: 'marker-1' });
  expect(res.status).toBe(502);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('backend_failed');
  expect(a.seen).toEqual(['POST marker-1']);
  expect(b.seen).toEqual([]); // before: ['POST marker-1'] (a second task made of one request)
});

it('a GET that reached a backend which died is sent to the next one', async () => {
  const a = await backend('a', true);
  const b = await backend('b', false);
  const lb = await balance([a.url, b.url]);
  const res = await fetch(`${lb.url}/api/v1/tasks/x`);
  expect(await res.text()).toBe('b answered');
  expect(b.seen).toEqual(['GET ']);
});

it('a backend that is not listening is skipped, POST included (nothing reached it)', async () => {
  const gone = await backend('gone', false);
  await gone.close();
  const b = await backend('b', false);
  const lb = await balance([gone.url, b.url]);
  const res = await fetch(`${lb.url}/api/v1/agents/x/run`, { method: 'POST', body: 'marker-2' });
  expect(await res.text()).toBe('b answered');
  expect(b.seen).toEqual(['POST marker-2']);
});
