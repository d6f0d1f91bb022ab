// What an acknowledged change survives in Redis with the running settings (issue 35: "durable before the 200" holds
// only if Redis persists before it answers). Asked once at start: CONFIG GET appendonly / appendfsync / save and
// INFO replication; said in the log, in GET /api/v1/health (store.durability) and in GET /admin/v1/status.
import type { Redis } from 'ioredis';
import type { OrchestratorStoreStatus } from './types.ts';

export type Durability = OrchestratorStoreStatus['durability'];

/** The statement for a set of settings (pure: the tests and the docs' table use it as it is). */
export function durabilityOf(s: {
  appendonly: string | null;
  appendfsync: string | null;
  save: string | null;
  replicas: number | null;
  waitReplicas: number;
}): Durability {
  if (s.appendonly === null)
    return {
      level: 'unknown',
      text: 'unknown: this Redis does not answer CONFIG GET (a managed Redis?); check that it runs with appendonly yes and appendfsync always',
    };
  const replicated =
    s.waitReplicas > 0
      ? ` Each change also waits for ${s.waitReplicas} replica(s) to have it (WAIT; ${s.replicas ?? 0} connected now), so it survives the loss of the primary if a replica takes over.`
      : '';
  if (
    s.waitReplicas > 0 &&
    (s.replicas ?? 0) >= s.waitReplicas &&
    !(s.appendonly === 'yes' && s.appendfsync === 'always')
  )
    return {
      level: 'replica',
      text: `an acknowledged change is on ${s.waitReplicas} replica(s) before the answer.${replicated}`,
    };
  if (s.appendonly === 'yes' && s.appendfsync === 'always')
    return {
      level: 'fsync',
      text: `an acknowledged change is in Redis's append-only file, fsynced, before the answer (appendonly yes, appendfsync always): it survives a Redis crash and a power loss.${replicated}`,
    };
  if (s.appendonly === 'yes')
    return {
      level: 'os-crash-loses-1s',
      text: `an acknowledged change survives a Redis crash, but a power loss or OS crash may lose the last ${s.appendfsync === 'no' ? '~30 seconds' : 'second'} of acknowledged changes (appendonly yes, appendfsync ${s.appendfsync}).${replicated}`,
    };
  if (s.save && s.save.trim() !== '')
    return {
      level: 'snapshot',
      text: `acknowledged changes are kept only in RDB snapshots (appendonly no, save "${s.save}"): a Redis restart loses the changes since the last snapshot.${replicated}`,
    };
  return {
    level: 'none',
    text: `acknowledged changes live in Redis's memory only (appendonly no, no snapshots): a Redis restart loses them all.${replicated}`,
  };
}

async function configValue(r: Redis, name: string): Promise<string | null> {
  try {
    const v = (await r.config('GET', name)) as string[];
    return v.length >= 2 ? String(v[1]) : null;
  } catch {
    return null; // CONFIG renamed or refused (managed Redis)
  }
}

export async function checkDurability(r: Redis, waitReplicas: number): Promise<Durability> {
  const [appendonly, appendfsync, save] = await Promise.all([
    configValue(r, 'appendonly'),
    configValue(r, 'appendfsync'),
    configValue(r, 'save'),
  ]);
  let replicas: number | null = null;
  try {
    const info = await r.info('replication');
    const m = /connected_slaves:(\d+)/.exec(info);
    replicas = m ? Number(m[1]) : null;
  } catch {
    replicas = null;
  }
  return durabilityOf({ appendonly, appendfsync, save, replicas, waitReplicas });
}
