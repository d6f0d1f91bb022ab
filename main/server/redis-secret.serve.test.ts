// The Redis URL's password (issue 33, item 8): GET /admin/v1/config showed it in clear (status, logs and metrics mask
// it), and a wrong password logged nothing. Against a real redis-server with requirepass and the compiled serve.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const PASSWORD = 'redisPw-0123456789-abcdef';
let redis: TestRedis;
let sb: ServeProcess | undefined;

beforeAll(async () => {
  redis = await startRedis({ password: PASSWORD });
});
afterAll(async () => {
  await sb?.stop();
  await redis?.stop();
});

const configWith = (url: string) => ({ providers: [], store: { kind: 'redis', url } });

describe('the Redis URL in config.json', () => {
  it('GET /admin/v1/config masks its password; sent back masked, the stored one is kept (also with the URL changed)', async () => {
    sb = await startServe({ config: configWith(redis.url) });
    const read = await sb.admin('/config');
    const text = await read.text();
    expect(text).not.toContain(PASSWORD);
    const body = JSON.parse(text) as { config: { store: { url: string; prefix?: string } } };
    expect(body.config.store.url).toBe(`redis://:****@127.0.0.1:${redis.port}`);
    // Back as read, with the prefix changed: the password stays what it was.
    const put = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body.config, store: { ...body.config.store, prefix: 'other:' } }),
    });
    expect(put.status).toBe(200);
    expect(await put.text()).not.toContain(PASSWORD);
    const saved = JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as { store: { url: string; prefix: string } };
    expect(saved.store).toEqual({ kind: 'redis', url: redis.url, prefix: 'other:' });
    // Masked, with the address changed: the stored password goes to the new address.
    const put2 = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body.config, store: { kind: 'redis', url: 'redis://:****@127.0.0.1:1' } }),
    });
    expect(put2.status).toBe(200);
    const moved = JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as { store: { url: string } };
    expect(moved.store.url).toBe(`redis://:${PASSWORD}@127.0.0.1:1`);
    // With no password stored, a masked one is refused rather than saved as "****".
    const plain = { ...body.config, store: { kind: 'redis', url: 'redis://127.0.0.1:1' } };
    const put3 = await sb.admin('/config', { method: 'PUT', body: JSON.stringify(plain) });
    expect(put3.status).toBe(200);
    const masked = { ...body.config, store: { kind: 'redis', url: 'redis://:****@127.0.0.1:1' } };
    const put4 = await sb.admin('/config', { method: 'PUT', body: JSON.stringify(masked) });
    expect(put4.status).toBe(400);
    expect(await put4.json()).toMatchObject({ error: { code: 'config_invalid' } });
    await sb.stop();
    sb = undefined;
  }, 30_000);

  it('a wrong password is logged (once, naming where the URL comes from), never the password itself', async () => {
    const wrong = `redis://:wrongPw-9876543210@127.0.0.1:${redis.port}`;
    sb = await startServe({ config: configWith(wrong) });
    await eventually(() => expect(sb!.stderr()).toContain('Redis refused the credentials'), 10_000);
    await new Promise((r) => setTimeout(r, 1_500)); // ioredis retries every 50-2000 ms: the same error again
    const lines = sb
      .stderr()
      .split('\n')
      .filter((l) => l.includes('shared state: Redis refused the credentials'));
    expect(lines).toHaveLength(1); // once for the gateway's connection (the agents' connections say it once each)
    expect(lines[0]).toContain('store.url in config.json, or SWITCHBOARD_REDIS_URL');
    expect(sb.stderr()).not.toContain('wrongPw-9876543210');
    await sb.stop();
    sb = undefined;
  }, 30_000);
});
