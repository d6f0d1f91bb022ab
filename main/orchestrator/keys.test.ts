import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
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
