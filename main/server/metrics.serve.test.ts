// /api/v1/metrics stays bounded whatever clients send (issue 13, item 4): routes are labelled by their template
// (`not_found` for the rest), app labels are capped, and every way in is counted with the status it answered.
import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentServeProcess, useAgentServe } from '../../test/support/agent-serve.ts';
import { APP_LABEL_LIMIT, LABEL_MAX_CHARS } from '../observability/metrics.ts';

const NAMED_APP = 'Named-App';
const world = useAgentServe('sb-metrics-', ['acme'], { limits: { per_app: { [NAMED_APP]: { rpm: 1_000_000 } } } });
let sb: AgentServeProcess;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
beforeAll(async () => {
  sb = await world().serve();
});
afterAll(() => agent.destroy());

type Req = { method?: string; path: string; headers?: Record<string, string>; body?: unknown };

/** One request over node:http (a Host or Origin of our choosing, a raw path): its status, body read and dropped. */
function send(r: Req): Promise<number> {
  const body = r.body === undefined ? undefined : JSON.stringify(r.body);
  const headers: Record<string, string> = { ...(body ? { 'content-type': 'application/json' } : {}), ...r.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: '127.0.0.1', port: sb.port, method: r.method ?? 'GET', path: r.path, headers },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** Sends every request, 16 at a time; returns how many answered each status. */
async function flood(reqs: Req[]): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < reqs.length) {
      const status = await send(reqs[next++]!);
      counts[status] = (counts[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return counts;
}

const scrape = async (): Promise<string> => {
  const res = await fetch(`${sb.api}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};
const seriesOf = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
/** The values one label takes in one metric's series. */
function labelValues(text: string, metric: string, label: string): Set<string> {
  const out = new Set<string>();
  for (const line of seriesOf(text)) {
    if (!line.startsWith(`${metric}{`)) continue;
    const m = new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`).exec(line);
    if (m) out.add(m[1]!);
  }
  return out;
}
/** switchboard_http_requests_total for one method, route and status (0 when absent). */
function httpCount(text: string, method: string, route: string, status: number): number {
  const line = `switchboard_http_requests_total{method="${method}",route="${route}",status="${status}"} `;
  const found = seriesOf(text).find((l) => l.startsWith(line));
  return found ? Number(found.slice(line.length)) : 0;
}

const hex = (i: number) => i.toString(16).padStart(24, '0');
const chat = { model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] };
const gemini = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

describe('metrics stay bounded', () => {
  it('thousands of unknown paths, refused requests, ids and app names add a bounded number of series', async () => {
    const key = world().keys[0];
    await flood([{ path: '/warm-up' }, { method: 'POST', path: '/v1/chat/completions', body: chat }]);
    const before = seriesOf(await scrape()).length;

    const reqs: Req[] = [];
    for (let i = 0; i < 2000; i++) reqs.push({ path: `/no/such/path/${i}` });
    for (let i = 0; i < 300; i++) reqs.push({ method: 'POST', path: `/v1beta/models/m${i}:noSuchAction`, body: {} });
    for (let i = 0; i < 300; i++)
      reqs.push({ path: `/evil/${i}`, headers: { origin: `http://evil${i}.example` } }, { path: `/admin/v1/x${i}` });
    for (let i = 0; i < 300; i++) reqs.push({ path: `/api/v1/agents/agt_${hex(i)}` }, { path: `/api/v1/nope/${i}` });
    for (let i = 0; i < 200; i++)
      reqs.push(
        { path: `/api/v1/workflows/wf${i}/runs/run_${hex(i)}`, headers: { 'x-api-key': key } },
        { path: `/api/v1/swarms/sw${i}/tasks/stk_${hex(i)}`, headers: { 'x-api-key': key } },
      );
    for (let i = 0; i < 30; i++)
      reqs.push({ method: 'POST', path: `/v1beta/models/m${i}:generateContent`, body: gemini });
    for (let i = 0; i < 400; i++) {
      const app = i === 0 ? 'x'.repeat(5000) : `app-${i}`;
      reqs.push({ method: 'POST', path: '/v1/chat/completions', headers: { 'x-switchboard-app': app }, body: chat });
    }
    reqs.push({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'x-switchboard-app': NAMED_APP },
      body: chat,
    });
    const statuses = await flood(reqs);
    // What each kind answered: 404s, 401s (agent API, admin API), 403s (a foreign Origin), 200s.
    expect(statuses[404]).toBeGreaterThanOrEqual(2000 + 300 + 400);
    expect(statuses[401]).toBe(900);
    expect(statuses[403]).toBe(300);
    expect(statuses[200]).toBe(431);

    const text = await scrape();
    const after = seriesOf(text).length;
    // A handful of routes × statuses, 12 lines per histogram, and at most APP_LABEL_LIMIT + 2 app values: a few
    // hundred lines. Labelled by raw path, the 5,000 requests above added well over 40,000.
    expect(after - before).toBeLessThan(400);
    expect(text.length).toBeLessThan(200_000);
    expect([...labelValues(text, 'switchboard_http_requests_total', 'route')].sort()).toEqual([
      '/api/v1/agents/:id',
      '/api/v1/metrics', // the scrapes
      '/api/v1/swarms/:name/tasks/:id',
      '/api/v1/workflows/:name/runs/:id',
      '/v1/chat/completions',
      '/v1beta/models/{model}:generateContent',
      'not_found',
    ]);
    expect(httpCount(text, 'GET', 'not_found', 404)).toBeGreaterThanOrEqual(2000);
    // A guard's refusal: under the route's template when the path has one, else not_found.
    expect(httpCount(text, 'GET', '/api/v1/agents/:id', 401)).toBe(300);
    expect(httpCount(text, 'GET', 'not_found', 401)).toBe(600);
    expect(httpCount(text, 'GET', 'not_found', 403)).toBe(300);
    expect(httpCount(text, 'GET', '/api/v1/workflows/:name/runs/:id', 404)).toBe(200);
    expect(httpCount(text, 'POST', 'not_found', 404)).toBe(300);
    expect(httpCount(text, 'POST', '/v1beta/models/{model}:generateContent', 200)).toBe(30);

    const apps = labelValues(text, 'switchboard_proxy_requests_total', 'app');
    expect(apps.size).toBeLessThanOrEqual(APP_LABEL_LIMIT + 3); // + other, + NAMED_APP, + '' (no app)
    expect(apps).toContain('other');
    expect(apps).toContain(NAMED_APP); // named in config.json: keeps its own label after the cap is reached
    for (const a of apps) expect(a.length).toBeLessThanOrEqual(LABEL_MAX_CHARS);
    expect([...labelValues(text, 'switchboard_proxy_requests_total', 'provider')].sort()).toEqual(['mock']);
  }, 120_000);
});

