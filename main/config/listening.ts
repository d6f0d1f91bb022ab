// listening.json beside config.json: where the `serve` (or desktop app) using this config listens now, written when
// it binds (again after a port move) and removed when it stops. `switchboard mcp list` reads it to find the running
// Switchboard even when `serve --port N` overrode listen_port. Whose it is: the owner's identity (pid, start time,
// boot: ../wal/owner.ts), so a file left by a process killed with -9 is recognised as stale.
import fs from 'node:fs/promises';
import path from 'node:path';
import { identityText, isOwnerAlive, parseIdentity, selfIdentity } from '../wal/owner.ts';
import { writeFileAtomic } from './atomic-write.ts';

export type Listening = { url: string; port: number; host: string; owner: string; since: string };

export const listeningFile = (configDir: string): string => path.join(configDir, 'listening.json');

export async function writeListening(
  configDir: string,
  at: { url: string; port: number; host: string },
): Promise<void> {
  const body: Listening = { ...at, owner: identityText(selfIdentity()).trim(), since: new Date().toISOString() };
  await writeFileAtomic(listeningFile(configDir), `${JSON.stringify(body, null, 2)}\n`, 0o600);
}

/** Removes the file if this process wrote it (another process may have taken the config over since). */
export async function clearListening(configDir: string): Promise<void> {
  const now = await readRaw(configDir);
  if (now && parseIdentity(now.owner)?.pid === process.pid) await fs.rm(listeningFile(configDir), { force: true });
}

/** Where a live Switchboard of this config listens, or null (no file, or its writer is gone). */
export async function readListening(configDir: string): Promise<Listening | null> {
  const now = await readRaw(configDir);
  const owner = now ? parseIdentity(now.owner) : null;
  return now && owner && isOwnerAlive(owner) ? now : null;
}

async function readRaw(configDir: string): Promise<Listening | null> {
  try {
    const v = JSON.parse(await fs.readFile(listeningFile(configDir), 'utf8')) as Partial<Listening>;
    if (typeof v.port !== 'number' || typeof v.owner !== 'string' || typeof v.url !== 'string') return null;
    return v as Listening;
  } catch {
    return null;
  }
}
