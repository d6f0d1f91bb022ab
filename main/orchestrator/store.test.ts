import { describe, expect, it } from 'vitest';
import type { Agent, Swarm, SwarmTask, Workflow, WorkflowRun } from '../../shared/orchestrator.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { openWal, type WalLog } from '../wal/index.ts';
import { OrchestratorStore } from './store.ts';

const dir = useTempDir('store');

/** Opens the test's log and a store on it keeping the last `retention` events, loaded from what the log holds. */
async function openStore(retention: number): Promise<{ wal: WalLog; store: OrchestratorStore }> {
  const wal = await openWal({ dir: dir() });
  const store = new OrchestratorStore(wal, () => retention);
  await store.load();
  return { wal, store };
}

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
    const { wal, store: s1 } = await openStore(3);
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

    const { wal: again, store: s2 } = await openStore(3);
    expect([...s2.agents.keys()]).toEqual(['agt_1']);
    expect(s2.events).toEqual(s1.events);
    expect(s2.nextEventId).toBe(5);
    await again.close();
  });

  it('keeps workflows, runs, swarms and swarm tasks across a snapshot and the WAL after it', async () => {
    const { wal, store: s1 } = await openStore(10);
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

    const { wal: again, store: s2 } = await openStore(10);
    expect(s2.workflows.get('wf_1')).toEqual(wf);
    expect(s2.runs.get('run_1')?.status).toBe('completed');
    expect(s2.swarms.get('swm_1')).toEqual(swarm);
    expect(s2.swarmTasks.get('stk_1')).toEqual(st);
    await again.close();
  });
});
