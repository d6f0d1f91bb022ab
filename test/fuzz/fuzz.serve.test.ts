// The fuzz suite (issue 13): every front door, the gateway's endpoints, the model lists, the admin API and the agent
// API of a real `switchboard serve`, over raw sockets, with malformed, mis-typed, mis-encoded and oversized input,
// odd headers, paths, methods and credentials, and malformed HTTP (cases.ts). Seeded and bounded here (about 900
// cases, IN_SUITE_RUNS); `npm run fuzz` runs the same groups with many more (scripts/fuzz.ts).
//
// Properties, per group: every answer is a 2xx or a 4xx (a 413 for a body over the limit; never a 2xx without a
// valid credential, Host or Origin), never a 5xx (a 502/503/504 is a real provider's fault at most, and this world's
// providers are healthy mocks); every 4xx body is in the error shape of the path's own family (shapes.ts); no
// error-level line in the server's log. At the end: the server is alive, answers /api/v1/health, and its resident
// memory is back near its baseline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUPS } from './cases.ts';
import { exchange } from './raw-http.ts';
import { type GroupResult, IN_SUITE_RUNS, report, runGroup, warmUp } from './run.ts';
import { familyOf, shapeProblem } from './shapes.ts';
import { residentBytes, startWorld, type World } from './world.ts';

/** Fixed, so `npm test` draws the same cases every run; FUZZ_SEED=<n> draws others (the long run's seeds). */
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_126);
/** Memory after the run may be at most this times the baseline, plus MEMORY_SLACK_BYTES. */
const MEMORY_RATIO = 1.5;
const MEMORY_SLACK_BYTES = 30 * 1024 * 1024;

let world: World;
let baselineRss = 0;
const results: GroupResult[] = [];

beforeAll(async () => {
  world = await startWorld();
  await warmUp(world);
  await new Promise((r) => setTimeout(r, 1_000));
  baselineRss = await residentBytes(world.serve.child.pid!);
}, 60_000);
afterAll(async () => {
  const total = results.reduce((n, r) => n + r.cases, 0);
  const failed = results.reduce((n, r) => n + r.failures.length, 0);
  console.log(`fuzz: seed ${SEED}, ${total} cases, ${failed} failed`);
  await world?.close();
});

describe(`fuzz (seed ${SEED})`, () => {
  for (const group of GROUPS) {
    it(`${group}: every answer a 2xx or a 4xx in the client's own error shape, no 5xx, no error logged`, async () => {
      const r = await runGroup(world, group, { seed: SEED, runs: IN_SUITE_RUNS[group] });
      results.push(r);
      // On failure the message lists each failing case (#index, request, what was wrong, the answer) and how to
      // replay it alone with the seed.
      expect(r.failures.length + r.errorLines.length, report(r)).toBe(0);
    }, 120_000);
  }

  it('the server survives: alive, /api/v1/health answers, memory back near its baseline', async () => {
    expect(world.serve.child.exitCode, 'serve exited').toBeNull();
    expect(world.serve.child.signalCode, 'serve was killed').toBeNull();
    const health = await fetch(`${world.serve.url}/api/v1/health`);
    expect(health.status).toBe(200);
    // Agent runs the cases started finish, and the heap settles, before memory is read again.
    await new Promise((r) => setTimeout(r, 3_000));
    const after = await residentBytes(world.serve.child.pid!);
    const bound = baselineRss * MEMORY_RATIO + MEMORY_SLACK_BYTES;
    const mb = (n: number) => `${Math.round(n / 1048576)} MB`;
    console.log(`fuzz: RSS ${mb(after)} after the run, baseline ${mb(baselineRss)}, bound ${mb(bound)}`);
    expect(after, `RSS ${mb(after)} after the run, baseline ${mb(baselineRss)}, bound ${mb(bound)}`).toBeLessThan(
      bound,
    );
  }, 30_000);
});

/**
 * What the fuzz found, each pinned by a plain case that fails until it is fixed (the generated groups above fail on
 * the same inputs, seeded).
 */
