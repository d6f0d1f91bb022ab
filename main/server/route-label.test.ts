// The HTTP metrics middleware on a small Hono app over a real socket: labels are route templates (Gemini's
// `{model}:{action}` with a known action), `not_found` for the rest, and a handler that answered on the raw Node
// response is counted with the status it wrote, even when it writes after returning.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../observability/metrics.ts';
import { httpMetrics } from './route-label.ts';

const metrics = new Metrics({
  queueDepth: () => 0,
  queueRunning: () => 0,
  tasksByStatus: () => ({}),
  wal: () => ({ total_entries: 0, pending_entries: 0, corrupted_entries: 0, buffer_usage: 0, healthy: true }),
  subscribers: () => 0,
});
const app = new Hono<{ Bindings: HttpBindings }>();
app.use('*', httpMetrics(metrics));
app.use('*', async function guard(c, next) {
  if (c.req.header('x-refuse')) return c.text('refused', 403);
  await next();
});
app.get('/items/:id', (c) => c.text(c.req.param('id')));
app.post('/v1beta/models/*', (c) => c.text('gemini'));
app.get('/raw-now', (c) => {
  c.env.outgoing.writeHead(404).end('raw');
  return RESPONSE_ALREADY_SENT;
});
app.get('/raw-later', (c) => {
  setTimeout(() => c.env.outgoing.writeHead(418).end('later'), 50);
  return RESPONSE_ALREADY_SENT;
});
app.get('/raw-never', () => RESPONSE_ALREADY_SENT); // a reply that never comes (a client that gives up first)
const sub = new Hono<{ Bindings: HttpBindings }>();
sub.get('/runs/:run', (c) => c.text('run'));
app.route('/workflows/:name', sub);

const server = http.createServer(getRequestListener(app.fetch));
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

async function count(method: string, route: string, status: number): Promise<number> {
  const line = `switchboard_http_requests_total{method="${method}",route="${route}",status="${status}"} `;
  const found = (await metrics.text()).split('\n').find((l) => l.startsWith(line));
  return found ? Number(found.slice(line.length)) : 0;
}
const hit = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(base + path, init);
  await res.text();
  return res.status;
};

describe('route labels', () => {
  it('a route template, whatever the ids; nested routes with their mount path', async () => {
    for (const id of ['a', 'b', 'c']) expect(await hit(`/items/${id}`)).toBe(200);
    expect(await hit('/workflows/wf1/runs/run_1')).toBe(200);
    expect(await count('GET', '/items/:id', 200)).toBe(3);
    expect(await count('GET', '/workflows/:name/runs/:run', 200)).toBe(1);
  });

  it('Gemini: /v1beta/models/{model}:{action} for the three actions served, not_found for the rest', async () => {
    const post = { method: 'POST' };
    for (const p of ['gemini-2.5-pro:generateContent', 'm:streamGenerateContent', 'models%2Fm%3AcountTokens'])
      expect(await hit(`/v1beta/models/${p}`, post)).toBe(200);
    for (const p of ['m:bogus', ':generateContent', 'no-action']) await hit(`/v1beta/models/${p}`, post);
    expect(await count('POST', '/v1beta/models/{model}:generateContent', 200)).toBe(1);
    expect(await count('POST', '/v1beta/models/{model}:streamGenerateContent', 200)).toBe(1);
    expect(await count('POST', '/v1beta/models/{model}:countTokens', 200)).toBe(1);
    expect(await count('POST', 'not_found', 200)).toBe(3);
  });

  it('a guard refusal is counted under the template of the route it would have reached, else not_found', async () => {
    expect(await hit('/items/x', { headers: { 'x-refuse': '1' } })).toBe(403);
    expect(await hit('/nothing/here', { headers: { 'x-refuse': '1' } })).toBe(403);
    expect(await hit('/nothing/else')).toBe(404);
    expect(await hit('/items/x', { method: 'DELETE' })).toBe(404); // no DELETE route: not_found
    expect(await count('GET', '/items/:id', 403)).toBe(1);
    expect(await count('GET', 'not_found', 403)).toBe(1);
    expect(await count('GET', 'not_found', 404)).toBe(1);
    expect(await count('DELETE', 'not_found', 404)).toBe(1);
  });
});

describe('the status of a reply written on the raw response', () => {
  it('is the status written, not 200, also when it is written after the handler returned', async () => {
    expect(await hit('/raw-now')).toBe(404);
    expect(await hit('/raw-later')).toBe(418);
    expect(await count('GET', '/raw-now', 404)).toBe(1);
    // Counted when the response closes, which may come a moment after the client has read it.
    await expect.poll(() => count('GET', '/raw-later', 418)).toBe(1);
    expect(await count('GET', '/raw-now', 200)).toBe(0);
  });

  it('is 499 when the client went away before any answer', async () => {
    const req = http.get(`${base}/raw-never`);
    req.once('error', () => {});
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    await expect.poll(() => count('GET', '/raw-never', 499)).toBe(1);
    expect(await count('GET', '/raw-never', 200)).toBe(0);
  });
});
