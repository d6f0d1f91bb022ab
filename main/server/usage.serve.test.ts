// Usage and cost through the real `switchboard serve` (docs/usage.md, "Usage and cost"): requests through the OpenAI,
// Anthropic and Gemini front doors (the official SDKs as clients; passthrough and translated), to mock providers that
// report usage with cache reads and writes and reasoning; GET /admin/v1/usage then shows the tokens the mocks
// reported and the cost the price table (@pydantic/genai-prices) gives for them; the numbers survive a restart and a
// kill -9; an enforced budget refuses with 402 in each client's own error shape; GET /admin/v1/events carries the
// notifications (budget exceeded, a provider going down and coming back).
//
// The mocks are on loopback, which alone would make them local providers (cost 0); quirks.provider_hosts names the
// vendor's host each stands in for, so each is priced as that vendor by the price table (all traffic stays on
// loopback).
import Anthropic from '@anthropic-ai/sdk';
import { ApiError as GeminiApiError, GoogleGenAI } from '@google/genai';
import { calcPrice } from '@pydantic/genai-prices';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notification, UsageRecord, UsageRequests, UsageSummary } from '../../shared/usage.ts';
import { NotificationSchema, UsageSummarySchema } from '../../shared/usage.ts';
import { shutDown } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockGemini, startMockGemini } from '../../test/support/mock-gemini.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

/** The notifications of GET /admin/v1/events as they come; `open` resolves once the stream has begun. */
async function events(sb: ServeProcess): Promise<{ notes: Notification[]; close(): void }> {
  const notes: Notification[] = [];
  const ac = new AbortController();
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  void (async () => {
    const res = await sb.admin('/events', { signal: ac.signal });
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      for (let cut = buf.indexOf('\n\n'); cut !== -1; cut = buf.indexOf('\n\n')) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (block.startsWith('retry:')) opened();
        if (/^event: notification$/m.test(block) && data) notes.push(NotificationSchema.parse(JSON.parse(data)));
      }
    }
  })().catch(() => {});
  await open;
  return { notes, close: () => ac.abort() };
}

const OPENAI_USAGE = { prompt_tokens: 1000, completion_tokens: 200, prompt_tokens_details: { cached_tokens: 400 } };
const ANTHROPIC_USAGE = {
  input_tokens: 500,
  output_tokens: 400,
  cache_read_input_tokens: 3000,
  cache_creation_input_tokens: 1000,
};
const GEMINI_USAGE = { prompt_tokens: 800, completion_tokens: 40, cached_tokens: 300, reasoning_tokens: 60 };

/** What each request should be recorded with: the hub's counts of the mock's usage, and the table's price. */
type Expected = {
  app: string;
  provider: string;
  model: string;
  prompt: number;
  completion: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  table: string | null;
};
const OPENAI_EXPECTED = { prompt: 1000, completion: 200, cacheRead: 400, cacheWrite: 0, reasoning: 0 };
const CLAUDE_EXPECTED = { prompt: 4500, completion: 400, cacheRead: 3000, cacheWrite: 1000, reasoning: 0 };
const GEMINI_EXPECTED = { prompt: 800, completion: 100, cacheRead: 300, cacheWrite: 0, reasoning: 60 };

function tableCost(e: Expected): number {
  if (e.table === null) return 0;
  const usage = {
    input_tokens: e.prompt,
    output_tokens: e.completion,
    ...(e.cacheRead ? { cache_read_tokens: e.cacheRead } : {}),
    ...(e.cacheWrite ? { cache_write_tokens: e.cacheWrite } : {}),
  };
  return calcPrice(usage, e.model, { providerId: e.table })!.total_price;
}

const headersFor = (app: string) => ({ 'x-switchboard-app': app });
const openai = (sb: ServeProcess, app: string) =>
  new OpenAI({ baseURL: sb.baseUrl, apiKey: 'sk-client', maxRetries: 0, defaultHeaders: headersFor(app) });
