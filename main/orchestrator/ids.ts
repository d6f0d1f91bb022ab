// Ids of the agent API: agt_/tsk_/wf_/run_/swm_/stk_/thr_ + 24 hex, key_<12 hex>; random, so they never collide
// across restarts.
import { randomBytes } from 'node:crypto';

export const agentId = (): string => `agt_${randomBytes(12).toString('hex')}`;
export const taskId = (): string => `tsk_${randomBytes(12).toString('hex')}`;
export const keyId = (): string => `key_${randomBytes(6).toString('hex')}`;
export const workflowId = (): string => `wf_${randomBytes(12).toString('hex')}`;
export const runId = (): string => `run_${randomBytes(12).toString('hex')}`;
export const swarmId = (): string => `swm_${randomBytes(12).toString('hex')}`;
export const swarmTaskId = (): string => `stk_${randomBytes(12).toString('hex')}`;
export const threadId = (): string => `thr_${randomBytes(12).toString('hex')}`;
