// Test support: an orchestrator in the test's process, on a WAL in a folder of the test's (its file system given, e.g.
// GatedFs), its model calls going to a mock provider, with one agent "a" of tenant "acme".
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ORCHESTRATOR_DEFAULTS, type OrchestratorConfig } from '../../shared/config.ts';
import { CreateAgentSchema } from '../../shared/orchestrator.ts';
import { ConfigStore } from '../../main/config/store.ts';
import { RequestLog } from '../../main/observability/request-log.ts';
import { Orchestrator } from '../../main/orchestrator/orchestrator.ts';
import { Engine } from '../../main/proxy/engine.ts';
import { nodeFs, openWal, type WalFs } from '../../main/wal/index.ts';
import { configFor } from './serve-process.ts';

export async function startOrchestrator(
  dir: string,
  mockUrl: string,
  orchestrator: Record<string, unknown>,
  fs: WalFs = nodeFs,
) {
  const file = path.join(dir, 'config.json');
  await writeFile(file, JSON.stringify(configFor({ mock: mockUrl }, { orchestrator })));
  const store = await ConfigStore.open(file);
  const engine = new Engine(store.config, file, new RequestLog(10));
  const wal = await openWal({ dir: path.join(dir, 'data'), fs });
  const o = new Orchestrator({
    wal,
    engine: () => engine,
    config: () => store.config.orchestrator,
    dataDir: path.join(dir, 'data'),
  });
  await o.start();
  const agent = await o.agents.create(CreateAgentSchema.parse({ name: 'a', model: 'mock-model' }), 'acme');
  const close = async () => {
    await o.close();
    await wal.close();
    store.close();
  };
  return { o, wal, agent, close };
}

/** orchestrator's settings at their defaults, with a short lease (tests of the Redis store) and what `extra` says. */
export function orchestratorConfig(extra: Partial<OrchestratorConfig> = {}): OrchestratorConfig {
  return { ...(ORCHESTRATOR_DEFAULTS as OrchestratorConfig), lease_ms: 600, ...extra };
}
