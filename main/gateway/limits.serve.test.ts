// Limits through `switchboard serve` (docs/gateway.md, "Limits"). Local mode limits nothing unless config.json says so: a
// Claude Code session (400 KB+ requests, 20 a minute, 200 streams at once from one app) gets no 429 from Switchboard,
// and per-app limits set in config.json apply. Gateway mode limits each credential (60 requests/min, 100,000
// tokens/min, 10 in flight by default; overridable globally, per key and by a key's own limits). A 429 says which
// limit, its value, the scope and where it is set; a request larger than the TPM is a 429 that says it can never fit (no SDK retries it).
// The admin status reports the limits in force. A config.json the previous version saved with its defaults written
// out is read as "no limits set".
//
// The Claude Code requests are a captured one (test/fixtures/real/claude-code/request-2-sixteen-tools.json, which names its source), padded to
// size with tool turns as a long session grows; the official @anthropic-ai/sdk sends them with Claude Code's headers
// and parses what comes back.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { SignJWT } from 'jose';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LimitsStatus, StatusResponse } from '../../shared/admin.ts';
import type { ConfigInput } from '../../shared/config.ts';
import { shutDown, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { defaultConfig } from '../config/defaults.ts';
import previousVersion from '../../test/fixtures/config/previous-version-config.json' with { type: 'json' };
import capture from '../../test/fixtures/real/claude-code/request-2-sixteen-tools.json' with { type: 'json' };
import { createGatewayKey, gatewayKeysFile } from './keys.ts';

type Body = Anthropic.Beta.MessageCreateParamsStreaming;
type ErrorJson = { error: { code: string; type: string; message: string; action: string; details: unknown } };

const FILE_LINE = 'export function handler(request: Request): Response { return new Response("ok"); }\n';

/** The captured request padded to at least `bytes` of JSON with Read calls and their results (hand-made turns). */
function claudeCodeBody(bytes = 0): Body {
  const body = structuredClone(capture.body) as { messages: unknown[] };
  for (let n = 1; Buffer.byteLength(JSON.stringify(body)) < bytes; n++) {
    body.messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_pad${n}`, name: 'Read', input: { file_path: `/src/f${n}.ts` } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_pad${n}`, content: FILE_LINE.repeat(250) }],
      },
    );
  }
  return body as unknown as Body;
}

/** A short turn (a few tokens), for counting requests rather than tokens. */
const SHORT: Body = {
  model: capture.body.model,
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
};

/** Claude Code's client: the official SDK with the captured User-Agent, x-app and anthropic-beta headers. */
function claudeCode(sb: ServeProcess, apiKey = 'sk-ant-what-claude-code-sends', maxRetries = 0): Anthropic {
  const h = capture.headers;
  return new Anthropic({
    baseURL: sb.url,
    apiKey,
    maxRetries,
    defaultHeaders: { 'user-agent': h['user-agent'], 'x-app': h['x-app'], 'anthropic-beta': h['anthropic-beta'] },
  });
}

/** One streamed turn (POST /v1/messages?beta=true): the text, the reply headers, and when the stream was live. */
async function turn(client: Anthropic, body: Body) {
  const { data, response } = await client.beta.messages.create({ ...body, stream: true }).withResponse();
  const liveFrom = performance.now();
  let text = '';
  for await (const ev of data)
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
  return { text, headers: response.headers, liveFrom, liveTo: performance.now() };
}

const rateLimitHeaders = (h: Headers): string[] => [...h.keys()].filter((k) => k.startsWith('x-ratelimit'));
const status = async (sb: ServeProcess): Promise<LimitsStatus> =>
  ((await (await sb.admin('/status')).json()) as StatusResponse).limits;
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: unknown) => err as InstanceType<typeof Anthropic.APIError>,
  );

