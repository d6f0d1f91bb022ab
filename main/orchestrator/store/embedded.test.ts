// The orchestrator store's contract against the embedded store: the views of one process over its WAL (one process
// holds a data folder), and the next start over the same folder as the instance that takes over after a crash.
import { afterAll } from 'vitest';
import { useTempDir } from '../../../test/support/wal/temp-dir.ts';
import { openWal, type WalLog } from '../../wal/index.ts';
import { orchestratorStoreContract } from './contract.case.ts';
import { EmbeddedStore } from './embedded.ts';
import type { OrchestratorStore } from './types.ts';

const dir = useTempDir('orch-store');
const wals = new Map<OrchestratorStore, { wal: WalLog; dir: string; opts: Rule }>();
type Rule = { maxFinishedTasks?: number; finishedDays?: number };
let n = 0;

async function open(folder: string, opts: Rule): Promise<EmbeddedStore> {
  const wal = await openWal({ dir: folder });
  const rule = { finishedDays: opts.finishedDays ?? 0, maxFinishedTasks: opts.maxFinishedTasks ?? 0 };
  const store = new EmbeddedStore(
    wal,
    () => 10_000,
    () => rule,
  );
  await store.load();
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await wal.close().catch(() => undefined);
  };
  wals.set(store, { wal, dir: folder, opts });
  return store;
}

orchestratorStoreContract('embedded', {
  async make(k, opts = {}) {
    const store = await open(`${dir()}/s${++n}`, opts);
    return Array.from({ length: k }, () => store);
  },
  async crash(s) {
    // kill -9: nothing more is written; the WAL holds what was acknowledged.
    await wals.get(s)?.wal.close();
  },
  async takeover(dead) {
    const was = wals.get(dead)!;
    return open(was.dir, was.opts);
  },
  takeoverMs: 2000,
});

afterAll(() => wals.clear());
