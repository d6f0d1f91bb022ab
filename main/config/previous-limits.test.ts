// A config.json the previous version saved may hold its limit defaults written out (its desktop app's electron-store
// filled in every schema default on save): such a file is read as "no limits set", and the values are removed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ConfigSchema } from '../../shared/config.ts';
import previousVersion from '../../test/fixtures/config/previous-version-config.json' with { type: 'json' };
import { defaultConfig } from './defaults.ts';
import { dropPreviousLimitDefaults, indentOf } from './previous-limits.ts';
import { ConfigStore } from './store.ts';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-prev-limits-'));
  file = path.join(dir, 'config.json');
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const withLimits = (limits: unknown): string => {
  const raw = JSON.parse(previousVersion.text) as Record<string, unknown>;
  return `${JSON.stringify({ ...raw, limits }, null, '\t')}\n`;
};

describe('the previous version’s config.json (written by its desktop app)', () => {
  it('the fixture holds the old defaults written out, as the previous desktop app left it', () => {
    expect(JSON.parse(previousVersion.text).limits).toEqual({
      enabled: true,
      rpm: 60,
      tpm: 100000,
      concurrency: 10,
      window_ms: 60000,
      per_app: {},
      per_key: {},
    });
    expect(previousVersion.text.startsWith('{\n\t"listen_port"')).toBe(true);
  });

  it('opens with no limits set; the file loses rpm, tpm and concurrency, keeps the rest and its tabs', async () => {
    await fs.writeFile(file, previousVersion.text);
    const store = await ConfigStore.open(file);
    expect(store.config.limits).toEqual({ enabled: true, window_ms: 60000, per_app: {}, per_key: {} });
    const after = await fs.readFile(file, 'utf8');
    expect(JSON.parse(after).limits).toEqual({ enabled: true, window_ms: 60000, per_app: {}, per_key: {} });
    // Only the three lines went: every other line is as it was.
    const gone = previousVersion.text.split('\n').filter((l) => !after.split('\n').includes(l));
    expect(gone).toEqual(['\t\t"rpm": 60,', '\t\t"tpm": 100000,', '\t\t"concurrency": 10,']);
    expect(store.notices).toHaveLength(1);
    expect(store.notices[0]).toContain(
      `${file}: limits.rpm 60, limits.tpm 100000, limits.concurrency 10 are the previous version's defaults`,
    );
    expect(store.notices[0]).toContain('removed from the file');
    // Read again (a restart): nothing more to do, no notice.
    const again = await ConfigStore.open(file);
    expect(again.notices).toEqual([]);
    expect(await fs.readFile(file, 'utf8')).toBe(after);
  });

  it('a value the user changed stays; the values still at the old default go', async () => {
    await fs.writeFile(
      file,
      withLimits({ enabled: true, rpm: 60, tpm: 250000, concurrency: 10, window_ms: 60000, per_app: {}, per_key: {} }),
    );
    const store = await ConfigStore.open(file);
    expect(store.config.limits).toMatchObject({ tpm: 250000 });
    expect(store.config.limits.rpm).toBeUndefined();
    expect(store.config.limits.concurrency).toBeUndefined();
    expect(store.notices[0]).toContain('limits.rpm 60, limits.concurrency 10 are');
  });

  it('a limits block without every field the previous app wrote is the user’s own: never touched', async () => {
    const text = withLimits({ rpm: 60, tpm: 100000, concurrency: 10 }); // no enabled / window_ms
    await fs.writeFile(file, text);
    const store = await ConfigStore.open(file);
    expect(store.config.limits).toMatchObject({ rpm: 60, tpm: 100000, concurrency: 10 });
    expect(store.notices).toEqual([]);
    expect(await fs.readFile(file, 'utf8')).toBe(text);
  });

  it('a file that cannot be rewritten (read-only disk) is still read as not set, and the notice says so', async () => {
    await fs.writeFile(file, previousVersion.text);
    vi.resetModules();
    vi.doMock('./atomic-write.ts', () => ({
      writeFileAtomic: () => Promise.reject(Object.assign(new Error('read-only file system'), { code: 'EROFS' })),
    }));
    try {
      const { ConfigStore: Store } = await import('./store.ts');
      const store = await Store.open(file);
      expect(store.config.limits.rpm).toBeUndefined();
      expect(store.notices[0]).toContain('read as not set (the file could not be rewritten)');
      expect(await fs.readFile(file, 'utf8')).toBe(previousVersion.text);
    } finally {
      vi.doUnmock('./atomic-write.ts');
      vi.resetModules();
    }
  });
});

describe('nothing writes limit values the user did not choose', () => {
  it('the first-run config.json has no limits block, and reads as no limits set', async () => {
    const store = await ConfigStore.open(file);
    expect(store.firstRun).toBe(true);
    expect(JSON.parse(await fs.readFile(file, 'utf8')).limits).toBeUndefined();
    expect(store.config.limits).toEqual({ enabled: true, window_ms: 60000, per_app: {}, per_key: {} });
  });

  it('a save writes the config as given: defaults are never filled into the file', async () => {
    const store = await ConfigStore.open(file);
    await store.save({ ...defaultConfig(), limits: { per_app: { cursor: { rpm: 5 } } } });
    expect(JSON.parse(await fs.readFile(file, 'utf8')).limits).toEqual({ per_app: { cursor: { rpm: 5 } } });
    expect(store.config.limits).toEqual({
      enabled: true,
      window_ms: 60000,
      per_app: { cursor: { rpm: 5 } },
      per_key: {},
    });
  });

  it('the JSON schema the desktop app’s electron-store fills defaults from has no rpm, tpm or concurrency default', () => {
    const props = z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }).properties as Record<
      string,
      { default?: unknown; properties?: Record<string, { default?: unknown }> }
    >;
    expect(props.limits!.default).toEqual({ enabled: true, window_ms: 60000, per_app: {}, per_key: {} });
    for (const k of ['rpm', 'tpm', 'concurrency']) expect(props.limits!.properties![k]!.default).toBeUndefined();
  });
});

describe('helpers', () => {
  it('dropPreviousLimitDefaults leaves other shapes alone', () => {
    expect(dropPreviousLimitDefaults(null)).toBeNull();
    expect(dropPreviousLimitDefaults({})).toBeNull();
    expect(dropPreviousLimitDefaults({ limits: [] })).toBeNull();
    const mine = { enabled: true, rpm: 5, tpm: 6, concurrency: 7, window_ms: 60000 };
    expect(dropPreviousLimitDefaults({ limits: mine })).toBeNull();
  });

  it('indentOf keeps a file’s indentation', () => {
    expect(indentOf('{\n\t"a": 1\n}')).toBe('\t');
    expect(indentOf('{\n    "a": 1\n}')).toBe(4);
    expect(indentOf('{"a":1}')).toBe(2);
  });
});
