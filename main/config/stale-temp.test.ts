// Temp files of saves killed half-way: one name for the writer and the cleaner, and which ones are removed at start.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { parseTempName, processAlive, removeStaleTemps, STALE_TEMP_MS, tempPathFor } from './stale-temp.ts';
import { ConfigStore } from './store.ts';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('sb-stale');
});
afterEach(() => tmp.cleanup());

const NOW = Date.now();
const plant = async (name: string, ageMs = 0) => {
  const p = path.join(tmp.dir, name);
  await fs.writeFile(p, '{"api_key": "sk-half-written"}');
  const t = new Date(NOW - ageMs);
  await fs.utimes(p, t, t);
  return p;
};
const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );

describe('the temp name', () => {
  it('the writer’s temp names are the ones the cleaner knows', async () => {
    const t = tempPathFor(path.join(tmp.dir, 'config.json'));
    expect(path.dirname(t)).toBe(tmp.dir);
    expect(parseTempName(path.basename(t))).toEqual({ target: 'config.json', pid: process.pid });
    // A save that dies between writing the temp file and renaming it leaves exactly such a name.
    const rename = vi.spyOn(fs, 'rename').mockRejectedValueOnce(Object.assign(new Error('killed'), { code: 'EIO' }));
    const rm = vi.spyOn(fs, 'rm').mockResolvedValue(undefined);
    try {
      await expect(writeFileAtomic(path.join(tmp.dir, 'agent-keys.json'), '{}')).rejects.toThrow('killed');
    } finally {
      rename.mockRestore();
      rm.mockRestore();
    }
    const left = await fs.readdir(tmp.dir);
    expect(left).toHaveLength(1);
    expect(parseTempName(left[0]!)).toEqual({ target: 'agent-keys.json', pid: process.pid });
  });

  it('other names are not temp files', () => {
    for (const n of [
      'config.json',
      '.config.json.swp',
      '.config.json.12.abcdefgh.tmp',
      'x.12.0a1b2c3d.tmp',
      '.a.b.tmp',
    ])
      expect(parseTempName(n)).toBeNull();
  });

  it('processAlive: this process is, a pid that cannot exist is not', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(0)).toBe(false);
    expect(processAlive(2 ** 31 - 1)).toBe(false);
  });
});

describe('removeStaleTemps', () => {
  it('removes those of a process that is gone and those older than a minute; keeps a live save in progress', async () => {
    const alive = (pid: number) => pid === 111;
    const dead = await plant('.config.json.222.0a1b2c3d.tmp');
    const old = await plant('.agent-keys.json.111.0a1b2c3d.tmp', STALE_TEMP_MS + 1000);
    const young = await plant('.gateway-keys.json.111.99887766.tmp', 1000);
    const other = await plant('.config.json.swp', STALE_TEMP_MS * 10);
    await fs.mkdir(path.join(tmp.dir, '.config.json.222.ffffffff.tmp')); // a folder of that name: not ours
    const removed = await removeStaleTemps(tmp.dir, { now: NOW, alive });
    expect(removed.sort()).toEqual([old, dead].sort());
    expect(await exists(dead)).toBe(false);
    expect(await exists(old)).toBe(false);
    expect(await exists(young)).toBe(true);
    expect(await exists(other)).toBe(true);
  });

  it('a folder that does not exist has none', async () => {
    expect(await removeStaleTemps(path.join(tmp.dir, 'nope'))).toEqual([]);
  });
});

describe('ConfigStore.open', () => {
  it('cleans beside config.json and in config-backups/, and says what it removed (never what they hold)', async () => {
    const file = path.join(tmp.dir, 'config.json');
    await fs.writeFile(file, '{}');
    await fs.mkdir(path.join(tmp.dir, 'config-backups'));
    const a = await plant('.config.json.1.0a1b2c3d.tmp', STALE_TEMP_MS * 2);
    const b = await plant('config-backups/.20250102-030405-123-save.json.1.0a1b2c3d.tmp', STALE_TEMP_MS * 2);
    const store = await ConfigStore.open(file);
    expect(await exists(a)).toBe(false);
    expect(await exists(b)).toBe(false);
    expect(store.notices).toHaveLength(1);
    expect(store.notices[0]).toMatch(/^removed 2 temp files left by an interrupted save \(they may hold keys\): /);
    expect(store.notices[0]).toContain(a);
    expect(store.notices[0]).not.toContain('sk-half-written');
    // Nothing left: nothing said.
    expect((await ConfigStore.open(file)).notices).toEqual([]);
  });

  it('cleans even when config.json is invalid and the store refuses to open', async () => {
    const file = path.join(tmp.dir, 'config.json');
    await fs.writeFile(file, '{ broken');
    const a = await plant('.config.json.1.0a1b2c3d.tmp', STALE_TEMP_MS * 2);
    await expect(ConfigStore.open(file)).rejects.toThrow('not valid JSON');
    expect(await exists(a)).toBe(false);
  });
});
