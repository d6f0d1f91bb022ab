// `switchboard keys create|list|revoke` with store kind "redis" (config.json's `store`, or SWITCHBOARD_REDIS_URL): the
// command also acts on the team's agent keys in Redis, so a key made or revoked here applies on every instance, and
// `list` shows the team's keys. ioredis is loaded only then (a dynamic import).
import fs from 'node:fs/promises';
import { StoreConfigSchema } from '../../shared/config.ts';
import { storeConfigOf } from '../store/index.ts';
import type { SharedAgentKeys } from './keys-shared.ts';

/** The team's agent keys of the config in `configFile` when its store is Redis (up within 2 s), or why not. */
export async function teamKeysOf(configFile: string): Promise<{ team: SharedAgentKeys | null; note: string }> {
  let raw: unknown = { kind: 'embedded' };
  try {
    raw = (JSON.parse(await fs.readFile(configFile, 'utf8')) as { store?: unknown }).store ?? raw;
  } catch {
    // no config yet: embedded
  }
  const parsed = StoreConfigSchema.safeParse(raw);
  const cfg = storeConfigOf(parsed.success ? parsed.data : { kind: 'embedded' });
  if (cfg.kind === 'embedded') return { team: null, note: '' };
  const { openSharedAgentKeys } = await import('./keys-shared.ts');
  const team = openSharedAgentKeys(cfg);
  for (let i = 0; i < 100 && !team.conn.isUp(); i++) await new Promise((r) => setTimeout(r, 20));
  if (team.conn.isUp()) return { team, note: '' };
  await team.close();
  return {
    team: null,
    note: `Redis (${team.conn.safeUrl}) is not reachable: only agent-keys.json was changed; the instance serving this config copies its keys into Redis when it starts\n`,
  };
}
