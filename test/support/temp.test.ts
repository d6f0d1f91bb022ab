import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { makeTempDir } from './temp.ts';

it('makes a fresh folder under the OS temp dir and removes it with its content', async () => {
  const a = await makeTempDir('sb-test');
  const b = await makeTempDir('sb-test');
  expect(a.dir).not.toBe(b.dir);
  expect(path.dirname(a.dir)).toBe(os.tmpdir());
  expect(path.basename(a.dir)).toMatch(/^sb-test-/);
  await writeFile(path.join(a.dir, 'x.json'), '{}');
  await a.cleanup();
  await a.cleanup();
  await b.cleanup();
  expect(existsSync(a.dir)).toBe(false);
  expect(existsSync(b.dir)).toBe(false);
});
