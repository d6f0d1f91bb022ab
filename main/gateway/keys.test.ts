// Gateway keys and PATs through the locked key file: concurrent creates keep every key (they could lose one when
// the file was read, changed and written without the lock), only hashes are stored, revocations apply at once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createGatewayKey, GatewayKeyRing, hashSecret, readGatewayKeys, revokeGatewayKey } from './keys.ts';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-gwkeys-'));
  file = path.join(dir, 'gateway-keys.json');
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

it('keeps every key when many are created at once, and stores only hashes, owner-only', async () => {
  const made = await Promise.all(
    Array.from({ length: 20 }, (_, i) => createGatewayKey(file, { kind: i % 2 ? 'pat' : 'key', name: `n${i}` })),
  );
  const stored = await readGatewayKeys(file);
  expect(stored).toHaveLength(20);
  expect(new Set(stored.map((k) => k.sha256))).toEqual(new Set(made.map((m) => hashSecret(m.secret))));
  const text = await fs.readFile(file, 'utf8');
  for (const m of made) expect(text).not.toContain(m.secret);
  if (process.platform !== 'win32') expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  await expect(fs.stat(`${file}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
});

it('looks keys up by their secret, sees revocations at once, and answers first requests that arrive together', async () => {
  const { secret, record } = await createGatewayKey(file, { kind: 'key', name: 'ci', models: ['gpt-*'] });
  const ring = new GatewayKeyRing(file);
  const first = await Promise.all(Array.from({ length: 5 }, () => ring.lookup(secret)));
  expect(first.map((r) => r?.id)).toEqual(Array(5).fill(record.id));
  expect(await ring.lookup('sk-sb-nope')).toBeNull();
  expect(await revokeGatewayKey(file, record.id)).toBe(true);
  expect(await revokeGatewayKey(file, 'key_missing')).toBe(false);
  expect((await ring.lookup(secret))?.revoked_at).toEqual(expect.any(String));
});

it('takes over a lock left by a command that died', async () => {
  await fs.writeFile(`${file}.lock`, '');
  const old = new Date(Date.now() - 60_000);
  await fs.utimes(`${file}.lock`, old, old);
  await createGatewayKey(file, { kind: 'key', name: 'after-crash' });
  expect(await readGatewayKeys(file)).toHaveLength(1);
});
