// The usage service on a real engine with mock providers (real HTTP servers): the agents' in-process calls become
// priced records with every token kind, an enforced budget refuses them before forwarding, and the provider pool's
// changes become notifications (provider down and back, failover serving a route).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../shared/config.ts';
import type { Notification } from '../../shared/usage.ts';
import { defaultBehaviorBeforeEach } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { ApiError } from '../errors.ts';
import { RequestLog } from '../observability/request-log.ts';
import { Engine } from '../proxy/engine.ts';
import { chatInProcess } from '../proxy/in-process.ts';
import { newLogEntry } from '../proxy/request.ts';
import { Notifier } from './notifier.ts';
import { UsageService, usageOf } from './service.ts';

let first: MockProvider;
let second: MockProvider;
beforeAll(async () => {
  first = await startMockProvider({ name: 'first' });
  second = await startMockProvider({ name: 'second' });
});
afterAll(async () => {
  await first.close();
  await second.close();
});
defaultBehaviorBeforeEach(() => [first, second]);

const dir = useTempDir('usage-service');
let engine: Engine;
let config: Config;
let service: UsageService;
let notes: Notification[];

function configOf(extra: Record<string, unknown> = {}): Config {
  const r = parseConfig({
    providers: [
      { name: 'first', base_url: first.baseUrl, api_key: 'k1' },
      { name: 'second', base_url: second.baseUrl, api_key: 'k2' },
    ],
    routing: { default_provider: 'second', rules: [{ pattern: '*', provider: 'first' }] },
    prices: [{ provider: 'first', input: 2, output: 8, cache_read: 1 }],
    notifications: { min_interval_ms: 0 },
    ...extra,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

async function openService(extra: Record<string, unknown> = {}) {
  config = configOf(extra);
  engine = new Engine(config, '/tmp/config.json', new RequestLog(10));
  const notifier = new Notifier(() => config.notifications);
  notes = [];
  notifier.subscribe((n) => notes.push(n));
  service = await UsageService.open({ engine, config: () => config, dir: dir(), notifier, flushMs: 10 });
}

beforeEach(() => openService());
afterEach(async () => {
  await service.close();
  await engine.close();
});

async function chat(app = 'agent-1') {
  let text = '';
  for await (const c of chatInProcess(
    engine,
    { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    { app },
  ))
    text += c.choices[0]?.delta.content ?? '';
  return text;
}

describe('UsageService', () => {
  it('records each in-process call with every token kind, priced (an override of config.json here)', async () => {
    first.setBehavior({
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 200,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 50 },
      },
    });
    expect(await chat()).toBe('Hello from first');
    const { data } = await service.requests(10, null);
    expect(data).toEqual([
      expect.objectContaining({
        app: 'agent-1',
        provider: 'first',
        model: 'gpt-4o-mini',
        path: '(in-process) /v1/chat/completions',
        status: 200,
        stream: true,
        prompt_tokens: 1000,
        completion_tokens: 200,
        cache_read_tokens: 400,
        cache_write_tokens: 0,
        reasoning_tokens: 50,
        cost_usd: expect.closeTo((600 * 2 + 400 * 1 + 200 * 8) / 1e6, 12),
        cost_source: 'override',
      }),
    ]);
    const s = service.summary('today');
    expect(s.totals).toMatchObject({ requests: 1, prompt_tokens: 1000, reasoning_tokens: 50 });
    expect(s.by_app[0]!.key).toBe('agent-1');
    expect(usageOf(engine)).toBe(service);
  });

  it('refuses an in-process call of an app over its enforced budget, before forwarding (402 budget_exceeded)', async () => {
    await service.close();
    await openService({ budgets: [{ app: 'agent-1', period: 'day', limit_usd: 0.000001, enforce: true }] });
    await chat(); // spends past the limit
    const before = first.chatCount();
    const err = await chat().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('budget_exceeded');
    expect((err as ApiError).message).toMatch(/^The daily budget of app "agent-1" \(\$0\.0000\) is spent/);
    expect(first.chatCount()).toBe(before); // never forwarded
    expect(await chat('agent-2')).toBe('Hello from first'); // another app's budget is its own
    expect(notes.map((n) => n.kind)).toEqual(['budget_exceeded']);
    const { data } = await service.requests(10, null);
    expect(data.map((r) => [r.app, r.status])).toEqual([
      ['agent-2', 200],
      ['agent-1', 402],
      ['agent-1', 200],
    ]);
  });

  it('notifies failover, the provider going down, and coming back', async () => {
    first.setBehavior({ status: 503 });
    expect(await chat()).toBe('Hello from second');
    expect(notes.map((n) => [n.kind, n.provider])).toEqual([
      ['provider_down', 'first'],
      ['failover', 'second'],
    ]);
    expect(notes[0]!.message).toMatch(/HTTP 503/);
    expect(notes[1]).toMatchObject({
      title: 'Failover: "second" is serving gpt-4o-mini',
      message: expect.stringMatching(
        /^Provider "first" failed \(HTTP 503.*requests for model "gpt-4o-mini" went to "second"\.$/,
      ),
    });
    first.setBehavior({});
    await chat();
    expect(notes.map((n) => n.kind)).toEqual(['provider_down', 'failover', 'provider_up']);
    expect(notes[2]!.title).toBe('Provider "first" is back');
  });

  it('a route whose first provider is skipped with its circuit open is failover too', async () => {
    await service.close();
    await openService({ circuit_breaker: { failure_threshold: 1, cooldown_ms: 60_000 } });
    first.setBehavior({ status: 500 });
    await chat();
    const before = first.chatCount();
    await chat();
    expect(first.chatCount()).toBe(before); // skipped: its circuit is open
    expect(notes.map((n) => n.kind)).toEqual(['provider_down', 'failover', 'failover']);
    expect(notes[2]!.message).toBe(
      'Provider "first" failed (its circuit is open after repeated failures); requests for model "gpt-4o-mini" went to "second".',
    );
  });

  it('records a call answered just before the service closes (the request log delivers it first)', async () => {
    await chat();
    await service.close();
    await openService();
    expect((await service.requests(10, null)).data).toEqual([expect.objectContaining({ app: 'agent-1' })]);
  });

  it('records nothing with usage.enabled false, nor what Switchboard answered itself', async () => {
    const local = newLogEntry('/api/chat');
    local.status = 200; // an Ollama load call: no provider
    engine.requestLog.add(local);
    config = { ...config, usage: { ...config.usage, enabled: false } };
    await chat();
    expect((await service.requests(10, null)).data).toEqual([]);
  });
});
