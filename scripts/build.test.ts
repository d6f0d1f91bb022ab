// The build's staleness check (what `npm run serve` and bin/switchboard.mjs rely on to never run old code): a part is
// stale without its stamp or when one of its sources is newer than the stamp; test files do not count.
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module script without types
import { isStaleIn } from './build.mjs';
import { makeTempDir } from '../test/support/temp.ts';

const stale = isStaleIn as (root: string, part: 'runtime' | 'ui' | 'preload') => boolean;

describe('build staleness', () => {
  it('is stale without a stamp, fresh after it, stale again when a source changes, not for a test file', async () => {
    const t = await makeTempDir('switchboard-build-stale');
    try {
      const src = path.join(t.dir, 'main', 'proxy');
      await mkdir(src, { recursive: true });
      await writeFile(path.join(src, 'engine.ts'), 'export {};\n');
      expect(stale(t.dir, 'runtime')).toBe(true);

      const stamp = path.join(t.dir, 'dist', '.runtime-stamp');
      await mkdir(path.dirname(stamp), { recursive: true });
      await writeFile(stamp, 'built\n');
      const now = Date.now() / 1000;
      await utimes(path.join(src, 'engine.ts'), now - 60, now - 60);
      await utimes(src, now - 60, now - 60);
      await utimes(path.join(t.dir, 'main'), now - 60, now - 60);
      expect(stale(t.dir, 'runtime')).toBe(false);

      await writeFile(path.join(src, 'engine.test.ts'), 'test\n');
      await utimes(path.join(src, 'engine.test.ts'), now + 60, now + 60);
      await utimes(src, now - 60, now - 60); // the folder's own mtime moved with the new file: put it back
      expect(stale(t.dir, 'runtime')).toBe(false);

      await utimes(path.join(src, 'engine.ts'), now + 60, now + 60);
      expect(stale(t.dir, 'runtime')).toBe(true);
      expect(stale(t.dir, 'ui')).toBe(true); // never built
    } finally {
      await t.cleanup();
    }
  });
});