describe('found by the fuzz', () => {
  const raw = (method: string, target: string, headers: [string, string][], body = '') =>
    exchange(world.port, { method, target, headers, body: Buffer.from(body), framing: 'length' });
  const chat = JSON.stringify({ model: 'via-openai-m', messages: [{ role: 'user', content: 'hi' }] });

  it('Expect: 100-continue is not passed on to the provider (undici refused it: a 502 blamed on the provider)', async () => {
    const x = await raw(
      'POST',
      '/v1/chat/completions',
      [
        ['Content-Type', 'application/json'],
        ['Expect', '100-continue'],
      ],
      chat,
    );
    expect(x.kind === 'response' && x.response.status).toBe(200);
  });

  it('POST /vendorb/%00 goes upstream as the client encoded it (decoded, undici refused it: a 502 on the provider)', async () => {
    const x = await raw('POST', '/vendorb/%00', [['Content-Type', 'application/json']], '{"model":"media-model"}');
    // The media mock has no such path: its own 404, passed through.
    expect(x.kind === 'response' && x.response.status).toBe(404);
  });

  it('a client key Node cannot put in a header (x-switchboard-dropped) no longer drops the connection', async () => {
    const body = JSON.stringify({ model: 'via-gemini-m', messages: [{ role: 'user', content: 'hi', '😀\r\n': 1 }] });
    const x = await raw('POST', '/v1/chat/completions', [['Content-Type', 'application/json']], body);
    expect(x.kind === 'response' && x.response.status).toBe(200);
    if (x.kind === 'response')
      expect(x.response.headers['x-switchboard-dropped']).toBe('messages[].%F0%9F%98%80%0D%0A');
  });

  it('an OpenAI chat message whose content is an object: the Ollama provider is skipped (its translation threw: a 500)', async () => {
    const body = JSON.stringify({ model: 'via-ollama-m', messages: [{ role: 'user', content: { value: 'hi' } }] });
    const x = await raw('POST', '/v1/chat/completions', [['Content-Type', 'application/json']], body);
    // Refused for the Ollama provider (messages[0].content), so the next candidate, the default OpenAI-type provider,
    // gets the client's bytes as they are and answers for itself.
    expect(x.kind === 'response' && x.response.status).toBe(200);
    if (x.kind === 'response') expect(x.response.headers['x-switchboard-provider']).toBe('p-openai');
  });

  // JSON nested deeper than any request needs (the captured ones reach 13 levels) is refused before it is parsed, a 400
  // naming the depth (main/proxy/body.ts: parseJsonBounded, 128 levels, one pass over the bytes). Before, every reader
  // that recurses overflowed the stack on a 20,000-deep array, a 500 internal_error logged at error level: admin.ts's unmaskKeys (structuredClone), gemini/schema.ts's
  // camelizeRequest, JSON.stringify in forward/plan.ts's chatPlan (V8's own recursion gives out near 8,000 levels).
  it('a Gemini request nested 20,000 deep is a 400 in Gemini’s shape, not a 500', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const x = await raw(
      'POST',
      '/v1beta/models/via-anthropic-m:generateContent',
      [['Content-Type', 'application/json']],
      `{"contents":${deep}}`,
    );
    expect(x.kind === 'response' && x.response.status).toBe(400);
  });

  it('PUT /admin/v1/config with JSON nested 20,000 deep is a 400, not a 500', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const x = await raw(
      'PUT',
      '/admin/v1/config',
      [
        ['Authorization', `Bearer ${world.adminToken}`],
        ['Content-Type', 'application/json'],
      ],
      `{"providers":${deep}}`,
    );
    expect(x.kind === 'response' && x.response.status).toBe(400);
  });

  // Node's own refusal of an HTTP/1.1 request without Host, and Hono's of a path it cannot make a URL of, were bare 400s
  // with no body; now main/server/app.ts answers both in the path family's shape (the hot path too).
  const unreadable: [string, string, boolean][] = [
    ['no Host, the hot path', '/v1/chat/completions', true],
    ['no Host, an Anthropic route', '/v1/messages', true],
    ['no Host, the admin API', '/admin/v1/status', true],
    ['a backslash in the path', '/api\\chat', false],
  ];
  it.each(unreadable)('%s: a 400 in the path family’s shape', async (_, target, noHost) => {
    const x = await exchange(world.port, {
      method: 'POST',
      target,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(chat),
      framing: 'length',
      noHost,
    });
    expect(x.kind === 'response' && x.response.status).toBe(400);
    if (x.kind !== 'response') return;
    expect(shapeProblem(familyOf(target), JSON.parse(x.response.body.toString()), 400)).toBeNull();
  });

  // The admin API answers in its own shape whatever the caller's headers (errorFormatFor in
  // main/gateway/front-doors.ts): with anthropic-version (or x-goog-api-key, ?key=) an admin error came in Anthropic's
  // (Gemini's) shape, without the code and action the UI and the CLI read.
  it('an admin API error is in the admin shape even when the caller sends anthropic-version', async () => {
    const x = await raw('DELETE', '/admin/v1/agent-keys/key_none', [
      ['Authorization', `Bearer ${world.adminToken}`],
      ['anthropic-version', '2023-06-01'],
    ]);
    expect(x.kind === 'response' && x.response.status).toBe(404);
    if (x.kind === 'response') expect(shapeProblem('admin', JSON.parse(x.response.body.toString()), 404)).toBeNull();
  });

  // A WebSocket upgrade asked of a route that has none came back in OpenAI's shape on every path; and on the realtime
  // route, a handshake ws refuses came in text/html after the provider's socket was opened (issue 33's fuzz entries).
  const upgradeTo = (target: string, extra: [string, string][] = []) =>
    raw('GET', target, [
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
      ['Sec-WebSocket-Version', '13'],
      ...extra,
    ]);
  it.each([
    ['/v1beta/models', 'gemini'],
    ['/api/v1/agents', 'agent'],
    ['/api/tags', 'ollama'],
    ['/admin/v1/status', 'admin'],
  ] as const)('an upgrade of %s (no WebSocket there) is a 404 in the %s shape', async (target, family) => {
    const x = await upgradeTo(target, [['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==']]);
    expect(x.kind === 'response' && x.response.status).toBe(404);
    if (x.kind === 'response') expect(shapeProblem(family, JSON.parse(x.response.body.toString()), 404)).toBeNull();
  });

  it('a realtime handshake with no key, or an odd subprotocol list, is a 400 in JSON', async () => {
    for (const extra of [
      [],
      [
        ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
        ['Sec-WebSocket-Protocol', 'a,,b'],
      ],
    ] as [string, string][][]) {
      const x = await upgradeTo('/v1/realtime?model=realtime-m', extra);
      expect(x.kind === 'response' && x.response.status).toBe(400);
      if (x.kind === 'response') expect(shapeProblem('openai', JSON.parse(x.response.body.toString()), 400)).toBeNull();
    }
  });

  // A HEAD of the agent API's event stream never got its head (Node drops a HEAD's body writes, and the stream never
  // ends), so the client waited forever (the 20,000-case run of issue 33).
  it('HEAD /api/v1/events answers its head and ends', async () => {
    const x = await exchange(
      world.port,
      {
        method: 'HEAD',
        target: '/api/v1/events?last_event_id=0',
        headers: [['X-Api-Key', world.agentKey]],
        body: Buffer.alloc(0),
        framing: 'length',
      },
      { timeoutMs: 5_000 },
    );
    expect(x.kind === 'response' && x.response.status).toBe(200);
  });

  // main/server/listener.ts answers what Node's HTTP parser refuses (the server's 'clientError': bad framing, an
  // unknown method, a head over 16 KB, bytes not allowed in a path or header) with a JSON body in the error shape of
  // the path's family (read from err.rawPacket's request line; OpenAI's when there is none), where Node's default
  // was a bare "400 Bad Request" / "431" with no body, which no SDK can show.
  const malformed: [string, string, string, [string, string][]][] = [
    ['Content-Length and Transfer-Encoding both', 'POST', '/v1/messages', [['Transfer-Encoding', 'chunked']]],
    ['an unknown method', 'FOO', '/api/chat', []],
    ['a header over 16 KB', 'POST', '/v1beta/models/m:generateContent', [['X-Big', 'b'.repeat(20_000)]]],
  ];
  it.each(malformed)('%s: a 4xx with a JSON body in the path family’s shape', async (_, method, target, extra) => {
    const x = await exchange(world.port, {
      method,
      target,
      headers: [['Content-Type', 'application/json'], ...extra],
      body: Buffer.from('{}'),
      framing: 'length',
    });
    expect(x.kind).toBe('response');
    if (x.kind !== 'response') return;
    expect(x.response.status).toBeGreaterThanOrEqual(400);
    expect(x.response.status).toBeLessThan(500);
    let body: unknown;
    try {
      body = JSON.parse(x.response.body.toString());
    } catch {
      body = undefined;
    }
    expect(shapeProblem(familyOf(target), body, x.response.status)).toBeNull();
  });
});