describe('every way in is counted with the status it answered', () => {
  it('front doors served through Hono: a provider 404 and a 400 are counted as such, not as 200', async () => {
    const anthropic = new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
    const t0 = await scrape();
    world().mock.setBehavior({ status: 404 });
    const upstream404 = await anthropic.messages
      .create({ model: 'mock-model', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    world().mock.setBehavior({});
    expect(upstream404).toBeInstanceOf(Anthropic.APIError);
    const answered = (upstream404 as InstanceType<typeof Anthropic.APIError>).status;
    expect(answered).toBe(404);
    const bad = await anthropic.messages.create({ model: 'mock-model', max_tokens: 10, messages: 'hi' as never }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((bad as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
    const ok = await anthropic.messages.create({
      model: 'mock-model',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.content[0]).toMatchObject({ type: 'text' });

    const t1 = await scrape();
    const delta = (status: number) =>
      httpCount(t1, 'POST', '/v1/messages', status) - httpCount(t0, 'POST', '/v1/messages', status);
    expect([delta(404), delta(400), delta(200)]).toEqual([1, 1, 1]);
  });

  it('the raw hot path (POST /v1/chat/completions) is counted, with its status', async () => {
    const openai = new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
    const t0 = await scrape();
    const reply = await openai.chat.completions.create({
      model: 'mock-model',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(reply.choices[0]?.message.content).toBe('Hello from mock');
    const bad = await openai.chat.completions.create({ model: 'mock-model', messages: 'hi' as never }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((bad as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    const t1 = await scrape();
    const delta = (status: number) =>
      httpCount(t1, 'POST', '/v1/chat/completions', status) - httpCount(t0, 'POST', '/v1/chat/completions', status);
    expect([delta(200), delta(400)]).toEqual([1, 1]);
    const latency = 'switchboard_http_request_duration_seconds_count{method="POST",route="/v1/chat/completions"}';
    expect(seriesOf(t1).some((l) => l.startsWith(latency))).toBe(true);
  });
});
