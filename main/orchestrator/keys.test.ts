import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKey, KEY_PATTERN, KeyRing, readKeys, revokeKey, UI_KEY_LABEL, uiKey } from './keys.ts';

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

describe("the UI's own key (issue 15, bug 8)", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-keys-'));
    file = path.join(dir, 'agent-keys.json');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('is made once, labelled, and handed back to ten callers at once and later', async () => {
    const got = await Promise.all(Array.from({ length: 10 }, () => uiKey(file, 'admin-token-a')));
    expect(new Set(got.map((g) => g.key)).size).toBe(1);
    expect(got.filter((g) => g.created)).toHaveLength(1);
    expect(KEY_PATTERN.test(got[0]!.key)).toBe(true);
    const again = await uiKey(file, 'admin-token-a');
    expect(again).toMatchObject({ key: got[0]!.key, created: false });
    const stored = await readKeys(file);
    expect(stored).toEqual([
      expect.objectContaining({ tenant: 'default', label: UI_KEY_LABEL, ui: true, id: again.record.id }),
    ]);
    // Only its hash is on disk, and it works like any key.
    expect(await fs.readFile(file, 'utf8')).not.toContain(again.key.slice(9));
    expect(await new KeyRing(file).tenantOf(again.key)).toBe('default');
  });

  it('leaves other keys alone; a revoked UI key or one of another admin token is replaced, never added to', async () => {
    await createKey(file, 'acme', 'nightly report');
    const first = await uiKey(file, 'admin-token-a');
    expect(await revokeKey(file, first.record.id)).toBe(true);
    const second = await uiKey(file, 'admin-token-a');
    expect(second.created).toBe(true);
    expect(second.key).not.toBe(first.key);
    const third = await uiKey(file, 'admin-token-b'); // the admin token was replaced
    expect(third.key).not.toBe(second.key);
    const stored = await readKeys(file);
    expect(stored.map((k) => k.label)).toEqual(['nightly report', UI_KEY_LABEL]);
    expect(await new KeyRing(file).tenantOf(second.key)).toBeNull();
  });

  it('refuses a label that is empty, too long or has control characters', async () => {
    await expect(createKey(file, 'acme', '')).rejects.toThrow(/--label must be 1-100 characters/);
    await expect(createKey(file, 'acme', 'x'.repeat(101))).rejects.toThrow(/--label/);
    await expect(createKey(file, 'acme', 'a\nb')).rejects.toThrow(/--label/);
    expect(await readKeys(file)).toEqual([]);
  });
});
