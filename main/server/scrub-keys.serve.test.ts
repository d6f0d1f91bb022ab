// Issue 13, item 5: a provider whose error echoes the credential Switchboard sent. The key must reach neither the
// client's error (parsed by the official SDKs), nor /admin/v1/status, the request log API, requests.jsonl, the process
// log, nor an agent task's error; each path gets a provider that quotes the key it received.
//
// The echoing error bodies are hand-written: the message shape is OpenAI's 401 ("Incorrect API key provided: …",
// which api.openai.com masks but OpenAI-compatible hosts and proxies have returned whole: BerriAI/litellm#20288,
// "API keys appearing in plain text in error responses"), Anthropic's error event, and a reverse proxy's HTML error
// page that lists the request's headers.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, openEvents } from '../../test/support/agent-api.ts';
import { defaultBehaviorBeforeEach, shutDown } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockMedia, startMockMedia } from '../../test/support/mock-media.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

// Three shapes of provider key: an OpenAI project key read from the environment (env:), a 32-hex key with no vendor
// prefix (Azure-like: only its configured value can find it), and a base64url key (no prefix either).
const OPENAI_KEY = `sk-proj-${randomBytes(36).toString('base64url')}`;
const ANTHROPIC_KEY = randomBytes(16).toString('hex');
const MEDIA_KEY = randomBytes(30).toString('base64url');
const KEYS = [OPENAI_KEY, ANTHROPIC_KEY, MEDIA_KEY];

/** No key, nor a long piece of one (its first or last 16 characters), anywhere in `text`. */
function expectNoKey(text: string): void {
  for (const key of KEYS) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(0, 16));
    expect(text).not.toContain(key.slice(-16));
  }
}

const bearerOf = (h: IncomingHttpHeaders) => String(h.authorization ?? '').replace(/^Bearer\s+/i, '');
const quoteKey = (h: IncomingHttpHeaders) =>
  `Incorrect API key provided: ${bearerOf(h)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
const headerPage = (h: IncomingHttpHeaders) =>
  '<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1>' +
  `<pre>POST /v1/chat/completions\nauthorization: ${String(h.authorization)}\ncontent-type: ${String(h['content-type'])}` +
  '</pre></body></html>';

let openai: MockProvider;
let claude: MockAnthropic;
let media: MockMedia;
let sb: ServeProcess;
let dir: string;
let agentKey: string;
const msg = [{ role: 'user' as const, content: 'hi' }];
const openaiClient = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
const anthropicClient = () => new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });

/** The error an SDK call throws, as everything the client can read of it. */
async function clientError(p: Promise<unknown>): Promise<{ status: number | undefined; text: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { status?: number; message: string; error?: unknown };
    return { status: e.status, text: `${e.message}\n${JSON.stringify(e.error ?? null)}` };
  }
  throw new Error('the call succeeded');
}

const statusText = async () => JSON.stringify(await (await sb.admin('/status')).json());
const logsText = async () => JSON.stringify(await (await sb.admin('/logs?limit=1000')).json());
const lastError = async (provider: string) =>
  (
    (await (await sb.admin('/status')).json()) as { providers: { name: string; last_error: string | null }[] }
  ).providers.find((p) => p.name === provider)!.last_error;

beforeAll(async () => {
  openai = await startMockProvider({ name: 'openai' });
  claude = await startMockAnthropic({ name: 'claude' });
  media = await startMockMedia('media');
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-scrub-'));
  const base = configFor(
    { openai: openai.baseUrl, claude: claude.baseUrl, media: media.baseUrl },
    {
      default_provider: '',
      rules: [
        { pattern: 'gpt-*', provider: 'openai' },
        { pattern: 'claude-*', provider: 'claude' },
        { pattern: 'sora-*', provider: 'media' },
      ],
    },
  );
  const keyOf: Record<string, string> = { openai: 'env:SB_SCRUB_OPENAI_KEY', claude: ANTHROPIC_KEY, media: MEDIA_KEY };
  const providers = (base.providers as { name: string; type?: string; api_key: string }[]).map((p) => ({
    ...p,
    api_key: keyOf[p.name]!,
    ...(p.name === 'claude' ? { type: 'anthropic' } : {}),
  }));
  const config = {
    ...base,
    providers,
    log_requests: true,
    health_check: { interval_ms: 0, timeout_ms: 2_000 },
    circuit_breaker: { failure_threshold: 100, cooldown_ms: 1000 },
  };
  await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  agentKey = await createKey(path.join(dir, 'config.json'));
  sb = await startServe({ dir, config, env: { SB_SCRUB_OPENAI_KEY: OPENAI_KEY } });
}, 60_000);
afterAll(async () => {
  await shutDown(sb, openai, claude, media);
  await fs.rm(dir, { recursive: true, force: true });
});
defaultBehaviorBeforeEach(() => [openai, claude]);

describe("the provider's error answer, passed through in the client's own format", () => {
  it('OpenAI SDK → OpenAI provider: a 401 quoting the Bearer key reaches the client without it', async () => {
    openai.setBehavior({ status: 401, errorMessage: quoteKey });
    const e = await clientError(openaiClient().chat.completions.create({ model: 'gpt-x', messages: msg }));
    expect(openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`); // the key did go upstream
    expect(e.status).toBe(401);
    expect(e.text).toContain('Incorrect API key provided: [redacted].');
    expectNoKey(e.text);
  });

  it('Anthropic SDK → Anthropic provider: a 401 quoting x-api-key reaches the client without it', async () => {
    claude.setBehavior({ status: 401, errorMessage: (h) => `invalid x-api-key ${String(h['x-api-key'])}` });
    const e = await clientError(
      anthropicClient().messages.create({ model: 'claude-x', max_tokens: 16, messages: msg }),
    );
    expect(e.status).toBe(401);
    expect(e.text).toContain('invalid x-api-key [redacted]');
    expectNoKey(e.text);
  });
});

