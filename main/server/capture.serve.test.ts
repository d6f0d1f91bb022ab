// Request capture and replay through the compiled `serve` (issue 38): 100 requests across the four front doors
// (OpenAI chat, Anthropic Messages, Responses, Gemini), streamed and whole, to three mock providers, captured in the
// data folder (0600) with no provider key and no client credential in any file; GET /admin/v1/logs/:id/body gives
// the bodies back with the answer reassembled; retention trims by count, age and bytes. Replay: a captured Claude Code
// request sent to an OpenAI-type mock (translated), a 3-model compare run at once, and replays marked in the log and
// counted apart (app "replay") in usage. The admin guards (token, Host, Origin) hold on both routes.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockGemini, startMockGemini } from '../../test/support/mock-gemini.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const KEYS = {
  oa: 'sk-oa-provider-key-0123456789abcdef',
  an: 'sk-ant-provider-key-0123456789abcdef',
  ge: 'AIzaProviderKey0123456789abcdefghijklm',
};
const CLIENT = {
  bearer: 'client-bearer-credential-4f8a2c9e',
  xApiKey: 'client-x-api-key-credential-77b1d0',
  gemini: 'client-gemini-query-key-3c5e9a1f',
};
const fixture = JSON.parse(
  readFileSync(new URL('../../test/fixtures/real/claude-code/mcp-tools-turn.json', import.meta.url), 'utf8'),
) as { headers: Record<string, string>; body: Record<string, unknown> };

let oa: MockProvider;
let an: MockAnthropic;
let ge: MockGemini;
let sb: ServeProcess;

function config(capture: unknown): Record<string, unknown> {
  return {
    listen_port: 11434,
    log_requests: false,
    start_on_login: false,
    providers: [
      { name: 'oa', type: 'openai', base_url: oa.baseUrl, api_key: KEYS.oa, enabled: true },
      { name: 'an', type: 'anthropic', base_url: an.baseUrl, api_key: KEYS.an, enabled: true },
      { name: 'ge', type: 'gemini', base_url: ge.baseUrl, api_key: KEYS.ge, enabled: true },
    ],
    routing: {
      default_provider: 'oa',
      rules: [
        { pattern: 'gpt-*', provider: 'oa' },
        { pattern: 'claude-*', provider: 'an' },
        { pattern: 'gemini-*', provider: 'ge' },
      ],
    },
    app_rules: [],
    health_check: { interval_ms: 0, timeout_ms: 2000 },
    secret_guard: { default: 'off' },
    capture,
  };
}

async function useCapture(capture: unknown): Promise<void> {
  const res = await sb.admin('/config', { method: 'PUT', body: JSON.stringify(config(capture)) });
  expect(res.status).toBe(200);
}

