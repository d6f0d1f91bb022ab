// The per-install admin token: random, kept beside config.json with owner-only permissions.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.ts';

export async function loadAdminToken(configDir: string): Promise<string> {
  const file = path.join(configDir, 'admin-token');
  try {
    const token = (await fs.readFile(file, 'utf8')).trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(token)) return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(24).toString('base64url');
  await writeFileAtomic(file, `${token}\n`, 0o600);
  return token;
}