describe("the provider's error answer, translated into the client's format", () => {
  it('Anthropic SDK → OpenAI provider: the 401 message is said without the key', async () => {
    openai.setBehavior({ status: 401, errorMessage: quoteKey });
    const e = await clientError(anthropicClient().messages.create({ model: 'gpt-x', max_tokens: 16, messages: msg }));
    expect(e.status).toBe(401);
    expect(e.text).toContain('Incorrect API key provided: [redacted].');
    expectNoKey(e.text);
  });
});

describe('a failed attempt (retryable status): the all-failed error, the status and the request log', () => {
  it('an HTML page dumping the Authorization header: quoted without the key everywhere', async () => {
    openai.setBehavior({ status: 503, errorPage: headerPage });
    const e = await clientError(openaiClient().chat.completions.create({ model: 'gpt-page', messages: msg }));
    expect(e.status).toBe(502);
    expect(e.text).toContain('HTTP 503');
    expect(e.text).toContain('authorization: Bearer [redacted]');
    expectNoKey(e.text);
    expect(await lastError('openai')).toContain('authorization: Bearer [redacted]');
    const logs = await logsText();
    expect(logs).toContain('authorization: Bearer [redacted]');
    expectNoKey(logs);
  });
});

describe('a mid-stream error event', () => {
  it('OpenAI SDK stream → Anthropic provider whose error event quotes the key: the event, status and log omit it', async () => {
    claude.setBehavior({
      errorEventAfterChunks: 3,
      errorMessage: (h) => `Overloaded while serving key ${String(h['x-api-key'])}`,
    });
    const stream = await openaiClient().chat.completions.create({ model: 'claude-mid', messages: msg, stream: true });
    const e = await clientError(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    );
    expect(e.text).toContain('Overloaded while serving key [redacted]');
    expectNoKey(e.text);
    expect(await lastError('claude')).toContain('Overloaded while serving key [redacted]');
    const logs = await logsText();
    expect(logs).toContain('Overloaded while serving key [redacted]');
    expectNoKey(logs);
    // The error event was decoded while the upstream body was still open: the server ended the reply once and is up
    // (it used to end it twice, from inside undici's abort, and die of a write after end).
    claude.setBehavior({});
    const next = await openaiClient().chat.completions.create({ model: 'claude-mid', messages: msg });
    expect(next.choices[0]!.message.content).toBe('Hello from claude');
  });
});

describe("an agent task's error", () => {
  it('a model call refused with the key quoted fails the task with an error that omits it', async () => {
    openai.setBehavior({ status: 401, errorMessage: quoteKey });
    const api = `${sb.url}/api/v1`;
    const agent = (
      await call(`${api}/agents`, agentKey, 'POST', {
        name: 'scrub',
        system_prompt: 'You are terse.',
        model: 'gpt-agent',
        tools: [],
        config: { max_tokens: 64, max_iterations: 2 },
      })
    ).body;
    const run = await call(`${api}/agents/${agent.id as string}/run`, agentKey, 'POST', { message: 'hi' });
    expect(run.status).toBe(200);
    const task = await eventually(async () => {
      const t = (await call(`${api}/tasks/${run.body.task_id as string}`, agentKey)).body;
      expect(t.status).toBe('failed');
      return t;
    }, 15_000);
    expect(task.error).toContain('Incorrect API key provided: [redacted].');
    expectNoKey(JSON.stringify(task));
    const events = await openEvents(`${api}/events`, agentKey, 0);
    try {
      const seen = await events.waitFor((list) => list.some((x) => x.type === 'failed'));
      expect(JSON.stringify(seen)).toContain('[redacted]');
      expectNoKey(JSON.stringify(seen));
    } finally {
      events.close();
    }
  });
});

describe('a video task poll, streamed back from the provider that created it', () => {
  it('a poll answered 401 with the key quoted is sent without it', async () => {
    const created = (await (
      await fetch(`${sb.baseUrl}/videos`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sora-2', prompt: 'a cat' }),
      })
    ).json()) as { id: string };
    media.pollFailStatus = 401;
    media.failMessage = (h) => `Invalid token ${bearerOf(h)}`;
    try {
      const poll = await fetch(`${sb.baseUrl}/videos/${created.id}`);
      expect(poll.status).toBe(401);
      const text = await poll.text();
      expect(text).toContain('Invalid token [redacted]');
      expectNoKey(text);
      expect(media.requests.at(-1)!.headers.authorization).toBe(`Bearer ${MEDIA_KEY}`);
    } finally {
      media.pollFailStatus = 0;
      media.failMessage = null;
    }
  });
});

describe('what is stored', () => {
  it('requests.jsonl, the status, the request log and the process log hold no key after all of the above', async () => {
    const file = path.join(dir, 'requests.jsonl');
    const lines = await eventually(async () => {
      const text = await fs.readFile(file, 'utf8');
      expect(text).toContain('[redacted]');
      return text;
    });
    expectNoKey(lines);
    expectNoKey(await statusText());
    expectNoKey(await logsText());
    expectNoKey(sb.stdout() + sb.stderr());
  });
});
