// Throwaway directories under the OS temp folder for tests and benchmarks.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export type TempDir = { dir: string; cleanup(): Promise<void> };

/** Creates `<tmpdir>/<prefix>XXXXXX`; cleanup() removes it and everything in it (safe to call twice). */
export async function makeTempDir(prefix: string): Promise<TempDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix.endsWith('-') ? prefix : `${prefix}-`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
