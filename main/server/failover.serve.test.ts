// Streaming, failover, timeouts, the circuit breaker and client disconnects, through `switchboard serve`.
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort } from '../../test/support/ports.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let primary: MockProvider;
let backup: MockProvider;
let deadPort: number;
let sb: ServeProcess;
const client = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
const msg = [{ role: 'user' as const, content: 'hi' }];

beforeAll(async () => {
  primary = await startMockProvider({ name: 'primary' });
  backup = await startMockProvider({ name: 'backup' });
  deadPort = await freePort();
  sb = await startServe({
    config: {
      ...configFor(
        { primary: primary.baseUrl, backup: backup.baseUrl, dead: `http://127.0.0.1:${deadPort}/v1` },
        {
          rules: [
            { pattern: 'chain-*', provider: 'primary' },
            { pattern: 'chain-*', provider: 'backup' },
            { pattern: 'dead-*', provider: 'dead' },
            { pattern: 'dead-*', provider: 'backup' },
            { pattern: 'solo-*', provider: 'primary' },
          ],
          default_provider: '',
        },
      ),
      timeouts: { connect_ms: 1000, first_byte_ms: 400, idle_ms: 400 },
      circuit_breaker: { failure_threshold: 100, cooldown_ms: 1000 },
    },
  });
});
shutDownAfterAll(() => [sb, primary, backup]);
defaultBehaviorBeforeEach(() => [primary, backup]);

describe('streaming', () => {
  it('delivers chunks as they arrive: the client has the first before the provider sends the last', async () => {
    primary.setBehavior({ tokens: ['one', ' two', ' three', ' four', ' five'], chunkDelayMs: 150 });
    const stream = await client().chat.completions.create({ model: 'solo-stream', messages: msg, stream: true });
    const arrivals: { at: number; text: string }[] = [];
    for await (const chunk of stream)
      arrivals.push({ at: performance.now(), text: chunk.choices[0]?.delta?.content ?? '' });
    const text = arrivals.map((x) => x.text).join('');
    expect(text).toBe('one two three four five');
    const firstContent = arrivals.find((x) => x.text === 'one')!;
    const lastSent = primary.sentChunksAt.at(-1)!;
    expect(firstContent.at).toBeLessThan(lastSent - 300);
  });

  it('sends stream responses as text/event-stream with the routing headers', async () => {
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'solo-x', messages: msg, stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-switchboard-provider')).toBe('primary');
    const text = await res.text();
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });
});

