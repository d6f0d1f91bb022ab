// Test helper: a fresh folder under the OS temp folder, removed by the returned function.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export async function tempDir(label: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `switchboard-wal-${label}-`));
  return { dir, remove: () => fsp.rm(dir, { recursive: true, force: true }) };
}
