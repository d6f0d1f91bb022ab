// The CLI loader (dist/main/cli.js): runs cli.cjs through a V8 code cache named after the bundle's size and mtime,
// writes the cache when there is none, and never runs an old cache's code for a rebuilt bundle of the same length
// (V8 checks only the source's length).
import { spawnSync } from 'node:child_process';
import { copyFile, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp.ts';

const LOADER = fileURLToPath(new URL('./cli-loader.mjs', import.meta.url));
// As the build makes it: the CommonJS wrapper function itself (the loader compiles the file as it is).
const bundle = (word: string) =>
  `(function (exports, require, module, __filename, __dirname) {'use strict';process.stdout.write(${JSON.stringify(word)} + ' ' + typeof require + '\\n');\n})`;

function run(dir: string, mode?: string): string {
  const out = spawnSync(process.execPath, [path.join(dir, 'cli.js')], {
    env: { ...process.env, ...(mode ? { SWITCHBOARD_CODE_CACHE: mode } : {}) },
    encoding: 'utf8',
  });
  expect(out.status, out.stderr).toBe(0);
  return out.stdout.trim();
}

describe('CLI loader', () => {
  it('writes a cache named after the bundle, and a rebuilt bundle of the same length runs its own code', async () => {
    const t = await makeTempDir('switchboard-cli-loader');
    try {
      await copyFile(LOADER, path.join(t.dir, 'cli.js'));
      await writeFile(path.join(t.dir, 'package.json'), '{"type":"module"}');
      await writeFile(path.join(t.dir, 'cli.cjs'), bundle('AAAA'));
      expect(run(t.dir, 'warm')).toBe('AAAA function');
      const caches = (await readdir(t.dir)).filter((f) => f.endsWith('.cache'));
      expect(caches).toHaveLength(1);
      expect(run(t.dir)).toBe('AAAA function'); // with the cache

      await writeFile(path.join(t.dir, 'cli.cjs'), bundle('BBBB')); // same length, new code
      const later = new Date(Date.now() + 5_000);
      await utimes(path.join(t.dir, 'cli.cjs'), later, later);
      expect(run(t.dir)).toBe('BBBB function');
      expect(run(t.dir, 'off')).toBe('BBBB function');
    } finally {
      await t.cleanup();
    }
  });
});
