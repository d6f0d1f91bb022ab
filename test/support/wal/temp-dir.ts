// Test helper: a fresh folder under the OS temp folder for every test of a file, removed after the test.
import { afterEach, beforeEach } from 'vitest';
import { makeTempDir, type TempDir } from '../temp.ts';

/**
 * Registers a beforeEach that makes `<tmpdir>/switchboard-wal-<label>-XXXXXX` and an afterEach that removes it
 * with everything in it. Returns the current test's folder through an accessor (call it in a test or a hook).
 */
export function useTempDir(label: string): () => string {
  let current: TempDir | undefined;
  beforeEach(async () => {
    current = await makeTempDir(`switchboard-wal-${label}`);
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('useTempDir: the folder exists only while a test runs');
    return current.dir;
  };
}
