// Gateway keys on the shared store (store kind "redis"), two instances each with its own config folder on one real
// Redis: a key made with `keys create` in one instance's file works on the other, a revocation made in one file
// applies on the other within a second (the file is synced in, the change published), a revocation is never undone
// by another file, known keys keep answering while Redis is down, and a Redis that comes back empty is refilled.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startRedis, type TestRedis, SHARING_BUDGET } from '../../test/support/redis.ts';
import { openRedisState, type FailOpenState } from '../store/fail-open.ts';
import { createGatewayKey, GatewayKeyRing, gatewayKeysFile, revokeGatewayKey } from './keys.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

type Instance = { dir: string; file: string; ring: GatewayKeyRing; store: FailOpenState };
let instances: Instance[] = [];
let prefix: string;

async function instance(): Promise<Instance> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-sharedkeys-'));
  const file = gatewayKeysFile(dir);
  const store = openRedisState({ kind: 'redis', url: redis.url, prefix, ...SHARING_BUDGET });
  for (let i = 0; i < 200 && !store.status().up; i++) await new Promise((r) => setTimeout(r, 5));
  const ring = new GatewayKeyRing(file);
  await ring.share(store.credentials, { resyncMs: 60_000 }).ready;
  const made = { dir, file, ring, store };
  instances.push(made);
  return made;
}

async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeEach(() => {
  prefix = `k${randomUUID().slice(0, 8)}:`;
});
afterEach(async () => {
  for (const i of instances) {
    i.ring.close();
    await i.store.close();
    await fs.rm(i.dir, { recursive: true, force: true });
  }
  instances = [];
});

it('a key made in one instance’s file works on another; its revocation there applies on the other within a second', async () => {
  const a = await instance();
  const b = await instance();
  const { secret, record } = await createGatewayKey(a.file, { kind: 'key', name: 'ci', limits: { rpm: 5 } });
  await within(1_000, async () => (await b.ring.lookup(secret))?.id === record.id);
  expect((await b.ring.lookup(secret))?.limits).toEqual({ rpm: 5 });
  expect(await b.ring.lookup('sk-sb-nope')).toBeNull();
  // b now holds the key in its cache: only the published change can take it out.
  await revokeGatewayKey(a.file, record.id);
  const took = await within(1_000, async () => (await b.ring.lookup(secret))?.revoked_at != null);
  expect(took).toBeLessThan(1_000);
  expect((await a.ring.records()).map((k) => k.id)).toEqual([record.id]);
});

it('an instance whose file still has a key unrevoked does not undo its revocation', async () => {
  const a = await instance();
  const made = await createGatewayKey(a.file, { kind: 'key', name: 'ci' });
  // A second instance started with a copy of the file from before the revocation.
  const b = await instance();
  await fs.copyFile(a.file, b.file);
  await within(1_000, async () => (await b.ring.lookup(made.secret)) !== null);
  await revokeGatewayKey(a.file, made.record.id);
  await within(1_000, async () => (await b.ring.lookup(made.secret))?.revoked_at != null);
  await fs.writeFile(b.file, await fs.readFile(b.file)); // b's (stale) file changes again: synced, but not over
  await new Promise((r) => setTimeout(r, 400));
  expect((await b.ring.lookup(made.secret))?.revoked_at).toEqual(expect.any(String));
  expect((await a.ring.lookup(made.secret))?.revoked_at).toEqual(expect.any(String));
});

it('known keys keep answering while Redis is down; a Redis back empty is refilled by the instances', async () => {
  const a = await instance();
  const b = await instance();
  const { secret, record } = await createGatewayKey(a.file, { kind: 'pat', name: 'dev' });
  await within(1_000, async () => (await b.ring.lookup(secret))?.id === record.id);
  await redis.kill();
  await within(2_000, async () => !b.store.status().up);
  expect((await b.ring.lookup(secret))?.id).toBe(record.id);
  expect(await b.ring.lookup('sbp_unknown')).toBeNull(); // no throw
  await redis.restart(); // empty: no persistence
  await within(5_000, async () => a.store.status().up && b.store.status().up);
  const c = await instance(); // a new instance, nothing of its own: finds the key in the refilled Redis
  await within(2_000, async () => (await c.ring.lookup(secret))?.id === record.id);
});

it('a key made in this instance’s file is accepted by it at once, as in embedded mode', async () => {
  const a = await instance();
  const { secret, record } = await createGatewayKey(a.file, { kind: 'key', name: 'now' });
  expect((await a.ring.lookup(secret))?.id).toBe(record.id);
  expect(await a.store.credentials.get(record.sha256)).toContain(record.id); // and it is in Redis already
});

it('a revocation in this instance’s file applies to its own next request at once, as in embedded mode', async () => {
  const a = await instance();
  const { secret, record } = await createGatewayKey(a.file, { kind: 'key', name: 'gone' });
  expect((await a.ring.lookup(secret))?.revoked_at).toBeNull();
  await revokeGatewayKey(a.file, record.id);
  expect((await a.ring.lookup(secret))?.revoked_at).toEqual(expect.any(String));
});
