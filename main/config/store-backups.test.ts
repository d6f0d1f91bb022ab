// The config store keeps what it replaces: a save, an edit taken in by reload, a restore; and restores on the files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import previousVersion from '../../test/fixtures/config/previous-version-config.json' with { type: 'json' };
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { backupsDir, listBackups, readBackup } from './backups.ts';
import { ConfigError, ConfigStore, restoreBackupFile } from './store.ts';

let tmp: TempDir;
let file: string;
beforeEach(async () => {
  tmp = await makeTempDir('sb-store-backups');
  file = path.join(tmp.dir, 'config.json');
});
afterEach(() => tmp.cleanup());

const cfg = (...names: string[]) => ({
  providers: names.map((name) => ({ name, base_url: 'http://127.0.0.1:9/v1', api_key: `sk-${name}-key-0123456789` })),
  routing: { default_provider: names[0] ?? '', rules: [] },
});
const text = (c: unknown) => `${JSON.stringify(c, null, 2)}\n`;

describe('save', () => {
  it('keeps the previous bytes as a backup and answers it; a save that changes nothing keeps none', async () => {
    await fs.writeFile(file, JSON.stringify(cfg('a', 'b'))); // written compactly, by hand
    const store = await ConfigStore.open(file);
    const same = await store.save(cfg('a', 'b'));
    expect(same.backup).toBeNull();
    const r = await store.save({});
    expect(r.config.providers).toEqual([]);
    expect(r.backup).toMatchObject({ reason: 'save', providers: 2, provider_names: ['a', 'b'] });
    expect((await readBackup(file, r.backup!.id))?.text).toBe(text(cfg('a', 'b')));
  });

  it('a save whose backup cannot be written is refused: config.json and the config in force stay', async () => {
    await fs.writeFile(file, text(cfg('a')));
    const store = await ConfigStore.open(file);
    await fs.writeFile(backupsDir(file), 'a file where the folder should be');
    await expect(store.save({})).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
    expect(await fs.readFile(file, 'utf8')).toBe(text(cfg('a')));
    expect(store.config.providers.map((p) => p.name)).toEqual(['a']);
  });

  it('saves one at a time: each one’s backup holds the config the one before it wrote', async () => {
    await fs.writeFile(file, text(cfg('a')));
    const store = await ConfigStore.open(file);
    const results = await Promise.all([store.save(cfg('b')), store.save(cfg('c')), store.save(cfg('d'))]);
    expect(results.map((r) => r.backup!.provider_names)).toEqual([['a'], ['b'], ['c']]);
    expect(store.config.providers.map((p) => p.name)).toEqual(['d']);
  });
});

describe('open', () => {
  it('keeps the previous version’s file as it was before removing its old limit defaults', async () => {
    await fs.writeFile(file, previousVersion.text);
    const store = await ConfigStore.open(file);
    expect(store.notices[0]).toContain('removed from the file');
    const [b] = await listBackups(file);
    expect(b).toMatchObject({ reason: 'upgrade', valid: true });
    expect((await readBackup(file, b!.id))?.text).toBe(previousVersion.text);
  });
});

describe('reload (an edit of the file taken in)', () => {
  it('keeps the last good config; an invalid edit keeps nothing and is not what the next edit backs up', async () => {
    await fs.writeFile(file, text(cfg('a')));
    const store = await ConfigStore.open(file);
    await fs.writeFile(file, '{ half typed');
    await store.reload();
    expect(store.error).not.toBeNull();
    expect(await listBackups(file)).toEqual([]);
    await fs.writeFile(file, text(cfg('b')));
    await store.reload();
    expect(store.config.providers.map((p) => p.name)).toEqual(['b']);
    const list = await listBackups(file);
    expect(list.map((b) => [b.reason, b.provider_names])).toEqual([['edit', ['a']]]);
  });

  it('a save through the store is not kept again when its own write is read back', async () => {
    await fs.writeFile(file, text(cfg('a')));
    const store = await ConfigStore.open(file);
    await store.save(cfg('b'));
    await store.reload();
    expect((await listBackups(file)).map((b) => b.reason)).toEqual(['save']);
  });
});

describe('restore', () => {
  it('puts the backup in force at once, keeping the current config first', async () => {
    await fs.writeFile(file, text(cfg('a', 'b')));
    const store = await ConfigStore.open(file);
    const { backup } = await store.save({});
    const changes: string[][] = [];
    store.on('change', (next) => changes.push(next.providers.map((p) => p.name)));
    const r = await store.restore(backup!.id);
    expect(changes).toEqual([['a', 'b']]);
    expect(await fs.readFile(file, 'utf8')).toBe(text(cfg('a', 'b')));
    expect(r.restored.id).toBe(backup!.id);
    expect(r.backup).toMatchObject({ reason: 'restore', providers: 0 });
    expect(await store.readRaw()).toEqual(cfg('a', 'b'));
    // "latest" is the newest: the config the restore replaced, so restoring latest again undoes the restore.
    await store.restore('latest');
    expect(store.config.providers).toEqual([]);
  });

  it('refuses a backup that is not a valid config, naming its problems; nothing changes', async () => {
    await fs.writeFile(file, text(cfg('a')));
    const store = await ConfigStore.open(file);
    await fs.mkdir(backupsDir(file));
    await fs.writeFile(path.join(backupsDir(file), '20250101-000000-000-edit.json'), '{"listen_port": "x"}');
    const err = await store.restore('latest').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems[0]!.path).toBe('listen_port');
    expect(await fs.readFile(file, 'utf8')).toBe(text(cfg('a')));
    expect((await listBackups(file)).map((b) => b.id)).toEqual(['20250101-000000-000-edit']);
  });

  it('restoreBackupFile works on the files alone, over a config.json that is broken or missing', async () => {
    await fs.mkdir(backupsDir(file));
    await fs.writeFile(path.join(backupsDir(file), '20250101-000000-000-save.json'), text(cfg('a')));
    const missing = await restoreBackupFile(file, 'latest');
    expect(missing.backup).toBeNull();
    expect(await fs.readFile(file, 'utf8')).toBe(text(cfg('a')));
    await fs.writeFile(file, '{ broken');
    const broken = await restoreBackupFile(file, '20250101-000000-000-save');
    expect(broken.backup).toMatchObject({ reason: 'restore', valid: false });
    expect((await readBackup(file, broken.backup!.id))?.text).toBe('{ broken');
    await expect(restoreBackupFile(file, '20990101-000000-000-save')).rejects.toThrow(
      'no backup "20990101-000000-000-save"',
    );
  });
});