/** The first-run config.json with its Anthropic template pointed at the mock: nothing about limits in it. */
function firstRunConfig(mock: MockAnthropic, extra: Partial<ConfigInput> = {}): ConfigInput {
  const config = defaultConfig();
  config.providers = config.providers!.map((p) =>
    p.name === 'anthropic' ? { ...p, base_url: mock.baseUrl, api_key: 'sk-ant-provider-key-123456', enabled: true } : p,
  );
  return { ...config, health_check: { interval_ms: 0, timeout_ms: 2000 }, ...extra };
}

/** An OpenAI-format chat request (raw fetch, to read the whole error body). */
const chat = (sb: ServeProcess, headers: Record<string, string>, content = 'hi') =>
  fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'claude-3-5-haiku-20241022', messages: [{ role: 'user', content }] }),
  });

describe('local mode with the first-run config.json: a Claude Code session gets no 429 from Switchboard', () => {
  let mock: MockAnthropic;
  let sb: ServeProcess;
  beforeAll(async () => {
    mock = await startMockAnthropic({ name: 'claude' });
    sb = await startServe({ config: firstRunConfig(mock) });
  });
  shutDownAfterAll(() => [sb, mock]);

  it('the admin status says local mode, why, and that no limit is in force', async () => {
    const none = (field: string) => ({ value: 0, source: 'unset', field });
    expect(await status(sb)).toEqual({
      mode: 'local',
      mode_reason: 'bound to 127.0.0.1 (loopback) and gateway.enabled is false',
      enabled: true,
      scope_kind: 'app',
      window_ms: 60_000,
      default: {
        scope: '*',
        rpm: none('limits.rpm'),
        tpm: none('limits.tpm'),
        concurrency: none('limits.concurrency'),
      },
      scopes: [],
    });
  });

  it('20 requests of 400 KB+ in a minute are all answered in full, with no x-ratelimit headers', async () => {
    const body = claudeCodeBody(420_000);
    const bytes = Buffer.byteLength(JSON.stringify(body));
    expect(bytes).toBeGreaterThan(400_000);
    expect(Math.ceil(bytes / 4)).toBeGreaterThan(100_000); // over the old default TPM on its own
    const client = claudeCode(sb);
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const r = await turn(client, body);
      expect(r.text).toBe('Hello from claude');
      expect(rateLimitHeaders(r.headers)).toEqual([]);
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(mock.chatCount()).toBe(20);
    expect(Buffer.byteLength(JSON.stringify(mock.requests.at(-1)!.body))).toBeGreaterThan(400_000);
    const logs = (await (await sb.admin('/logs?limit=20')).json()) as { data: { status: number; app: string }[] };
    expect(logs.data.map((e) => `${e.status} ${e.app}`)).toEqual(Array(20).fill('200 claude-cli'));
  });

  it('200 concurrent streams from one app: 200 answers, no 429', async () => {
    mock.setBehavior({ chunkDelayMs: 100 }); // each stream stays open for about a second
    const client = claudeCode(sb);
    const body = claudeCodeBody();
    const results = await Promise.allSettled(Array.from({ length: 200 }, () => turn(client, body)));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    expect(refused).toEqual([]);
    const done = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(done.map((r) => r.text)).toEqual(Array(200).fill('Hello from claude'));
    // They were in flight together: at the busiest moment, far more than the old limit of 10 were streaming.
    const peak = Math.max(
      ...done.map((a) => done.filter((b) => b.liveFrom <= a.liveFrom && a.liveFrom < b.liveTo).length),
    );
    expect(peak).toBeGreaterThan(50);
    mock.setBehavior({});
  });
});

