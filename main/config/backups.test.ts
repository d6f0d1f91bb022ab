// The ring of config.json backups: exact bytes, owner-only, ids in time order, the newest 20 and one a day for 30
// days kept, no key in a summary.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_BACKUP_ID_RE, ConfigBackupInfoSchema } from '../../shared/admin.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import {
  BACKUP_DAYS,
  BACKUPS_KEPT,
  BACKUPS_MAX,
  backupsDir,
  keepBackup,
  keptIds,
  listBackups,
  readBackup,
  summarize,
} from './backups.ts';
import { ConfigError, restoreBackupFile } from './store.ts';

let tmp: TempDir;
let file: string;
beforeEach(async () => {
  tmp = await makeTempDir('sb-backups');
  file = path.join(tmp.dir, 'config.json');
});
afterEach(() => tmp.cleanup());

const configText = (n: number) =>
  `${JSON.stringify(
    {
      providers: [
        { name: `p${n}`, base_url: 'http://127.0.0.1:9/v1', api_key: `sk-secret-key-number-${n}` },
        { name: 'other', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-other-secret-key-00' },
      ],
      routing: { default_provider: `p${n}`, rules: [{ pattern: 'gpt-*', provider: 'other' }] },
    },
    null,
    2,
  )}\n`;
const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 123);

