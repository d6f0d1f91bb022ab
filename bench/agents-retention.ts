// Part (5) of the agents bench (issue 35): what orchestrator.retention saves. A WAL holding 30,000 finished tasks,
// each written as the executor writes one (a new thread, the task queued then running, its output deltas, its end and
// completed event, the thread's turn), is loaded by the embedded store with retention off and with its default
// (10,000 finished tasks kept), in this process; each way it is compacted once (as a running Switchboard's WAL is in
// steady state) and loaded again from that snapshot: the heap the loaded state holds (after a full GC), per 10,000
// finished tasks run, and the time of that load (what a start costs).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Agent, Task, Thread } from '../shared/orchestrator.ts';
import { EmbeddedStore } from '../main/orchestrator/store/embedded.ts';
import type { OrchestratorRecord } from '../main/orchestrator/store/records.ts';
import type { RetentionRule } from '../main/orchestrator/store/types.ts';
import { openWal } from '../main/wal/index.ts';

export type RetentionSide = { mibPer10k: number; kept: number; loadMs: number };
export type RetentionMemory = { tasks: number; off: RetentionSide; on: RetentionSide };

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const id = (prefix: string, n: number) => `${prefix}_${n.toString(16).padStart(24, '0')}`;

/** The records of one task run as the executor writes them (ids and times as a real run has them). */
function taskRecords(store: EmbeddedStore, agent: Agent, n: number): OrchestratorRecord[] {
  const at = new Date(Date.now() - (30_000 - n) * 10).toISOString();
  const thread: Thread = {
    id: id('thr', n),
    agent_id: agent.id,
    tenant: agent.tenant,
    messages: [],
    turns: 0,
    last_task_id: null,
    created_at: at,
    updated_at: at,
  };
  const queued: Task = {
    task_id: id('tsk', n),
    agent_id: agent.id,
    tenant: agent.tenant,
    status: 'queued',
    message: `Summarise ticket #${n} in one line.`,
    context: {},
    result: null,
    error: null,
    stop_reason: null,
    iterations: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    created_at: at,
    started_at: null,
    finished_at: null,
    thread_id: thread.id,
  };
  const where = { task_id: queued.task_id, agent_id: agent.id, tenant: agent.tenant, workflow_id: null };
  const answer = ['Hello', ' from', ' mock'];
  const done: Task = {
    ...queued,
    status: 'completed',
    result: answer.join(''),
    stop_reason: 'final_answer',
    iterations: 1,
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    started_at: at,
    finished_at: at,
  };
  return [
    { type: 'thread.put', data: thread },
    { type: 'task.put', data: queued },
    { type: 'agent.patch', data: { id: agent.id, fields: { last_run_at: at } } },
    { type: 'task.put', data: { ...queued, status: 'running', started_at: at } },
    store.eventBatch(answer.map((content) => ({ ...where, type: 'output', content, time: at }))),
    { type: 'task.put', data: done },
    store.event({ ...where, type: 'completed', time: at }),
    {
      type: 'thread.turn',
      data: {
        thread_id: thread.id,
        task_id: queued.task_id,
        messages: [
          { role: 'user', content: queued.message, task_id: queued.task_id },
          { role: 'assistant', content: done.result, task_id: queued.task_id },
        ],
        at,
      },
    },
  ];
}

async function open(dir: string, rule: RetentionRule): Promise<{ store: EmbeddedStore; close: () => Promise<void> }> {
  const wal = await openWal({ dir });
  const store = new EmbeddedStore(
    wal,
    () => 10_000,
    () => rule,
  );
  return {
    store,
    close: async () => {
      await store.close();
      await wal.close();
    },
  };
}

async function side(source: string, rule: RetentionRule, tasks: number): Promise<RetentionSide> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'switchboard-retention-bench-'));
  try {
    await fs.cp(source, dir, { recursive: true });
    await fs.rm(path.join(dir, 'wal.lock'), { force: true });
    // Steady state: the WAL compacted once with this rule (what a running Switchboard's holds).
    const first = await open(dir, rule);
    await first.store.load();
    await first.store.wal.compact();
    await first.close();
    const base = heap();
    const t0 = performance.now();
    const again = await open(dir, rule);
    await again.store.load();
    const loadMs = performance.now() - t0;
    const held = heap() - base;
    const kept = again.store.tasks.size;
    await again.close();
    return { mibPer10k: held / 2 ** 20 / (tasks / 10_000), kept, loadMs };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export async function retentionMemory(tasks = Number(process.env.AGENTS_BENCH_RETENTION_TASKS ?? 30_000)) {
  const source = await fs.mkdtemp(path.join(os.tmpdir(), 'switchboard-retention-wal-'));
  try {
    const { store, close } = await open(source, { finishedDays: 0, maxFinishedTasks: 0 });
    await store.load();
    const at = new Date().toISOString();
    const agent: Agent = {
      id: id('agt', 1),
      name: 'bench',
      system_prompt: 'You are terse.',
      model: 'mock-model',
      tools: [],
      config: { max_tokens: 1024, temperature: 0.7, max_iterations: 10 },
      status: 'idle',
      tenant: 'bench',
      created_at: at,
      updated_at: at,
      last_run_at: null,
    };
    await store.commit({ type: 'agent.put', data: agent });
    for (let n = 0; n < tasks; n += 100) {
      const batch: OrchestratorRecord[] = [];
      for (let k = n; k < Math.min(tasks, n + 100); k++) batch.push(...taskRecords(store, agent, k));
      await store.commit(...batch);
    }
    await close();
    const off = await side(source, { finishedDays: 0, maxFinishedTasks: 0 }, tasks);
    const on = await side(source, { finishedDays: 30, maxFinishedTasks: 10_000 }, tasks);
    return { tasks, off, on } satisfies RetentionMemory;
  } finally {
    await fs.rm(source, { recursive: true, force: true });
  }
}