const capturesDir = () => path.join(sb.dir, 'data', 'captures');
async function captureFiles(): Promise<string[]> {
  try {
    return (await fs.readdir(capturesDir())).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

type Entry = { id: string; app: string | null; provider: string | null; replay_of?: string; captured?: true };
async function newestEntries(n: number): Promise<Entry[]> {
  return ((await (await sb.admin(`/logs?limit=${n}`)).json()) as { data: Entry[] }).data;
}

/** One request through a front door; `i` picks the door and whether it streams. */
async function sendOne(i: number): Promise<Response> {
  const stream = i % 2 === 1;
  const text = `question ${i}`;
  switch (i % 4) {
    case 0:
      return fetch(`${sb.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${CLIENT.bearer}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: text }] }),
      });
    case 1:
      return fetch(`${sb.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': CLIENT.xApiKey, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 64,
          stream,
          messages: [{ role: 'user', content: text }],
        }),
      });
    case 2:
      return fetch(`${sb.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${CLIENT.bearer}` },
        body: JSON.stringify({ model: 'gpt-4.1', stream, input: text }),
      });
    default: {
      const method = stream ? 'streamGenerateContent?alt=sse&' : 'generateContent?';
      return fetch(`${sb.url}/v1beta/models/gemini-2.5-flash:${method}key=${CLIENT.gemini}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
      });
    }
  }
}

/** A raw admin GET with chosen headers (the Host guard needs a Host fetch would not send). */
function rawGet(route: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: sb.port, path: `/admin/v1${route}`, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  oa = await startMockProvider({ name: 'oa' });
  an = await startMockAnthropic({ name: 'an' });
  ge = await startMockGemini({ name: 'ge' });
  sb = await startServe({ config: config({ enabled: false }) });
});
afterAll(async () => {
  await sb?.stop();
  await Promise.all([oa?.close(), an?.close(), ge?.close()]);
});

describe('request capture (serve)', () => {
  it('off by default: nothing is written, and the body route says capture_not_found', async () => {
    const res = await sendOne(0);
    expect(res.status).toBe(200);
    await res.text();
    const [entry] = await eventually(async () => {
      const e = await newestEntries(1);
      expect(e.length).toBe(1);
      return e;
    });
    expect(entry!.captured).toBeUndefined();
    const body = await sb.admin(`/logs/${entry!.id}/body`);
    expect(body.status).toBe(404);
    expect(((await body.json()) as { error: { code: string } }).error.code).toBe('capture_not_found');
    expect(await captureFiles()).toEqual([]);
  });

  it('100 requests across formats are captured, 0600, none holds a provider key or a client credential', async () => {
    await useCapture({ enabled: true, max_requests: 1000 });
    for (let i = 0; i < 100; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => sendOne(i + k)));
      for (const r of batch) {
        expect(r.status).toBe(200);
        await r.text();
      }
    }
    const files = await eventually(async () => {
      const f = await captureFiles();
      expect(f.length).toBe(100);
      return f;
    });
    const dirMode = (await fs.stat(capturesDir())).mode & 0o777;
    if (process.platform !== 'win32') expect(dirMode).toBe(0o700);
    const forbidden = [...Object.values(KEYS), ...Object.values(CLIENT)];
    for (const f of files) {
      const file = path.join(capturesDir(), f);
      if (process.platform !== 'win32') expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const text = await fs.readFile(file, 'utf8');
      for (const secret of forbidden) expect(text, `${f} holds ${secret}`).not.toContain(secret);
    }
    // Every format is there, and the log entries say they were captured.
    const entries = (await newestEntries(100)).filter((e) => e.captured);
    expect(entries.length).toBe(100);
    const paths = new Set<string>();
    for (const e of entries.slice(0, 8)) {
      const res = await sb.admin(`/logs/${e.id}/body`);
      expect(res.status).toBe(200);
      const c = (await res.json()) as {
        path: string;
        request: { body: string; headers: Record<string, string> };
        response: { status: number; body: string };
        answer: { text: string };
      };
      paths.add(c.path.split('?')[0]!.replace(/models\/.*/, 'models'));
      expect(c.request.body).toMatch(/question \d+/);
      expect(c.request.headers.authorization).toBeUndefined();
      expect(c.request.headers['x-api-key']).toBeUndefined();
      expect(c.response.status).toBe(200);
      // The mocks' answer, reassembled from the stream where it streamed.
      expect(c.answer.text.length).toBeGreaterThan(0);
    }
    expect(paths).toEqual(new Set(['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1beta/models']));
  });

  it('retention trims by count, by bytes and by age', async () => {
    expect((await captureFiles()).length).toBe(100);
    await useCapture({ enabled: true, max_requests: 10 });
    await eventually(async () => expect((await captureFiles()).length).toBe(10));
    // Bytes: room for about three of them.
    const sizes = await Promise.all(
      (await captureFiles()).map(async (f) => (await fs.stat(path.join(capturesDir(), f))).size),
    );
    const most = Math.max(...sizes);
    await useCapture({ enabled: true, max_requests: 10, max_mb: (most * 3.5) / (1024 * 1024) });
    await eventually(async () => {
      const n = (await captureFiles()).length;
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(4);
    });
    // Age: 2 seconds.
    await useCapture({ enabled: true, days: 2 / 86_400 });
    await new Promise((r) => setTimeout(r, 2_100));
    const res = await sendOne(0);
    await res.text();
    await eventually(async () => expect((await captureFiles()).length).toBe(1));
  });

  it('a secret the guard would find is stored as its placeholder, whatever the policy (here off)', async () => {
    await useCapture({ enabled: true });
    const aws = 'AKIAZ3MXQ7RT4LNV2WKY';
    const res = await fetch(`${sb.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `my .env:\nSTRIPE_SECRET=sk_live_4eC39HqLyjWDarjtT1zdp7dc\nAWS=${aws}` }],
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const [e] = await eventually(async () => {
      const list = await newestEntries(1);
      expect(list[0]?.captured).toBe(true);
      return list;
    });
    const body = await eventually(async () => {
      const r = await sb.admin(`/logs/${e!.id}/body`);
      expect(r.status).toBe(200);
      return (await r.json()) as { request: { body: string } };
    });
    // Sent to the provider as it was (the guard is off), stored without it.
    expect(JSON.stringify(oa.requests.at(-1)!.body)).toContain(aws);
    expect(body.request.body).not.toContain(aws);
    expect(body.request.body).not.toContain('sk_live_4eC39HqLyjWDarjtT1zdp7dc');
    expect(body.request.body).toMatch(/\[REDACTED_AWS_ACCESS_KEY_ID_[0-9a-f]{8}\]/);
  });

  it('only the apps capture.apps names', async () => {
    await useCapture({ enabled: true, apps: ['Cursor.app'] });
    const before = new Set(await captureFiles());
    const other = await fetch(`${sb.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchboard-app': 'zed' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await other.text();
    const named = await fetch(`${sb.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchboard-app': 'cursor' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await named.text();
    await eventually(async () => expect((await captureFiles()).filter((f) => !before.has(f)).length).toBe(1));
    const [newest] = await newestEntries(1);
    expect(newest!.app).toBe('cursor');
    expect(newest!.captured).toBe(true);
  });

  it('the body route keeps the admin guards: token, Host, Origin; an id not of the log form is a 404', async () => {
    const [e] = await newestEntries(1);
    const route = `/logs/${e!.id}/body`;
    const auth = { authorization: `Bearer ${sb.adminToken}` };
    expect(await rawGet(route, { host: `127.0.0.1:${sb.port}`, ...auth })).toBe(200);
    expect(await rawGet(route, { host: `127.0.0.1:${sb.port}` })).toBe(401);
    expect(await rawGet(route, { host: `evil.example:${sb.port}`, ...auth })).toBe(403);
    expect(await rawGet(route, { host: `127.0.0.1:${sb.port}`, origin: 'https://evil.example', ...auth })).toBe(403);
    expect((await sb.admin('/logs/..%2F..%2Fconfig/body')).status).toBe(404);
    expect((await sb.admin('/logs/not-an-id/body')).status).toBe(404);
  });
});