describe('keepBackup', () => {
  it('keeps the bytes exactly in config-backups/ beside config.json, named by the UTC time and why', async () => {
    const info = await keepBackup(file, configText(1), 'save', T0);
    expect(info.id).toBe('20250102-030405-123-save');
    expect(backupsDir(file)).toBe(path.join(tmp.dir, 'config-backups'));
    expect(await fs.readFile(path.join(tmp.dir, 'config-backups', `${info.id}.json`), 'utf8')).toBe(configText(1));
    expect(info).toEqual({
      id: '20250102-030405-123-save',
      saved_at: '2025-01-02T03:04:05.123Z',
      reason: 'save',
      size: Buffer.byteLength(configText(1)),
      valid: true,
      providers: 2,
      provider_names: ['p1', 'other'],
      rules: 1,
    });
    expect(ConfigBackupInfoSchema.parse(info)).toEqual(info);
  });

  it.skipIf(process.platform === 'win32')(
    'writes each backup 0600 in a 0700 folder, even one made looser',
    async () => {
      await fs.mkdir(backupsDir(file), { mode: 0o755 });
      await fs.chmod(backupsDir(file), 0o755);
      const old = process.umask(0o000);
      try {
        const info = await keepBackup(file, configText(1), 'save', T0);
        expect((await fs.stat(path.join(backupsDir(file), `${info.id}.json`))).mode & 0o777).toBe(0o600);
        expect((await fs.stat(backupsDir(file))).mode & 0o777).toBe(0o700);
      } finally {
        process.umask(old);
      }
    },
  );

  it(`keeps the newest ${BACKUPS_KEPT}: the oldest go, newest first in the list`, async () => {
    const made: string[] = [];
    for (let i = 0; i < BACKUPS_KEPT + 3; i++) made.push((await keepBackup(file, configText(i), 'save', T0 + i)).id);
    const list = await listBackups(file);
    expect(list.map((b) => b.id)).toEqual(made.slice(3).reverse());
    expect(await fs.readdir(backupsDir(file))).toHaveLength(BACKUPS_KEPT);
    expect((await readBackup(file, made[2]!))?.text).toBeUndefined();
    expect((await readBackup(file, made[3]!))?.text).toBe(configText(3));
  });

  it('keeps more than the newest ten by age: one a day for 30 days past the newest 20 (issue 34)', async () => {
    const DAY = 86_400_000;
    // 25 saves today, then one save each of the 40 days before.
    const idAt = (ms: number, reason = 'save') => {
      const d = new Date(ms);
      const p = (n: number, w = 2) => String(n).padStart(w, '0');
      return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}-${p(d.getUTCMilliseconds(), 3)}-${reason}`;
    };
    const now = Date.UTC(2025, 5, 15, 18, 0, 0);
    const today = Array.from({ length: 25 }, (_, i) => idAt(now - i * 60_000));
    const before = Array.from({ length: 40 }, (_, i) => idAt(now - (i + 1) * DAY));
    const kept = keptIds([...today, ...before], now);
    expect(kept.slice(0, BACKUPS_KEPT)).toEqual(today.slice(0, BACKUPS_KEPT));
    // Today's 5 older saves go (today already has one); the days before stay for 30 days.
    expect(kept.slice(BACKUPS_KEPT)).toEqual(before.slice(0, BACKUP_DAYS));
    // Never more than the cap.
    const many = Array.from({ length: 300 }, (_, i) => idAt(now - i * 3 * 3_600_000));
    expect(keptIds(many, now).length).toBeLessThanOrEqual(BACKUPS_MAX);
    // In the files: a save of a month ago is still there after 25 saves today.
    await keepBackup(file, configText(100), 'save', now - 20 * DAY);
    for (let i = 0; i < 25; i++) await keepBackup(file, configText(i), 'save', now + i);
    const list = await listBackups(file);
    expect(list).toHaveLength(BACKUPS_KEPT + 1);
    expect(list.at(-1)!.saved_at).toBe(new Date(now - 20 * DAY).toISOString());
  });

  it('gives backups kept in the same millisecond (or with the clock set back) ids in the order they were kept', async () => {
    const a = await keepBackup(file, configText(1), 'save', T0);
    const [b, c] = await Promise.all([
      keepBackup(file, configText(2), 'edit', T0),
      keepBackup(file, configText(3), 'save', T0 - 60_000),
    ]);
    expect([a.id, b.id, c.id]).toEqual([
      '20250102-030405-123-save',
      '20250102-030405-124-edit',
      '20250102-030405-125-save',
    ]);
    expect((await listBackups(file)).map((x) => x.id)).toEqual([c.id, b.id, a.id]);
  });

  it('does not keep the same bytes twice in a row: it answers the newest backup holding them', async () => {
    const a = await keepBackup(file, configText(1), 'restore', T0);
    const again = await keepBackup(file, configText(1), 'edit', T0 + 5);
    expect(again).toEqual(a);
    await keepBackup(file, configText(2), 'save', T0 + 6);
    expect((await keepBackup(file, configText(1), 'save', T0 + 7)).id).not.toBe(a.id);
    expect(await listBackups(file)).toHaveLength(3);
  });
});

describe('listBackups and readBackup', () => {
  it('never show a key; a file that is not a valid config is listed as not valid', async () => {
    await keepBackup(file, configText(1), 'save', T0);
    await keepBackup(file, '{"providers": [{"name": "x", "api_key": "sk-in-broken-file-123456"}], ', 'edit', T0 + 1);
    const list = await listBackups(file);
    expect(JSON.stringify(list)).not.toMatch(/sk-/);
    expect(list[0]).toMatchObject({ reason: 'edit', valid: false, providers: 0, rules: 0 });
    expect(list[1]).toMatchObject({ reason: 'save', valid: true, providers: 2 });
    // Valid JSON that is not a valid config (an unknown field): counted, but not valid.
    expect(summarize('20250102-030405-123-save', '{"providers": [], "listen_prot": 1}')).toMatchObject({
      valid: false,
      providers: 0,
    });
  });

  it('ignore files of other names; no folder is no backups', async () => {
    expect(await listBackups(file)).toEqual([]);
    expect(await readBackup(file, 'latest')).toBeNull();
    await keepBackup(file, configText(1), 'save', T0);
    await fs.writeFile(path.join(backupsDir(file), 'notes.json'), '{}');
    await fs.writeFile(path.join(backupsDir(file), '20250102-030405-999-other.json'), '{}');
    expect((await listBackups(file)).map((b) => b.id)).toEqual(['20250102-030405-123-save']);
  });

  // Issue 33, item 12: a symlink planted in config-backups/ became config.json on restore; a 58 MB planted backup made
  // the list take 3 s and 850 MB.
  it('a symbolic link planted among the backups is never followed: listed as not read, and cannot be restored', async () => {
    await keepBackup(file, configText(1), 'save', T0);
    const outside = path.join(tmp.dir, 'outside.json');
    await fs.writeFile(outside, configText(9));
    const planted = '20250102-030405-999-save';
    await fs.symlink(outside, path.join(backupsDir(file), `${planted}.json`));
    const list = await listBackups(file);
    expect(list.map((b) => b.id)).toEqual([planted, '20250102-030405-123-save']);
    expect(list[0]).toMatchObject({ valid: false, providers: 0, provider_names: [] });
    expect(list[0]!.problem).toMatch(/symbolic link.*not followed/);
    expect(ConfigBackupInfoSchema.safeParse(list[0]).success).toBe(true);
    const read = await readBackup(file, 'latest');
    expect(read?.text).toBeNull();
    await fs.writeFile(file, configText(1));
    const err = await restoreBackupFile(file, planted).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems[0]!.message).toMatch(/symbolic link/);
    expect(await fs.readFile(file, 'utf8')).toBe(configText(1)); // config.json is not the outside file
  });

  it('a planted backup larger than 4 MB is not read: listed with its size and why; a FIFO does not hang the list', async () => {
    await keepBackup(file, configText(1), 'save', T0);
    const big = '20250102-030405-999-save';
    const huge = `{"providers":[],"padding":"${'x'.repeat(58 * 1024 * 1024)}"}`;
    await fs.writeFile(path.join(backupsDir(file), `${big}.json`), huge);
    const [first] = await listBackups(file);
    expect(first).toMatchObject({ id: big, valid: false, size: Buffer.byteLength(huge) });
    expect(first!.problem).toMatch(/is 58 MB, more than a config backup may be \(4 MB\): not read/);
    await fs.writeFile(file, configText(1));
    await expect(restoreBackupFile(file, big)).rejects.toBeInstanceOf(ConfigError);
    if (process.platform === 'win32') return;
    await fs.rm(path.join(backupsDir(file), `${big}.json`));
    execFileSync('mkfifo', [path.join(backupsDir(file), '20250102-030406-000-save.json')]);
    const [fifo] = await listBackups(file);
    expect(fifo!.problem).toBe('is not a regular file: not read');
  });

  it(`lists the newest ${BACKUPS_MAX} at most (what the ring can keep), however many files are planted`, async () => {
    await keepBackup(file, configText(1), 'save', T0);
    for (let i = 0; i < BACKUPS_MAX + 30; i++)
      await fs.writeFile(
        path.join(backupsDir(file), `20250103-${String(i).padStart(6, '0')}-000-save.json`),
        configText(i),
      );
    expect(await listBackups(file)).toHaveLength(BACKUPS_MAX);
  });

  it('read by id or "latest"; an id of any other shape never names a file', async () => {
    await keepBackup(file, configText(1), 'save', T0);
    await keepBackup(file, configText(2), 'save', T0 + 1);
    expect((await readBackup(file, 'latest'))?.text).toBe(configText(2));
    expect((await readBackup(file, '20250102-030405-123-save'))?.text).toBe(configText(1));
    await fs.writeFile(path.join(tmp.dir, 'secret.json'), '{}');
    for (const id of ['../secret', '../config', '20250102-030405-123-save/../../secret', '', 'LATEST']) {
      expect(await readBackup(file, id)).toBeNull();
    }
    expect(CONFIG_BACKUP_ID_RE.test('20250102-030405-123-upgrade')).toBe(true);
  });

  it('name the folder after a config file of another name, so two configs in one folder keep apart', () => {
    expect(backupsDir('/etc/sb/work.json')).toBe(path.join('/etc/sb', 'work-backups'));
  });
});