describe('failover before the first byte', () => {
  it('moves to the backup on a 5xx', async () => {
    primary.setBehavior({ status: 503 });
    const p0 = primary.chatCount();
    const { data, response } = await client()
      .chat.completions.create({ model: 'chain-a', messages: msg })
      .withResponse();
    expect(data.choices[0]!.message.content).toContain('backup');
    expect(primary.chatCount()).toBe(p0 + 1);
    expect(response.headers.get('x-switchboard-provider')).toBe('backup');
    expect(response.headers.get('x-switchboard-attempts')).toBe('2');
  });

  it('moves to the backup on 429 and 408', async () => {
    for (const status of [429, 408]) {
      primary.setBehavior({ status });
      const data = await client().chat.completions.create({ model: 'chain-b', messages: msg });
      expect(data.choices[0]!.message.content).toContain('backup');
    }
  });

  it("does not fail over on a 400: the provider's answer reaches the client", async () => {
    primary.setBehavior({ status: 400 });
    const b0 = backup.chatCount();
    const err = await client()
      .chat.completions.create({ model: 'chain-c', messages: msg })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(backup.chatCount()).toBe(b0);
  });

  it('moves to the backup when the first cannot be reached', async () => {
    const data = await client().chat.completions.create({ model: 'dead-model', messages: msg });
    expect(data.choices[0]!.message.content).toContain('backup');
  });

  it('moves to the backup after the first-byte timeout', async () => {
    primary.setBehavior({ hang: true });
    const t0 = Date.now();
    const data = await client().chat.completions.create({ model: 'chain-d', messages: msg });
    expect(data.choices[0]!.message.content).toContain('backup');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
  });

  it('names the first-byte timeout in the answer when the only provider never answers', async () => {
    primary.setBehavior({ hang: true });
    const t0 = performance.now();
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'solo-hang', messages: msg }),
    });
    const ms = performance.now() - t0;
    const body = (await res.json()) as { error: { message: string } };
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(body.error.message).toContain('no response before the first-byte timeout');
    expect(ms).toBeGreaterThanOrEqual(380);
    expect(ms).toBeLessThan(2_000);
  });

  it('moves to the backup on a connection reset', async () => {
    primary.setBehavior({ destroy: true });
    const data = await client().chat.completions.create({ model: 'chain-e', messages: msg, stream: false });
    expect(data.choices[0]!.message.content).toContain('backup');
  });

  it('streams from the backup when the primary fails before its first byte', async () => {
    primary.setBehavior({ status: 500 });
    const stream = await client().chat.completions.create({ model: 'chain-f', messages: msg, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toContain('backup');
  });

  it("when every provider fails: a 502 in the spec's error shape listing each attempt", async () => {
    primary.setBehavior({ status: 500 });
    backup.setBehavior({ status: 503 });
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chain-g', messages: msg }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string; message: string; type: string; action: string } };
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.message).toContain('primary: HTTP 500');
    expect(body.error.message).toContain('backup: HTTP 503');
    expect(body.error.action).toBeTruthy();
  });

  it('when the only provider is rate limited: 429', async () => {
    primary.setBehavior({ status: 429 });
    const err = await client()
      .chat.completions.create({ model: 'solo-429', messages: msg })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describe('no failover after the first byte', () => {
  it('ends the stream with an error event the client raises, and never calls the backup', async () => {
    primary.setBehavior({ tokens: ['a', 'b', 'c', 'd', 'e', 'f'], failAfterChunks: 3 });
    const b0 = backup.chatCount();
    const stream = await client().chat.completions.create({ model: 'chain-h', messages: msg, stream: true });
    let text = '';
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(String((err as Error).message)).toContain('mid-stream');
    expect(text).toBe('ab');
    expect(backup.chatCount()).toBe(b0);
  });

  it('ends a stream that goes idle past the idle timeout instead of hanging', async () => {
    primary.setBehavior({ tokens: ['x', 'y'], headersThenHangMs: 5_000 });
    const t0 = Date.now();
    const stream = await client().chat.completions.create({ model: 'solo-idle', messages: msg, stream: true });
    const err = await (async () => {
      for await (const _ of stream) void _;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(Date.now() - t0).toBeLessThan(3_000);
  });
});

describe('idle timeout', () => {
  it('does not cut a stream whose chunks keep coming within it, however long the stream lasts', async () => {
    // 8 chunks 150 ms apart (idle_ms 400): 1.2 s in all, three times the idle timeout.
    primary.setBehavior({ tokens: Array.from({ length: 8 }, (_, i) => `t${i} `), chunkDelayMs: 150 });
    const t0 = performance.now();
    const stream = await client().chat.completions.create({ model: 'solo-slow', messages: msg, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('t0 t1 t2 t3 t4 t5 t6 t7 ');
    expect(performance.now() - t0).toBeGreaterThan(1_000);
  });
});

describe('client disconnect', () => {
  it('aborts the upstream request when the client goes away mid-stream', async () => {
    primary.setBehavior({ tokens: Array.from({ length: 20 }, (_, i) => `t${i} `), chunkDelayMs: 100 });
    const ac = new AbortController();
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'solo-abort', messages: msg, stream: true }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    await new Promise((r) => setTimeout(r, 800));
    const sent = primary.sentChunksAt.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(primary.sentChunksAt.length).toBe(sent);
    expect(sent).toBeLessThan(15);
    const logs = (await (await sb.admin('/logs?limit=3')).json()) as {
      data: { status: number; requested_model: string }[];
    };
    expect(logs.data.find((l) => l.requested_model === 'solo-abort')?.status).toBe(499);
  });
});

describe('circuit breaker', () => {
  it('opens after consecutive failures, skips the provider, and closes after a good probe', async () => {
    const cfg = JSON.parse(await (await import('node:fs/promises')).readFile(sb.configPath, 'utf8'));
    cfg.circuit_breaker = { failure_threshold: 2, cooldown_ms: 700 };
    await sb.writeConfig(cfg);
    await eventually(async () => {
      const route = (await (await sb.admin('/config')).json()) as {
        config: { circuit_breaker: { failure_threshold: number } };
      };
      expect(route.config.circuit_breaker.failure_threshold).toBe(2);
    });
    await new Promise((r) => setTimeout(r, 200));
    primary.setBehavior({ status: 500 });
    await client().chat.completions.create({ model: 'chain-cb', messages: msg });
    await client().chat.completions.create({ model: 'chain-cb', messages: msg });
    const p0 = primary.chatCount();
    const { response } = await client().chat.completions.create({ model: 'chain-cb', messages: msg }).withResponse();
    expect(primary.chatCount()).toBe(p0);
    expect(response.headers.get('x-switchboard-provider')).toBe('backup');
    const status = (await (await sb.admin('/status')).json()) as {
      providers: { name: string; circuit: string; state: string; last_error: string }[];
    };
    const p = status.providers.find((x) => x.name === 'primary')!;
    expect(p.circuit).toBe('open');
    expect(p.state).toBe('failed');
    expect(p.last_error).toContain('HTTP 500');

    primary.setBehavior({});
    await new Promise((r) => setTimeout(r, 800));
    const probe = await client().chat.completions.create({ model: 'chain-cb', messages: msg }).withResponse();
    expect(probe.response.headers.get('x-switchboard-provider')).toBe('primary');
    const after = (await (await sb.admin('/status')).json()) as {
      providers: { name: string; circuit: string; state: string }[];
    };
    expect(after.providers.find((x) => x.name === 'primary')).toMatchObject({ circuit: 'closed', state: 'ok' });
  });
});
