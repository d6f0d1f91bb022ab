// `switchboard keys … --gateway` with the store in Redis (config.json's store, or SWITCHBOARD_REDIS_URL): a key made
// with one instance's config is in Redis at once (every instance takes it), one made elsewhere can be revoked and
// is listed from any instance's config; with Redis unreachable the file is still changed and the command says so.
// Embedded (no store): the file alone, as before.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startRedis, type TestRedis, SHARING_BUDGET } from '../../test/support/redis.ts';
import { openRedisState } from '../store/fail-open.ts';
import { gatewayKeysCommand } from './cli.ts';
import { gatewayKeysFile, hashSecret, readGatewayKeys, readSharedKeys } from './keys.ts';

let redis: TestRedis;
const dirs: string[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function configDir(store: unknown): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-keyscli-'));
  dirs.push(dir);
  await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(store === undefined ? {} : { store }));
  return dir;
}

it('with store redis: create goes to Redis too; another instance’s config lists and revokes it', async () => {
  const prefix = `c${randomUUID().slice(0, 8)}:`;
  const store = { kind: 'redis', url: redis.url, prefix };
  const one = await configDir(store);
  const two = await configDir(store);
  const made = await gatewayKeysCommand(one, 'create', undefined, { name: 'ci', rpm: '7' });
  const secret = made.out.trim();
  expect(made.err).toContain('the shared store');
  const shared = openRedisState({ ...(store as { kind: 'redis'; url: string; prefix: string }), ...SHARING_BUDGET });
  try {
    for (let i = 0; i < 200 && !shared.status().up; i++) await new Promise((r) => setTimeout(r, 5));
    const rec = JSON.parse((await shared.credentials.get(hashSecret(secret)))!) as { id: string; limits: object };
    expect(rec.limits).toEqual({ rpm: 7 });
    expect((await gatewayKeysCommand(two, 'list', undefined, {})).out).toContain(rec.id);
    expect(await readGatewayKeys(gatewayKeysFile(two))).toEqual([]); // not in two's file
    expect((await gatewayKeysCommand(two, 'revoke', rec.id, {})).out).toBe(`revoked ${rec.id}\n`);
    const after = await readSharedKeys(shared.credentials);
    expect(after.find((k) => k.id === rec.id)?.revoked_at).toEqual(expect.any(String));
    await expect(gatewayKeysCommand(two, 'revoke', 'key_nope', {})).rejects.toThrow(/or the shared store/);
  } finally {
    await shared.close();
  }
});

it('SWITCHBOARD_REDIS_URL turns it on over a config.json without a store', async () => {
  const dir = await configDir(undefined);
  process.env.SWITCHBOARD_REDIS_URL = redis.url;
  try {
    const made = await gatewayKeysCommand(dir, 'create', undefined, { name: 'env' });
    expect(made.err).toContain(`the shared store (redis://127.0.0.1:${redis.port})`);
  } finally {
    delete process.env.SWITCHBOARD_REDIS_URL;
  }
});

it('Redis unreachable: the file is changed and the command says Redis was not', async () => {
  const dir = await configDir({ kind: 'redis', url: 'redis://:secret-pw@127.0.0.1:1', prefix: 'x:' });
  const made = await gatewayKeysCommand(dir, 'create', undefined, { name: 'offline' });
  expect(made.err).toMatch(/is not reachable: only gateway-keys\.json was changed/);
  expect(made.err).not.toContain('secret-pw');
  expect(await readGatewayKeys(gatewayKeysFile(dir))).toHaveLength(1);
});

it('embedded (no store): the file alone', async () => {
  const dir = await configDir(undefined);
  const made = await gatewayKeysCommand(dir, 'create', undefined, { name: 'solo' });
  expect(made.err).not.toContain('shared store');
  expect(await readGatewayKeys(gatewayKeysFile(dir))).toHaveLength(1);
});
