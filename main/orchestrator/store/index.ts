// Opens the orchestrator's store for a store config: embedded (the WAL; nothing to load), or Redis through a dynamic
// import, so a process whose store is embedded never loads ioredis.
import type { OrchestratorConfig, StoreConfig } from '../../../shared/config.ts';
import type { OrchestratorStore } from './types.ts';

export type * from './types.ts';

/** The Redis store of the team (store.kind "redis"), on a connection of its own. */
export async function openRedisOrchestratorStore(
  store: Extract<StoreConfig, { kind: 'redis' }>,
  config: () => OrchestratorConfig,
): Promise<OrchestratorStore> {
  const { connectRedis } = await import('../../store/redis-connection.ts');
  const { RedisOrchestratorStore } = await import('./redis.ts');
  const conn = connectRedis(
    store,
    {},
    {
      what: 'agent state',
      whileDown: 'the agent API answers 503 store_unavailable until it is back',
    },
  );
  return new RedisOrchestratorStore(conn, { config });
}
