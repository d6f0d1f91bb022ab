// Ids of the agent API: agt_/tsk_/wf_/run_/swm_/stk_/thr_ + 24 hex, key_<12 hex>; random, so they never collide
// across restarts. The random bytes come from a pool filled 4 KiB at a time (one call into the CSPRNG for hundreds
// of ids, rather than one per id: two ids per task run on the agents' hot path).
import { randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

function hex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString('hex', used, used + bytes);
  used += bytes;
  return text;
}

export const agentId = (): string => `agt_${hex(12)}`;
export const taskId = (): string => `tsk_${hex(12)}`;
export const keyId = (): string => `key_${hex(6)}`;
export const workflowId = (): string => `wf_${hex(12)}`;
export const runId = (): string => `run_${hex(12)}`;
export const swarmId = (): string => `swm_${hex(12)}`;
export const swarmTaskId = (): string => `stk_${hex(12)}`;
export const threadId = (): string => `thr_${hex(12)}`;
