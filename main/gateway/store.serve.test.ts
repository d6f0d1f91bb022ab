// The shared store through `switchboard serve` (one instance; the three-instance tests are
// test/team-gateway.serve.test.ts): SWITCHBOARD_REDIS_URL turns Redis on over a config.json that says nothing of
// it; the admin status shows the store (and never the URL's password); a key's concurrency slot is released in
// Redis on every exit path of a request (answered, streamed, upstream error, client gone mid-stream, refused); with
// Redis killed requests keep being answered and the status says down; when it is back the status says up. The
// official openai SDK sends the requests and parses the answers.
import OpenAI from 'openai';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusResponse } from '../../shared/admin.ts';
import { startMockProvider, type MockProvider } from '../../test/support/mock-provider.ts';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';
import { createGatewayKey, gatewayKeysFile } from './keys.ts';

let redis: TestRedis;
let raw: Redis;
let mock: MockProvider;
let sb: ServeProcess;
let embedded: ServeProcess;
let secret: string;

const status = async (s: ServeProcess) => (await (await s.admin('/status')).json()) as StatusResponse;
/** Slots held in Redis by the key "team" (its leases). */
const held = () => raw.zcard('switchboard:rl:key:team:leases');
const client = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: secret, maxRetries: 0, timeout: 20_000 });

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  raw.on('error', () => {});
  mock = await startMockProvider();
  const config = configFor({ m: mock.baseUrl }, { gateway: { enabled: true } });
  sb = await startServe({ config, env: { SWITCHBOARD_REDIS_URL: redis.url } });
  embedded = await startServe({ config: configFor({ m: mock.baseUrl }) });
  ({ secret } = await createGatewayKey(gatewayKeysFile(sb.dir), {
    kind: 'key',
    name: 'team',
    limits: { concurrency: 2 },
  }));
  await eventually(async () => expect((await status(sb)).store).toMatchObject({ kind: 'redis', up: true }), 10_000);
}, 60_000);

afterAll(async () => {
  await sb?.stop();
  await embedded?.stop();
  await mock?.close();
  raw?.disconnect();
  await redis?.stop();
});

describe('the shared store through serve', () => {
  it('status: embedded by default; Redis from SWITCHBOARD_REDIS_URL, its URL shown', async () => {
    expect((await status(embedded)).store).toMatchObject({ kind: 'embedded', up: true });
    const st = (await status(sb)).store!;
    expect(st).toMatchObject({ kind: 'redis', up: true, url: `redis://127.0.0.1:${redis.port}` });
    expect(Number.isNaN(Date.parse(st.since))).toBe(false);
  });

  it('releases the slot in Redis on every exit path', async () => {
    const noneHeld = () => eventually(async () => expect(await held()).toBe(0), 3_000, 20);
    // Answered.
    const done = await client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(done.choices[0]!.message.content).toContain('Hello');
    await noneHeld();
    // Streamed to the end.
    const stream = await client().chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) void _;
    await noneHeld();
    // The upstream fails (no other candidate): the client gets the error, the slot comes back.
    mock.setBehavior({ status: 500 });
    await expect(
      client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 502 });
    await noneHeld();
    // The client goes away mid-stream.
    mock.setBehavior({ tokens: ['a', 'b', 'c', 'd', 'e', 'f'], chunkDelayMs: 300 });
    const ac = new AbortController();
    const slow = await client().chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: ac.signal },
    );
    await eventually(async () => expect(await held()).toBe(1), 3_000, 20);
    const reading = (async () => {
      for await (const _ of slow) ac.abort();
    })().catch(() => undefined);
    await reading;
    await noneHeld();
    // Refused (both slots taken): the refusal holds nothing, and the two release theirs.
    mock.setBehavior({ firstByteDelayMs: 400 });
    const two = [0, 1].map(() =>
      client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    );
    await eventually(async () => expect(await held()).toBe(2), 3_000, 20);
    await expect(
      client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 429 });
    await Promise.all(two);
    await noneHeld();
    mock.setBehavior({});
  });

  it('Redis killed: requests keep being answered and the status says down; back: up again', async () => {
    await redis.kill();
    await eventually(async () => expect((await status(sb)).store).toMatchObject({ kind: 'redis', up: false }));
    for (let i = 0; i < 5; i++) {
      const r = await client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      expect(r.choices[0]!.message.content).toContain('Hello');
    }
    await redis.restart();
    await eventually(async () => expect((await status(sb)).store).toMatchObject({ up: true }), 10_000);
    const r = await client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.choices[0]!.message.content).toContain('Hello');
    await eventually(async () => expect(await held()).toBe(0), 3_000, 20);
  });
});
