// Routing strategies through `switchboard serve` (issue 37): cheapest and fastest choose as their inputs say (the
// prices in config.json; latencies measured with one provider made slow), and a provider whose rate-limit headers say
// its window is spent is skipped before it is called. The official OpenAI client parses every answer.
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry, RouteDecision } from '../../shared/admin.ts';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let a: MockProvider;
let b: MockProvider;
let c: MockProvider;
let sb: ServeProcess;
const client = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
const msg = [{ role: 'user' as const, content: 'hi' }];

beforeAll(async () => {
  a = await startMockProvider({ name: 'a' });
  b = await startMockProvider({ name: 'b' });
  c = await startMockProvider({ name: 'c' });
  sb = await startServe({
    config: {
      ...configFor(
        { a: a.baseUrl, b: b.baseUrl, c: c.baseUrl },
        {
          rules: [
            { pattern: 'cheap-*', providers: ['a', 'b', 'c'], strategy: 'cheapest' },
            { pattern: 'fast-*', providers: ['a', 'b'], strategy: 'fastest' },
            { pattern: 'quota-*', providers: ['a', 'b'], strategy: 'ordered' },
            { pattern: 'plain-*', providers: ['a', 'b'] },
          ],
          default_provider: '',
        },
      ),
      // Loopback providers are free by default: their prices are set here, as a user prices a proxy of a vendor.
      prices: [
        { provider: 'a', input: 3, output: 15 },
        { provider: 'b', input: 0.15, output: 0.6 },
        { provider: 'c', input: 1, output: 4 },
      ],
    },
  });
});
shutDownAfterAll(() => [sb, a, b, c]);
defaultBehaviorBeforeEach(() => [a, b, c]);

async function ask(model: string): Promise<{ provider: string | null; route: string | null }> {
  const { response } = await client().chat.completions.create({ model, messages: msg }).withResponse();
  return {
    provider: response.headers.get('x-switchboard-provider'),
    route: response.headers.get('x-switchboard-route'),
  };
}

async function logs(): Promise<RequestLogEntry[]> {
  return ((await (await sb.admin('/logs?limit=50')).json()) as { data: RequestLogEntry[] }).data;
}

describe('cheapest', () => {
  it('sends each request to the provider whose prices make it cheapest, and says so in x-switchboard-route', async () => {
    for (let i = 0; i < 3; i++)
      expect(await ask('cheap-model')).toEqual({ provider: 'b', route: 'rule:cheap-*; strategy=cheapest' });
    expect(a.chatCount()).toBe(0);
    expect(c.chatCount()).toBe(0);
  });

  it('the route tester explains the order: each provider with its estimated cost, which is called and why', async () => {
    const r = (await (await sb.admin('/route?model=cheap-model&prompt_tokens=2000&max_tokens=500')).json()) as {
      request: { prompt_tokens: number; expected_output_tokens: number };
      decisions: RouteDecision[];
    };
    expect(r.request).toEqual({ prompt_tokens: 2000, expected_output_tokens: 500 });
    expect(r.decisions.map((d) => [d.provider, d.action, d.strategy])).toEqual([
      ['b', 'call', 'cheapest'],
      ['c', 'backup', 'cheapest'],
      ['a', 'backup', 'cheapest'],
    ]);
    // b: 2,000 × $0.15/M + 500 × $0.60/M = $0.0006.
    expect(r.decisions[0]!.estimated_cost_usd).toBeCloseTo(0.0006, 8);
    expect(r.decisions[0]!.why).toMatch(/^called first: rule "cheap-\*" \(cheapest\): ~\$0\.00060 for this request/);
    expect(r.decisions[2]!.why).toMatch(/^backup if the ones before fail: .*~\$0\.0135/);
    const bad = await sb.admin('/route?model=cheap-model&prompt_tokens=-1');
    expect(bad.status).toBe(400);
  });

  it('the next cheapest serves when the cheapest fails', async () => {
    b.setBehavior({ status: 503 });
    expect((await ask('cheap-model')).provider).toBe('c');
  });
});

describe('fastest', () => {
  it('measures each provider on real traffic, then sends every request to the fast one', async () => {
    a.setBehavior({ firstByteDelayMs: 300 });
    const served: (string | null)[] = [];
    for (let i = 0; i < 6; i++) served.push((await ask('fast-model')).provider);
    // Each is measured once (unmeasured providers go first), then the fast one takes the rest.
    expect(served.slice(0, 2).sort()).toEqual(['a', 'b']);
    expect(served.slice(2)).toEqual(['b', 'b', 'b', 'b']);
    const r = (await (await sb.admin('/route?model=fast-model')).json()) as { decisions: RouteDecision[] };
    expect(r.decisions.map((d) => d.provider)).toEqual(['b', 'a']);
    expect(r.decisions[1]!.expected_ms).toBeGreaterThan(r.decisions[0]!.expected_ms! + 200);
    expect(r.decisions[1]!.latency).toMatchObject({ source: 'traffic' });
    expect(r.decisions[0]!.why).toMatch(/\(fastest\): ~\d+ ms expected/);
  });
});

describe('quota-aware skipping', () => {
  it('a provider whose reply said x-ratelimit-remaining-requests: 0 is skipped before it is called', async () => {
    a.setBehavior({
      replyHeaders: {
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-limit-requests': '60',
        'x-ratelimit-reset-requests': '1m0s',
      },
    });
    expect((await ask('quota-model')).provider).toBe('a'); // its reply says the window is spent
    const before = a.chatCount();
    expect((await ask('quota-model')).provider).toBe('b');
    expect((await ask('quota-model')).provider).toBe('b');
    expect(a.chatCount()).toBe(before); // never called
    const entry = (await logs()).find((e) => e.requested_model === 'quota-model' && e.provider === 'b')!;
    expect(entry.attempts[0]).toMatchObject({ provider: 'a', status: null });
    expect(entry.attempts[0]!.error).toMatch(/skipped before calling: quota spent: .*0 requests left of 60/);
    // The route tester says the same before anything is sent, with what the headers said.
    const r = (await (await sb.admin('/route?model=quota-model')).json()) as { decisions: RouteDecision[] };
    expect(r.decisions.map((d) => [d.provider, d.action])).toEqual([
      ['a', 'skip'],
      ['b', 'call'],
    ]);
    expect(r.decisions[0]!.why).toMatch(/^skipped before calling: quota spent: .*0 requests left of 60/);
    expect(r.decisions[0]!.quota).toMatchObject({ requests_left: 0, requests_limit: 60 });
  });

  it('a rule without a strategy reads no quota: its providers are called as listed', async () => {
    a.setBehavior({ replyHeaders: { 'x-ratelimit-remaining-requests': '0' } });
    expect((await ask('plain-model')).provider).toBe('a');
    expect((await ask('plain-model')).provider).toBe('a');
  });

  it("when every provider's window is spent, nothing is called: 429 with Retry-After", async () => {
    const spent = { replyHeaders: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '30s' } };
    a.setBehavior(spent);
    b.setBehavior(spent);
    // Each answers once more (a, unless an earlier test's reading still holds, then b) and says its window is spent.
    for (let i = 0; i < 2; i++) await ask('quota-other').catch(() => null);
    const calls = a.chatCount() + b.chatCount();
    const err = await client()
      .chat.completions.create({ model: 'quota-other', messages: msg })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.message).toMatch(/rate-limit windows are spent/);
    expect(Number(e.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(a.chatCount() + b.chatCount()).toBe(calls);
  });
});