describe('local mode: limits set per app in config.json apply, and their refusals say where they are set', () => {
  let mock: MockAnthropic;
  let sb: ServeProcess;
  beforeAll(async () => {
    mock = await startMockAnthropic({ name: 'claude' });
    sb = await startServe({
      config: firstRunConfig(mock, { limits: { per_app: { 'claude-cli': { rpm: 3 }, tiny: { tpm: 1000 } } } }),
    });
  });
  shutDownAfterAll(() => [sb, mock]);

  it('the status lists each app with its values and the fields that set them', async () => {
    const s = await status(sb);
    expect(s.mode).toBe('local');
    expect(s.default.rpm).toEqual({ value: 0, source: 'unset', field: 'limits.rpm' });
    expect(s.scopes).toEqual([
      {
        scope: 'app:claude-cli',
        rpm: { value: 3, source: 'config', field: 'limits.per_app.claude-cli.rpm' },
        tpm: { value: 0, source: 'unset', field: 'limits.tpm' },
        concurrency: { value: 0, source: 'unset', field: 'limits.concurrency' },
      },
      {
        scope: 'app:tiny',
        rpm: { value: 0, source: 'unset', field: 'limits.rpm' },
        tpm: { value: 1000, source: 'config', field: 'limits.per_app.tiny.tpm' },
        concurrency: { value: 0, source: 'unset', field: 'limits.concurrency' },
      },
    ]);
  });

  it("the app's 4th request in the minute is a 429 naming the limit, its value, the app and config.json's field", async () => {
    const client = claudeCode(sb);
    const body = claudeCodeBody();
    for (let i = 0; i < 3; i++) {
      const r = await turn(client, body);
      expect(r.headers.get('x-ratelimit-limit-requests')).toBe('3');
      expect(r.headers.get('x-ratelimit-remaining-requests')).toBe(String(2 - i));
    }
    const err = await refusal(turn(client, body));
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err.status).toBe(429);
    expect(Number(err.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(err.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
    expect((err.error as { error: { type: string; message: string } }).error).toEqual({
      type: 'rate_limit_error',
      message: expect.stringMatching(
        new RegExp(
          `^Rate limit reached for app "claude-cli": 3 requests per minute \\(3 sent in this window\\); set by ` +
            `limits\\.per_app\\.claude-cli\\.rpm in ${sb.configPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. ` +
            'Retry after \\d+ s, or raise limits\\.per_app\\.claude-cli\\.rpm in .+ \\(0 means no limit\\)\\.$',
        ),
      ),
    });
    // An OpenAI-shaped client of the same app reads the whole body: error.details names everything.
    const r = await chat(sb, { 'x-switchboard-app': 'claude-cli' });
    expect(r.status).toBe(429);
    const e = ((await r.json()) as ErrorJson).error;
    expect(e).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(e.details).toEqual({
      limit: 'rpm',
      value: 3,
      scope: 'app:claude-cli',
      scope_kind: 'app',
      source: 'config',
      field: 'limits.per_app.claude-cli.rpm',
      file: sb.configPath,
      window_ms: 60_000,
      retry_after_s: Number(r.headers.get('retry-after')),
    });
    // Another app has no limit at all: a 400 KB request goes through.
    const free = await fetch(`${sb.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-switchboard-app': 'cursor' },
      body: JSON.stringify({ ...claudeCodeBody(420_000), stream: false }),
    });
    expect(free.status).toBe(200);
    expect(rateLimitHeaders(free.headers)).toEqual([]);
  });

  it("a request larger than the app's TPM is a 429 that says it can never fit, and no SDK retries it", async () => {
    const before = mock.chatCount();
    const client = new Anthropic({ baseURL: sb.url, apiKey: 'x', defaultHeaders: { 'x-switchboard-app': 'tiny' } });
    const err = await refusal(
      client.messages.create({
        model: 'claude-3-7-sonnet-20250219',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'y'.repeat(8000) }],
      }),
    );
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.headers?.get('retry-after')).toBeNull();
    expect(err.headers?.get('x-should-retry')).toBe('false');
    const e = (err.error as { error: { type: string; message: string } }).error;
    expect(e.type).toBe('rate_limit_error');
    expect(e.message).toMatch(
      /^This request can never be admitted: it is about 20\d\d tokens \(1 token per 4 bytes of its JSON\), more than the whole limit of 1000 tokens per minute for app "tiny"; set by limits\.per_app\.tiny\.tpm in .+config\.json\. Retrying will not help: send a smaller request, or raise limits\.per_app\.tiny\.tpm in .+ \(0 means no limit\)\.$/,
    );
    expect(mock.chatCount()).toBe(before);
    const logs = (await (await sb.admin('/logs?limit=5')).json()) as { data: { status: number; app: string }[] };
    expect(logs.data.filter((l) => l.app === 'tiny').map((l) => l.status)).toEqual([429]); // the SDK did not retry
    // The OpenAI SDK (two retries of a 429 by default) does not retry it either.
    const openai = new OpenAI({
      baseURL: `${sb.url}/v1`,
      apiKey: 'x',
      defaultHeaders: { 'x-switchboard-app': 'tiny' },
    });
    const oe = await refusal(
      openai.chat.completions.create({
        model: 'claude-3-7-sonnet-20250219',
        messages: [{ role: 'user', content: 'z'.repeat(8000) }],
      }),
    );
    expect(oe).toBeInstanceOf(OpenAI.RateLimitError);
    const again = (await (await sb.admin('/logs?limit=5')).json()) as { data: { status: number; app: string }[] };
    expect(again.data.filter((l) => l.app === 'tiny').map((l) => l.status)).toEqual([429, 429]);
    const r = await chat(sb, { 'x-switchboard-app': 'tiny' }, 'z'.repeat(8000));
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.headers.get('x-should-retry')).toBe('false');
    expect(((await r.json()) as ErrorJson).error).toMatchObject({
      code: 'request_over_tpm_limit',
      type: 'rate_limit_error',
      details: { limit: 'tpm', value: 1000, scope: 'app:tiny', field: 'limits.per_app.tiny.tpm', file: sb.configPath },
    });
  });
});

describe('gateway mode: 60 / 100,000 / 10 per credential by default, overridable', () => {
  let mock: MockAnthropic;
  let sb: ServeProcess;
  let dir: string;
  const keys: Record<string, string> = {};
  const secret = 'limits-jwt-secret-0123456789abcdef';
  const config = (limits: object) =>
    firstRunConfig(mock, {
      gateway: { enabled: true, jwt: { secret } },
      limits: { per_key: { big: { tpm: 0 }, bob: { rpm: 1 } }, ...limits },
    });
  beforeAll(async () => {
    mock = await startMockAnthropic({ name: 'claude' });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-limits-gw-'));
    for (const [name, limits] of Object.entries({ ci: {}, conc: {}, big: {}, small: { rpm: 2 } }))
      keys[name] = (await createGatewayKey(gatewayKeysFile(dir), { kind: 'key', name, limits })).secret;
    sb = await startServe({ dir, config: config({}) });
  });
  afterAll(async () => {
    await shutDown(sb, mock);
    await fs.rm(dir, { recursive: true, force: true });
  });
  const bearer = (name: string) => ({ authorization: `Bearer ${keys[name]}` });

  it('the status says gateway mode, the defaults per credential, and each credential with its own', async () => {
    const s = await status(sb);
    expect(s).toMatchObject({ mode: 'gateway', mode_reason: 'gateway.enabled is true', scope_kind: 'credential' });
    expect(s.default).toEqual({
      scope: '*',
      rpm: { value: 60, source: 'gateway_default', field: 'limits.rpm' },
      tpm: { value: 100_000, source: 'gateway_default', field: 'limits.tpm' },
      concurrency: { value: 10, source: 'gateway_default', field: 'limits.concurrency' },
    });
    expect(s.scopes.map((x) => [x.scope, x.rpm.value, x.rpm.source, x.tpm.value, x.tpm.source])).toEqual([
      ['key:big', 60, 'gateway_default', 0, 'config'],
      ['key:small', 2, 'key', 100_000, 'gateway_default'],
      ['jwt:bob', 1, 'config', 100_000, 'gateway_default'],
    ]);
  });

  it("RPM 60 by default: the key's 61st request is a 429 that says it is the gateway default; other keys go on", async () => {
    for (let i = 0; i < 60; i++) {
      const r = await chat(sb, bearer('ci'));
      expect(r.status).toBe(200);
      if (i === 0) {
        expect(r.headers.get('x-ratelimit-limit-requests')).toBe('60');
        expect(r.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
      }
    }
    const r = await chat(sb, bearer('ci'));
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const e = ((await r.json()) as ErrorJson).error;
    expect(e.message).toBe(
      'Rate limit reached for credential key:ci (gateway key "ci"): 60 requests per minute (60 sent in this ' +
        'window); set by the gateway-mode default: limits.rpm is not set in config.json.',
    );
    expect(e.action).toMatch(
      /^Retry after \d+ s, or set limits\.per_key\.ci\.rpm \(this credential\) or limits\.rpm \(every credential\) in config\.json \(0 means no limit\)\.$/,
    );
    expect(e.details).toMatchObject({
      limit: 'rpm',
      value: 60,
      scope: 'key:ci',
      source: 'gateway_default',
      file: 'config.json',
    });
    expect(JSON.stringify(e)).not.toContain(dir); // a remote caller is not told where the server keeps its files
    expect((await chat(sb, bearer('big'))).status).toBe(200);
  });

  it('10 in flight by default: 12 streams at once from one key get 10 answers and 2 concurrency 429s', async () => {
    mock.setBehavior({ chunkDelayMs: 150 });
    const client = claudeCode(sb, keys.conc);
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => turn(client, SHORT)));
    mock.setBehavior({});
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const refused = results.flatMap((r) =>
      r.status === 'rejected' ? [r.reason as InstanceType<typeof Anthropic.APIError>] : [],
    );
    expect(refused).toHaveLength(2);
    for (const err of refused) {
      expect(err.status).toBe(429);
      expect(err.headers?.get('retry-after')).toBe('1');
      expect(err.message).toContain('10 requests in flight at once (10 in flight); set by the gateway-mode default');
    }
  });

  it('a 400 KB request over the 100,000 TPM default is a 429 that says it can never fit; the SDK does not retry', async () => {
    const before = mock.chatCount();
    const err = await refusal(turn(claudeCode(sb, keys.conc, 2), claudeCodeBody(420_000)));
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err.headers?.get('retry-after')).toBeNull();
    expect(err.headers?.get('x-should-retry')).toBe('false');
    expect((err.error as { error: { message: string } }).error.message).toMatch(
      /^This request can never be admitted: it is about 1\d{5} tokens .* more than the whole limit of 100000 tokens per minute for credential key:conc .*set by the gateway-mode default: limits\.tpm is not set in config\.json\. Retrying will not help: send a smaller request, or set limits\.per_key\.conc\.tpm \(this credential\) or limits\.tpm \(every credential\)/,
    );
    expect(mock.chatCount()).toBe(before);
    const logs = (await (await sb.admin('/logs?limit=3')).json()) as {
      data: { status: number; error_code?: string }[];
    };
    const neverFit = logs.data.filter((l) => l.error_code === 'request_over_tpm_limit');
    expect(neverFit.map((l) => l.status)).toEqual([429]); // once: the SDK did not retry
  });

  it('per_key overrides the default: limits.per_key.big.tpm 0 admits the same 400 KB request', async () => {
    const r = await turn(claudeCode(sb, keys.big), claudeCodeBody(420_000));
    expect(r.text).toBe('Hello from claude');
    expect(r.headers.get('x-ratelimit-limit-requests')).toBe('60');
    expect(r.headers.get('x-ratelimit-limit-tokens')).toBeNull();
  });

  it("a key's own limit applies, and its refusal names gateway-keys.json and the per_key field over it", async () => {
    expect((await chat(sb, bearer('small'))).status).toBe(200);
    expect((await chat(sb, bearer('small'))).status).toBe(200);
    const r = await chat(sb, bearer('small'));
    expect(r.status).toBe(429);
    const e = ((await r.json()) as ErrorJson).error;
    expect(e.message).toContain(
      "2 requests per minute (2 sent in this window); set by the key's own limit (limits.rpm in gateway-keys.json, from switchboard keys create --rpm).",
    );
    expect(e.action).toContain("set limits.per_key.small.rpm in config.json, which overrides the key's own limit");
  });

  it("a JWT subject's per_key entry applies to it", async () => {
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('bob')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(secret));
    expect((await chat(sb, { authorization: `Bearer ${jwt}` })).status).toBe(200);
    const r = await chat(sb, { authorization: `Bearer ${jwt}` });
    expect(r.status).toBe(429);
    expect(((await r.json()) as ErrorJson).error.message).toBe(
      'Rate limit reached for credential jwt:bob (JWT subject "bob"): 1 requests per minute (1 sent in this ' +
        'window); set by limits.per_key.bob.rpm in config.json.',
    );
  });

  it('a global value overrides the default (hot reload); limits.enabled false turns limiting off', async () => {
    await sb.writeConfig(config({ rpm: 100 }));
    await eventually(async () =>
      expect((await status(sb)).default.rpm).toEqual({ value: 100, source: 'config', field: 'limits.rpm' }),
    );
    const r = await chat(sb, bearer('ci')); // 60 sent in this window: the raised limit admits it
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit-requests')).toBe('100');
    await sb.writeConfig(config({ enabled: false }));
    await eventually(async () => expect((await status(sb)).enabled).toBe(false));
    const off = await chat(sb, bearer('small'));
    expect(off.status).toBe(200);
    expect(rateLimitHeaders(off.headers)).toEqual([]);
    expect((await status(sb)).default.tpm).toEqual({ value: 0, source: 'disabled', field: 'limits.enabled' });
  });
});

describe('gateway mode by listen address', () => {
  it('the status says gateway mode because the server is bound beyond loopback', async () => {
    const mock = await startMockAnthropic({ name: 'claude' });
    const sb = await startServe({ config: firstRunConfig(mock), args: ['--host', '0.0.0.0'] });
    try {
      const s = await status(sb);
      expect(s.mode).toBe('gateway');
      expect(s.mode_reason).toBe('bound to 0.0.0.0, beyond loopback (listen_host or --host)');
      expect(s.default.concurrency).toEqual({ value: 10, source: 'gateway_default', field: 'limits.concurrency' });
    } finally {
      await shutDown(sb, mock);
    }
  });
});

describe('a config.json the previous version saved with its limit defaults written out', () => {
  it('is read as no limits set: a 400 KB Claude Code request is answered, the values leave the file, the log says so', async () => {
    const mock = await startMockAnthropic({ name: 'claude' });
    // The previous desktop app's file, with its Anthropic template pointed at the mock (its limits block untouched).
    const raw = JSON.parse(previousVersion.text) as ConfigInput;
    raw.providers = firstRunConfig(mock).providers;
    expect(raw.limits).toMatchObject({ rpm: 60, tpm: 100000, concurrency: 10, enabled: true, window_ms: 60000 });
    const text = `${JSON.stringify(raw, null, '\t')}\n`;
    const sb = await startServe({ configText: text });
    try {
      const r = await turn(claudeCode(sb), claudeCodeBody(420_000));
      expect(r.text).toBe('Hello from claude');
      expect(rateLimitHeaders(r.headers)).toEqual([]);
      const onDisk = JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as { limits: object };
      expect(onDisk.limits).toEqual({ enabled: true, window_ms: 60000, per_app: {}, per_key: {} });
      expect(sb.stdout() + sb.stderr()).toContain(
        "limits.rpm 60, limits.tpm 100000, limits.concurrency 10 are the previous version's defaults",
      );
      expect((await status(sb)).default.rpm).toEqual({ value: 0, source: 'unset', field: 'limits.rpm' });
    } finally {
      await shutDown(sb, mock);
    }
  });
});