const anthropic = (sb: ServeProcess, app: string) =>
  new Anthropic({ baseURL: sb.url, apiKey: 'sk-client', maxRetries: 0, defaultHeaders: headersFor(app) });
const gemini = (sb: ServeProcess, app: string) =>
  new GoogleGenAI({ apiKey: 'client', httpOptions: { baseUrl: sb.url, headers: headersFor(app) } });

async function summary(sb: ServeProcess, range = 'today'): Promise<UsageSummary> {
  const res = await sb.admin(`/usage?range=${range}`);
  expect(res.status).toBe(200);
  return UsageSummarySchema.parse(await res.json());
}

const rejection = <T>(p: Promise<unknown>): Promise<T> =>
  p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: unknown) => err as T,
  );

describe('usage and cost through serve', () => {
  let oa: MockProvider;
  let claude: MockAnthropic;
  let gem: MockGemini;
  let local: MockProvider;
  let sb: ServeProcess;
  let dir: string;
  const sent: Expected[] = [];

  beforeAll(async () => {
    oa = await startMockProvider({ name: 'oa', behavior: { usage: OPENAI_USAGE } });
    claude = await startMockAnthropic({
      name: 'claude',
      behavior: { usage: ANTHROPIC_USAGE, tokens: Array.from({ length: 400 }, (_, i) => ` word${i}`) },
    });
    gem = await startMockGemini({ name: 'gem', behavior: { usage: GEMINI_USAGE } });
    local = await startMockProvider({ name: 'local' });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-usage-'));
    sb = await startServe({
      dir,
      config: {
        listen_port: 11434,
        log_requests: false,
        start_on_login: false,
        providers: [
          { name: 'openai', base_url: oa.baseUrl, api_key: 'sk-openai-secret-123456', type: 'openai' },
          { name: 'claude', base_url: claude.baseUrl, api_key: 'sk-ant-secret-123456', type: 'anthropic' },
          { name: 'gemini', base_url: gem.baseUrl, api_key: 'gemini-secret-123456', type: 'gemini' },
          { name: 'local', base_url: local.baseUrl, api_key: '', type: 'openai' },
        ],
        routing: {
          default_provider: '',
          rules: [
            { pattern: 'gpt-*', provider: 'openai' },
            { pattern: 'claude-*', provider: 'claude' },
            { pattern: 'gemini-*', provider: 'gemini' },
            { pattern: 'llama*', provider: 'local' },
          ],
        },
        health_check: { interval_ms: 250, timeout_ms: 1000 },
        quirks: {
          provider_hosts: {
            openai: 'api.openai.com',
            claude: 'api.anthropic.com',
            gemini: 'generativelanguage.googleapis.com',
          },
          entries: [],
        },
        notifications: { min_interval_ms: 0 },
        budgets: [{ app: 'capped', period: 'day', limit_usd: 0.0001, enforce: true }],
      },
    });
  });
  afterAll(async () => {
    await shutDown(sb, oa, claude, gem, local);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('records what the OpenAI, Anthropic and Gemini clients used, with the price table’s cost', async () => {
    const c = openai(sb, 'app-a');
    const whole = await c.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(whole.usage?.prompt_tokens).toBe(1000);
    sent.push({ app: 'app-a', provider: 'openai', model: 'gpt-4o-mini', ...OPENAI_EXPECTED, table: 'openai' });

    const streamed = await c.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of streamed) void chunk;
    sent.push({ app: 'app-a', provider: 'openai', model: 'gpt-4o-mini', ...OPENAI_EXPECTED, table: 'openai' });

    // Claude Code's way: a long stream through the Anthropic door (passed through; the prompt's counts are in its
    // first event, tens of KB before the end)
    const stream = anthropic(sb, 'claude-code').messages.stream({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.usage).toMatchObject({ input_tokens: 500, cache_read_input_tokens: 3000, output_tokens: 400 });
    sent.push({
      app: 'claude-code',
      provider: 'claude',
      model: 'claude-sonnet-4-20250514',
      ...CLAUDE_EXPECTED,
      table: 'anthropic',
    });

    const g = await gemini(sb, 'gemini-cli').models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' });
    expect(g.usageMetadata?.thoughtsTokenCount).toBe(60);
    sent.push({
      app: 'gemini-cli',
      provider: 'gemini',
      model: 'gemini-2.0-flash',
      ...GEMINI_EXPECTED,
      table: 'google',
    });

    // An OpenAI client to Claude: translated, counted from the hub's usage
    const translated = await openai(sb, 'cursor').chat.completions.create({
      model: 'claude-sonnet-4-20250514',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of translated) void chunk;
    sent.push({
      app: 'cursor',
      provider: 'claude',
      model: 'claude-sonnet-4-20250514',
      ...CLAUDE_EXPECTED,
      table: 'anthropic',
    });

    await openai(sb, 'app-a').chat.completions.create({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const localCounts = { prompt: 10, completion: 3, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    sent.push({ app: 'app-a', provider: 'local', model: 'llama3.2', ...localCounts, table: null });

    const { data } = (await (await sb.admin('/usage/requests?limit=10')).json()) as UsageRequests;
    expect(data).toHaveLength(sent.length);
    [...sent].reverse().forEach((e, i) => {
      const r = data[i]!;
      expect(r, `record ${i}`).toMatchObject({
        app: e.app,
        provider: e.provider,
        model: e.model,
        status: 200,
        prompt_tokens: e.prompt,
        completion_tokens: e.completion,
        cache_read_tokens: e.cacheRead,
        cache_write_tokens: e.cacheWrite,
        reasoning_tokens: e.reasoning,
        cost_source: e.table === null ? 'local' : 'price_table',
      } satisfies Partial<UsageRecord>);
      expect(r.cost_usd).toBeCloseTo(tableCost(e), 12);
    });
    expect(tableCost(sent[2]!)).toBeGreaterThan(0.01); // Claude Sonnet 4 with cache writes: a real price, not 0

    const s = await summary(sb);
    const sum = (f: (e: Expected) => number) => sent.reduce((n, e) => n + f(e), 0);
    expect(s.totals).toMatchObject({
      requests: sent.length,
      errors: 0,
      prompt_tokens: sum((e) => e.prompt),
      completion_tokens: sum((e) => e.completion),
      cache_read_tokens: sum((e) => e.cacheRead),
      cache_write_tokens: sum((e) => e.cacheWrite),
      reasoning_tokens: sum((e) => e.reasoning),
      unpriced: 0,
    });
    expect(s.totals.cost_usd).toBeCloseTo(sum(tableCost), 10);
    expect(Object.fromEntries(s.by_provider.map((g) => [g.key, g.requests]))).toEqual({
      openai: 2,
      claude: 2,
      gemini: 1,
      local: 1,
    });
    expect(s.by_provider[0]!.key).toBe('claude'); // the most expensive first
    expect(s.by_model.map((g) => g.key).sort()).toEqual([
      'claude-sonnet-4-20250514',
      'gemini-2.0-flash',
      'gpt-4o-mini',
      'llama3.2',
    ]);
    const hour = await summary(sb, '1h');
    expect(hour.series).toHaveLength(60);
    expect(hour.series.reduce((n, p) => n + p.requests, 0)).toBe(sent.length);
    expect(s.budgets).toEqual([
      {
        app: 'capped',
        key: null,
        period: 'day',
        limit_usd: 0.0001,
        spent_usd: 0,
        warn_at: 0.8,
        enforce: true,
        state: 'ok',
      },
    ]);
  });

  it('refuses a range it does not know, naming the field', async () => {
    const res = await sb.admin('/usage?range=2h');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; action: string } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain('"range"');
    expect(body.error.action).toContain('1h, 24h, 7d, today, month');
  });

  it('keeps the numbers across a restart, and across a kill -9 (the raw lines written before it are replayed)', async () => {
    const before = (await summary(sb)).totals;
    await sb.stop();
    sb = await startServe({ dir });
    expect((await summary(sb)).totals).toEqual(before);

    await openai(sb, 'app-a').chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    sent.push({ app: 'app-a', provider: 'openai', model: 'gpt-4o-mini', ...OPENAI_EXPECTED, table: 'openai' });
    await new Promise((r) => setTimeout(r, 1000)); // the raw batch is written within 200 ms; no snapshot asked for
    const exited = new Promise((r) => sb.child.once('exit', r));
    sb.child.kill('SIGKILL');
    await exited;
    sb = await startServe({ dir });
    const after = (await summary(sb)).totals;
    expect(after.requests).toBe(before.requests + 1);
    expect(after.prompt_tokens).toBe(before.prompt_tokens + 1000);
    expect(after.cost_usd).toBeCloseTo(before.cost_usd + tableCost(sent[sent.length - 1]!), 12);
  });

  it('an enforced budget refuses the app’s requests with 402 in each client’s own error shape, and notifies', async () => {
    const stream = await events(sb);
    try {
      await openai(sb, 'capped').chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
      });
      const forwarded = oa.chatCount();

      const o = await rejection<InstanceType<typeof OpenAI.APIError>>(
        openai(sb, 'capped').chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(o).toBeInstanceOf(OpenAI.APIError);
      expect(o.status).toBe(402);
      expect(o.code).toBe('budget_exceeded');
      expect(o.message).toMatch(/The daily budget of app "capped" \(\$0\.0001\) is spent: \$0\.0\d+ today\./);
      expect(o.headers?.get('x-should-retry')).toBe('false');
      expect((o.error as { action: string }).action).toMatch(/raise limit_usd or remove budgets\[0\] in config\.json/);

      const a = await rejection<InstanceType<typeof Anthropic.APIError>>(
        anthropic(sb, 'capped').messages.create({
          model: 'claude-sonnet-4-20250514',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(a).toBeInstanceOf(Anthropic.APIError);
      expect(a.status).toBe(402);
      expect((a.error as { error: { type: string; message: string } }).error).toMatchObject({
        type: 'billing_error',
        message: expect.stringContaining('The daily budget of app "capped"'),
      });

      const g = await rejection<GeminiApiError>(
        gemini(sb, 'capped').models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' }),
      );
      expect(g).toBeInstanceOf(GeminiApiError);
      expect(g.status).toBe(402);
      expect(g.message).toContain('The daily budget of app \\"capped\\"');

      expect(oa.chatCount()).toBe(forwarded); // refused before forwarding
      expect(
        await openai(sb, 'other-app').chat.completions.create({
          model: 'llama3.2',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      ).toBeTruthy();
      await eventually(() => expect(stream.notes.map((n) => n.kind)).toContain('budget_exceeded'));
      expect(stream.notes.find((n) => n.kind === 'budget_exceeded')).toMatchObject({
        app: 'capped',
        title: 'Budget exceeded',
      });
      const s = await summary(sb);
      expect(s.budgets[0]).toMatchObject({ app: 'capped', state: 'exceeded' });
      expect(s.by_app.find((r) => r.key === 'capped')).toMatchObject({ requests: 4, errors: 3 });
    } finally {
      stream.close();
    }
  });

  it('the event stream says when a provider goes down and when it comes back', async () => {
    const stream = await events(sb);
    try {
      const port = Number(new URL(local.baseUrl).port);
      await local.close();
      const down = await eventually(() => {
        const n = stream.notes.find((x) => x.kind === 'provider_down' && x.provider === 'local');
        expect(n).toBeDefined();
        return n!;
      }, 10_000);
      expect(down.title).toBe('Provider "local" is down');
      expect(down.message).toMatch(/ECONNREFUSED|health check/);
      local = await startMockProvider({ name: 'local', port });
      const up = await eventually(() => {
        const n = stream.notes.find((x) => x.kind === 'provider_up' && x.provider === 'local');
        expect(n).toBeDefined();
        return n!;
      }, 10_000);
      expect(up.title).toBe('Provider "local" is back');
    } finally {
      stream.close();
    }
  });
});
