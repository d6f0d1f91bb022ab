import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKey, KEY_PATTERN, KeyRing, readKeys, revokeKey } from './keys.ts';

it('keeps every key when many are created at once, stores only hashes, and revokes', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-keys-'));
  const file = path.join(dir, 'agent-keys.json');
  const made = await Promise.all(Array.from({ length: 20 }, (_, i) => createKey(file, `t${i % 3}`)));
  expect(made.every((m) => KEY_PATTERN.test(m.key))).toBe(true);
  expect((await readKeys(file)).length).toBe(20);
  const text = await fs.readFile(file, 'utf8');
  for (const m of made) expect(text).not.toContain(m.key.slice(9));
  const ring = new KeyRing(file);
  expect(await ring.tenantOf(made[4]!.key)).toBe('t1');
  expect(await ring.tenantOf(undefined)).toBeNull();
  expect(await revokeKey(file, made[4]!.record.id)).toBe(true);
  expect(await revokeKey(file, 'key_nope')).toBe(false);
  expect(await ring.tenantOf(made[4]!.key)).toBeNull();
  await fs.rm(dir, { recursive: true, force: true });
});

it('answers every one of several first requests that arrive together (none sees the ring before its keys load)', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-keys-'));
  const file = path.join(dir, 'agent-keys.json');
  const { key } = await createKey(file, 'acme');
  const ring = new KeyRing(file);
  expect(await Promise.all(Array.from({ length: 5 }, () => ring.tenantOf(key)))).toEqual(Array(5).fill('acme'));
  await fs.rm(dir, { recursive: true, force: true });
});

describe('revocations reach open streams', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-keys-'));
    file = path.join(dir, 'agent-keys.json');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));
  const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('tells the holders of a key once when it leaves the file, and only them; the poll runs only while someone listens', async () => {
    const a = await createKey(file, 'acme');
    const b = await createKey(file, 'acme');
    const ring = new KeyRing(file, 20);
    expect(await ring.keyOf(a.key)).toEqual({ id: a.record.id, tenant: 'acme' });
    const fired = { a: 0, b: 0 };
    ring.onRevoked(a.record.id, () => fired.a++);
    const offB = ring.onRevoked(b.record.id, () => fired.b++);
    expect(ring.watching).toBe(true);
    // Revoked by another writer of the file (the CLI): no request comes; the poll notices.
    await revokeKey(file, a.record.id);
    for (let i = 0; i < 100 && fired.a === 0; i++) await settle(10);
    expect(fired).toEqual({ a: 1, b: 0 });
    offB();
    expect(ring.watching).toBe(false);
    await revokeKey(file, b.record.id);
    await settle(100);
    expect(fired).toEqual({ a: 1, b: 0 });
  });

  it('a request that reads the changed file tells the holders before it is answered (no poll needed)', async () => {
    const a = await createKey(file, 'acme');
    const b = await createKey(file, 'acme');
    const ring = new KeyRing(file, 3_600_000);
    expect(await ring.tenantOf(a.key)).toBe('acme');
    let fired = 0;
    ring.onRevoked(a.record.id, () => fired++);
    await revokeKey(file, a.record.id);
    expect(await ring.tenantOf(b.key)).toBe('acme');
    expect(fired).toBe(1);
    ring.onRevoked(b.record.id, () => {})(); // unsubscribed at once: the poll stops
    expect(ring.watching).toBe(false);
  });

  it('a key already gone when its stream registers is told at once (after the registering code has run)', async () => {
    const a = await createKey(file, 'acme');
    const ring = new KeyRing(file, 3_600_000);
    expect(await ring.tenantOf(a.key)).toBe('acme');
    await revokeKey(file, a.record.id);
    expect(await ring.tenantOf(a.key)).toBeNull();
    let fired = 0;
    ring.onRevoked(a.record.id, () => fired++);
    expect(fired).toBe(0);
    await Promise.resolve();
    expect(fired).toBe(1);
    expect(ring.watching).toBe(false);
  });
});
