// Opens the shared state for a store config: embedded (nothing to load), or Redis through a dynamic import, so a
// process whose store is embedded never loads ioredis.
import { effectiveStore, redactRedisUrl, type StoreConfig, StoreConfigSchema } from '../../shared/config.ts';
import { EmbeddedState } from './embedded.ts';
import type { SharedState } from './types.ts';

export type * from './types.ts';

/** The store this process uses: config.json's `store`, with SWITCHBOARD_REDIS_URL winning (see effectiveStore). */
export function storeConfigOf(cfg: StoreConfig, env: NodeJS.ProcessEnv = process.env): StoreConfig {
  const out = effectiveStore(cfg, env.SWITCHBOARD_REDIS_URL);
  if (out === cfg) return cfg;
  const checked = StoreConfigSchema.safeParse(out);
  if (!checked.success)
    throw new Error(
      `SWITCHBOARD_REDIS_URL (${redactRedisUrl(env.SWITCHBOARD_REDIS_URL ?? '')}) ${checked.error.issues[0]?.message ?? 'is not valid'}`,
    );
  return checked.data;
}

export async function openSharedState(cfg: StoreConfig): Promise<SharedState> {
  if (cfg.kind === 'embedded') return new EmbeddedState();
  const { openRedisState } = await import('./fail-open.ts');
  return openRedisState(cfg);
}
