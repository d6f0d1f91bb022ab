import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent, Swarm, SwarmTask, Workflow, WorkflowRun } from '../../shared/orchestrator.ts';
import { openWal } from '../wal/index.ts';
import { OrchestratorStore } from './store.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const agent = (id: string): Agent => ({
  id,
  name: id,
  system_prompt: '',
  model: 'm',
  tools: [],
  config: { max_tokens: 1, temperature: 0, max_iterations: 1 },
  status: 'idle',
  tenant: 't',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  last_run_at: null,
});

describe('OrchestratorStore', () => {
  it('rebuilds the same state from snapshot + WAL, keeps only the retention window of events, publishes after durable', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-store-'));
    dirs.push(dir);
    let wal = await openWal({ dir });
    const s1 = new OrchestratorStore(wal, () => 3);
    await s1.load();
    const seen: number[] = [];
    s1.subscribe((e) => seen.push(e.id));
    await s1.commit({ type: 'agent.put', data: agent('agt_1') }, { type: 'agent.put', data: agent('agt_2') });
    const ev = () =>
      s1.event({ type: 'output', task_id: 'tsk_1', agent_id: 'agt_1', tenant: 't', workflow_id: null, content: 'x' });
    await s1.commit(ev(), ev());
    await wal.compact();
    await s1.commit({ type: 'agent.deleted', data: { id: 'agt_2' } }, ev(), ev());
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(s1.events.map((e) => e.id)).toEqual([2, 3, 4]);
    await wal.close();

    wal = await openWal({ dir });
    const s2 = new OrchestratorStore(wal, () => 3);
    await s2.load();
    expect([...s2.agents.keys()]).toEqual(['agt_1']);
    expect(s2.events).toEqual(s1.events);
    expect(s2.nextEventId).toBe(5);
    await wal.close();
  });

  it('keeps workflows, runs, swarms and swarm tasks across a snapshot and the WAL after it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-store-'));
    dirs.push(dir);
    let wal = await openWal({ dir });
    const s1 = new OrchestratorStore(wal, () => 10);
    await s1.load();
    const at = '2026-01-01T00:00:00.000Z';
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const wf: Workflow = {
      id: 'wf_1',
      name: 'w',
      description: '',
      steps: [{ name: 's', agent: 'a', prompt: 'p', error_policy: 'fail', max_retries: 2 }],
      tenant: 't',
      created_at: at,
    };
    const run: WorkflowRun = {
      run_id: 'run_1',
      workflow_id: 'wf_1',
      workflow: 'w',
      tenant: 't',
      status: 'running',
      input: {},
      definition: wf.steps,
      steps: [],
      output: null,
      error: null,
      usage,
      created_at: at,
      started_at: at,
      finished_at: null,
    };
    const swarm: Swarm = {
      id: 'swm_1',
      name: 'sw',
      coordinator: 'c',
      agents: ['m'],
      config: { max_rounds: 1, consensus_required: false },
      coordinator_id: 'agt_c',
      agent_ids: ['agt_m'],
      tenant: 't',
      created_at: at,
    };
    const st: SwarmTask = {
      id: 'stk_1',
      swarm_id: 'swm_1',
      swarm: 'sw',
      tenant: 't',
      status: 'running',
      message: 'm',
      context: {},
      rounds: [],
      final_answer: null,
      consensus: null,
      error: null,
      usage,
      created_at: at,
      started_at: at,
      finished_at: null,
    };
    await s1.commit(
      { type: 'workflow.put', data: wf },
      { type: 'run.put', data: run },
      { type: 'swarm.put', data: swarm },
    );
    await wal.compact();
    await s1.commit({ type: 'swarm_task.put', data: st }, { type: 'run.put', data: { ...run, status: 'completed' } });
    await wal.close();

    wal = await openWal({ dir });
    const s2 = new OrchestratorStore(wal, () => 10);
    await s2.load();
    expect(s2.workflows.get('wf_1')).toEqual(wf);
    expect(s2.runs.get('run_1')?.status).toBe('completed');
    expect(s2.swarms.get('swm_1')).toEqual(swarm);
    expect(s2.swarmTasks.get('stk_1')).toEqual(st);
    await wal.close();
  });
});