describe('replay and compare (serve)', () => {
  let original: string;

  beforeAll(async () => {
    await useCapture({ enabled: true });
    an.setBehavior({ tokens: ['The original ', 'answer.'] });
    const res = await fetch(`${sb.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { ...fixture.headers, 'x-api-key': CLIENT.xApiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ ...fixture.body, model: 'claude-sonnet-4-5', stream: true }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const [e] = await eventually(async () => {
      const list = await newestEntries(1);
      expect(list[0]?.captured).toBe(true);
      return list;
    });
    original = e!.id;
    await eventually(async () => expect((await sb.admin(`/logs/${original}/body`)).status).toBe(200));
  });

  it('a captured Claude Code request replayed to an OpenAI-type provider: both answers side by side', async () => {
    oa.setBehavior({ tokens: ['The replayed ', 'answer.'] });
    const before = oa.chatCount();
    const res = await sb.admin('/replay', {
      method: 'POST',
      body: JSON.stringify({ log_id: original, targets: [{ provider: 'oa', model: 'gpt-4.1' }] }),
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as {
      original: { text: string; provider: string };
      replays: { log_id: string; status: number; text: string; provider: string; prompt_tokens: number | null }[];
    };
    expect(out.original.text).toBe('The original answer.');
    expect(out.original.provider).toBe('an');
    expect(out.replays).toHaveLength(1);
    expect(out.replays[0]!.status).toBe(200);
    expect(out.replays[0]!.text).toBe('The replayed answer.');
    expect(out.replays[0]!.provider).toBe('oa');
    // Translated: the OpenAI mock got a chat request with Claude Code's tools, for the model asked.
    expect(oa.chatCount()).toBe(before + 1);
    const sent = oa.requests.at(-1)!.body as { model: string; tools: unknown[]; messages: unknown[] };
    expect(sent.model).toBe('gpt-4.1');
    expect(sent.tools.length).toBe((fixture.body.tools as unknown[]).length);
    // Marked in the log as a replay of the original, under app "replay".
    const entry = (await newestEntries(20)).find((x) => x.id === out.replays[0]!.log_id)!;
    expect(entry.replay_of).toBe(original);
    expect(entry.app).toBe('replay');
    expect(entry.provider).toBe('oa');
  });

  it('a compare on 3 models runs them at once; replays are counted apart in usage', async () => {
    oa.setBehavior({ tokens: ['slow'], firstByteDelayMs: 600 });
    const anBefore = an.chatCount();
    const t0 = performance.now();
    const res = await sb.admin('/replay', {
      method: 'POST',
      body: JSON.stringify({
        log_id: original,
        // The rules send claude-* to "an": a replay still goes to the provider it names.
        targets: [
          { provider: 'oa', model: 'gpt-4.1' },
          { provider: 'oa', model: 'gpt-4o' },
          { provider: 'oa', model: 'claude-haiku-4-5' },
        ],
      }),
    });
    const took = performance.now() - t0;
    expect(res.status).toBe(200);
    const out = (await res.json()) as { replays: { model: string; status: number; log_id: string }[] };
    expect(out.replays.map((r) => [r.model, r.status])).toEqual([
      ['gpt-4.1', 200],
      ['gpt-4o', 200],
      ['claude-haiku-4-5', 200],
    ]);
    const logged = await newestEntries(20);
    for (const r of out.replays) expect(logged.find((e) => e.id === r.log_id)?.provider).toBe('oa');
    expect(new Set(out.replays.map((r) => r.log_id)).size).toBe(3);
    expect(an.chatCount()).toBe(anBefore);
    // In parallel: three 600 ms answers in well under 3 × 600 ms.
    expect(took).toBeLessThan(1500);
    oa.setBehavior({});
    const usage = await eventually(async () => {
      const u = (await (await sb.admin('/usage?range=24h')).json()) as { by_app: { key: string; requests: number }[] };
      const replay = u.by_app.find((r) => r.key === 'replay');
      expect(replay?.requests).toBeGreaterThanOrEqual(4);
      return u;
    });
    expect(usage.by_app.some((r) => r.key !== 'replay')).toBe(true);
  });

  it('a replay header without the token marks nothing and pins nothing', async () => {
    const res = await fetch(`${sb.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-switchboard-replay': `guess.${Buffer.from(JSON.stringify({ of: original, id: original, provider: 'an' })).toString('base64url')}`,
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const [e] = await newestEntries(1);
    expect(e!.replay_of).toBeUndefined();
    expect(e!.provider).toBe('oa');
  });

  it('refusals: an unknown log id, an unknown provider, too many targets, not JSON', async () => {
    const post = (body: string) => sb.admin('/replay', { method: 'POST', body });
    const unknown = await post(
      JSON.stringify({ log_id: '00000000-0000-4000-8000-000000000000', targets: [{ provider: 'oa', model: 'x' }] }),
    );
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('capture_not_found');
    expect((await post(JSON.stringify({ log_id: original, targets: [{ provider: 'nope', model: 'x' }] }))).status).toBe(
      400,
    );
    const six = Array.from({ length: 6 }, () => ({ provider: 'oa', model: 'x' }));
    expect((await post(JSON.stringify({ log_id: original, targets: six }))).status).toBe(400);
    expect((await post('{')).status).toBe(400);
    expect(await rawGet('/replay', { host: `127.0.0.1:${sb.port}` })).toBe(401);
  });
});

describe('where the tokens went (serve)', () => {
  // A session of its own (the replays above sent Claude Code's with the fixture's).
  const session = 'a7c1e0f2-attribution-session';

  it("a captured Claude Code request with MCP tools: the split adds up to the provider's input tokens, per tool and server", async () => {
    await useCapture({ enabled: true });
    an.setBehavior({ usage: { input_tokens: 21_000, cache_read_input_tokens: 6_500, output_tokens: 12 } });
    const send = () =>
      fetch(`${sb.url}/v1/messages?beta=true`, {
        method: 'POST',
        headers: {
          ...fixture.headers,
          'x-claude-code-session-id': session,
          'x-api-key': CLIENT.xApiKey,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ ...fixture.body, stream: false }),
      });
    for (let i = 0; i < 2; i++) {
      const res = await send();
      expect(res.status).toBe(200);
      await res.text();
    }
    an.setBehavior({});
    const out = await eventually(async () => {
      const res = await sb.admin(`/usage/attribution?session=${session}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        requests: { id: string; session: string; split: Record<string, unknown> }[];
        total: { input_tokens: number; mcp_servers: Record<string, number>; tools: Record<string, number> };
        days: unknown[];
      };
      expect(body.requests.length).toBe(2);
      return body;
    });
    const entries = await newestEntries(10);
    for (const r of out.requests) {
      const s = r.split as {
        input_tokens: number;
        exact: boolean;
        system: number;
        tool_definitions: number;
        tool_results: number;
        conversation: number;
        other: number;
        tools: Record<string, number>;
        mcp_servers: Record<string, number>;
        results: Record<string, number>;
      };
      expect(r.session).toBe(session);
      const logged = (entries.find((e) => e.id === r.id) as unknown as { prompt_tokens: number }).prompt_tokens;
      expect(logged).toBe(27_500);
      expect(s.exact).toBe(true);
      const sum = s.system + s.tool_definitions + s.tool_results + s.conversation + s.other;
      expect(Math.abs(sum - logged) / logged).toBeLessThanOrEqual(0.02);
      expect(s.system).toBeGreaterThan(0);
      expect(s.conversation).toBeGreaterThan(0);
      // Per tool, adding up to the tool definitions (within rounding), and per MCP server.
      const perTool = Object.values(s.tools).reduce((a, b) => a + b, 0);
      expect(Math.abs(perTool - s.tool_definitions)).toBeLessThanOrEqual(Object.keys(s.tools).length);
      expect(Object.keys(s.mcp_servers).sort()).toEqual(['everything', 'filesystem']);
      const everything = Object.entries(s.tools)
        .filter(([k]) => k.startsWith('mcp__everything__'))
        .reduce((a, [, v]) => a + v, 0);
      expect(s.mcp_servers.everything).toBe(everything);
      // The tool result is the called tool's.
      expect(Object.keys(s.results).length).toBe(1);
      expect(s.tool_results).toBeGreaterThan(0);
    }
    expect(out.total.input_tokens).toBe(55_000);
    expect(out.days).toHaveLength(1);
    // Another session, another app: nothing.
    const none = (await (await sb.admin('/usage/attribution?session=nope')).json()) as { requests: unknown[] };
    expect(none.requests).toEqual([]);
    expect((await sb.admin('/usage/attribution?from=yesterday')).status).toBe(400);
    expect(await rawGet('/usage/attribution', { host: `127.0.0.1:${sb.port}` })).toBe(401);
    expect(
      await rawGet('/usage/attribution', { host: `evil.example:${sb.port}`, authorization: `Bearer ${sb.adminToken}` }),
    ).toBe(403);
  });
});
