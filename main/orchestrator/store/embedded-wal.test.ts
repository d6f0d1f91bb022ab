import { describe, expect, it } from 'vitest';
import type { Agent, Swarm, SwarmTask, Task, Thread, Workflow, WorkflowRun } from '../../../shared/orchestrator.ts';
import { useTempDir } from '../../../test/support/wal/temp-dir.ts';
import { openWal, type WalLog } from '../../wal/index.ts';
import { EmbeddedStore as OrchestratorStore } from './embedded.ts';

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

  it('keeps threads and their turns, batched events and deletions across a snapshot and the WAL after it', async () => {
    const { wal, store: s1 } = await openStore(100);
    const at = '2026-01-01T00:00:00.000Z';
    const thread: Thread = {
      id: 'thr_1',
      agent_id: 'agt_1',
      tenant: 't',
      messages: [],
      turns: 0,
      last_task_id: null,
      created_at: at,
      updated_at: at,
    };
    const turn = (n: number) => ({
      thread_id: 'thr_1',
      task_id: `tsk_${n}`,
      at: `2026-01-0${n + 1}T00:00:00.000Z`,
      messages: [
        { role: 'user' as const, content: `q${n}`, task_id: `tsk_${n}` },
        { role: 'assistant' as const, content: `a${n}`, task_id: `tsk_${n}` },
      ],
    });
    const delta = (content: string) => ({
      type: 'output' as const,
      task_id: 'tsk_1',
      agent_id: 'agt_1',
      tenant: 't',
      workflow_id: null,
      content,
    });
    await s1.commit(
      { type: 'agent.put', data: agent('agt_1') },
      { type: 'thread.put', data: thread },
      { type: 'thread.put', data: { ...thread, id: 'thr_2' } },
      { type: 'thread.turn', data: turn(1) },
      s1.eventBatch([delta('a'), delta('b'), delta('c')]),
    );
    await wal.compact();
    await s1.commit(
      { type: 'thread.turn', data: turn(2) },
      { type: 'thread.deleted', data: { id: 'thr_2' } },
      s1.eventBatch([delta('d'), delta('e')]),
    );
    await wal.close();

    const { wal: again, store: s2 } = await openStore(100);
    expect([...s2.threads.keys()]).toEqual(['thr_1']);
    expect(s2.threads.get('thr_1')).toMatchObject({ turns: 2, last_task_id: 'tsk_2', updated_at: turn(2).at });
    expect(s2.threads.get('thr_1')?.messages.map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'a2']);
    // Five events in two records, each with its own id and content, in order.
    expect(s2.events.map((e) => [e.id, (e as { content?: string }).content])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
      [5, 'e'],
    ]);
    expect(s2.nextEventId).toBe(6);
    await again.close();
  });

  it('keeps the last `retention` events, in order, through many more events than that, and after a restart', async () => {
    const { wal, store: s1 } = await openStore(7);
    const ev = (i: number) =>
      s1.event({ type: 'output', task_id: 'tsk_1', agent_id: 'a', tenant: 't', workflow_id: null, content: `${i}` });
    for (let i = 0; i < 50; i++) {
      await s1.commit(ev(i), ev(i), ev(i));
      const ids = s1.events.map((e) => e.id);
      expect(ids).toEqual(Array.from({ length: Math.min(7, 3 * (i + 1)) }, (_, k) => 3 * (i + 1) - ids.length + 1 + k));
    }
    await s1.commit(ev(50)); // read nothing since: the history is still cut to 7 when a snapshot takes it
    await wal.compact();
    await s1.commit(ev(51));
    await wal.close();
    const { wal: again, store: s2 } = await openStore(7);
    expect(s2.events.map((e) => e.id)).toEqual([146, 147, 148, 149, 150, 151, 152]);
    await again.close();
  });

  it("knows each agent's and thread's unfinished tasks (queued or running), also after a restart", async () => {
    const { wal, store: s1 } = await openStore(10);
    const task = (id: string, agentId: string, status: Task['status'], thread_id?: string): Task => ({
      task_id: id,
      agent_id: agentId,
      tenant: 't',
      status,
      message: 'm',
      context: {},
      result: null,
      error: null,
      stop_reason: null,
      iterations: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      created_at: '2026-01-01T00:00:00.000Z',
      started_at: null,
      finished_at: null,
      ...(thread_id ? { thread_id } : {}),
    });
    await s1.commit(
      { type: 'task.put', data: task('tsk_1', 'agt_1', 'queued', 'thr_1') },
      { type: 'task.put', data: task('tsk_2', 'agt_1', 'queued') },
      { type: 'task.put', data: task('tsk_3', 'agt_2', 'completed', 'thr_2') },
    );
    expect([...s1.activeOfAgent('agt_1')]).toEqual(['tsk_1', 'tsk_2']);
    expect([...s1.activeOfAgent('agt_2')]).toEqual([]);
    expect([...s1.activeOfThread('thr_1')]).toEqual(['tsk_1']);
    await s1.commit({ type: 'task.put', data: task('tsk_1', 'agt_1', 'running', 'thr_1') });
    await wal.compact();
    await s1.commit(
      { type: 'task.put', data: task('tsk_2', 'agt_1', 'failed') },
      { type: 'task.put', data: task('tsk_4', 'agt_2', 'queued', 'thr_2') },
    );
    expect([...s1.activeOfAgent('agt_1')]).toEqual(['tsk_1']);
    await wal.close();

    const { wal: again, store: s2 } = await openStore(10);
    expect([...s2.activeOfAgent('agt_1')]).toEqual(['tsk_1']);
    expect([...s2.activeOfThread('thr_1')]).toEqual(['tsk_1']);
    expect([...s2.activeOfThread('thr_2')]).toEqual(['tsk_4']);
    await s2.commit({ type: 'task.put', data: task('tsk_1', 'agt_1', 'stopped', 'thr_1') });
    await s2.commit({ type: 'task.deleted', data: { id: 'tsk_4' } });
    expect([...s2.activeOfAgent('agt_1')]).toEqual([]);
    expect([...s2.activeOfAgent('agt_2')]).toEqual([]);
    expect([...s2.activeOfThread('thr_2')]).toEqual([]);
    await again.close();
  });
});
