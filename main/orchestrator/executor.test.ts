// The records a task writes (in-process: the WAL's batches are counted): a task whose first answer is final writes its
// progress (iterations, usage) with its end rather than in a batch of its own, and its last output deltas go first in
// the end's batch, before its completed event.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunTaskSchema, type StreamEvent, type Task } from '../../shared/orchestrator.ts';
import { startOrchestrator } from '../../test/support/orchestrator.ts';
import { startMockProvider, type MockProvider } from '../../test/support/mock-provider.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';
import { GatedFs } from '../../test/support/wal/gated-fs.ts';
import type { WalFs } from '../wal/index.ts';
import type { EmbeddedStore } from './store/embedded.ts';

const dir = useTempDir('executor');
let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ name: 'mock', record: false });
});
afterAll(() => mock.close());

/** An orchestrator on a WAL in the test's folder, its model calls going to the mock. */
const start = (orchestrator: Record<string, unknown>, fs?: WalFs) =>
  startOrchestrator(dir(), mock.baseUrl, orchestrator, fs);

async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not in ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

it('a task whose first answer is final: queued, running and its end (with its output and progress) are its only task records', async () => {
  const { o, wal, agent, close } = await start({ run_window_ms: 0 });
  try {
    const seen: StreamEvent[] = [];
    o.store.subscribe((e) => seen.push(e));
    const seq0 = wal.info().lastSeq;
    const batches0 = wal.info().durableBatches;
    const { task: queued } = await o.tasks.run(agent.id, RunTaskSchema.parse({ message: 'hi' }), 'acme');
    const done = (await o.tasks.waitForTask(queued.task_id)) as Task;

    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: 'completed', result: 'Hello from mock', iterations: 1 });
    expect(done.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
    const puts: string[] = [];
    for await (const r of wal.replay({ afterSeq: seq0 })) if (r.type === 'task.put') puts.push((r.data as Task).status);
    expect(puts).toEqual(['queued', 'running', 'completed']); // no record of its own for the progress
    // run, running, end; a 4th only when the output was flushed on its own before the answer ended.
    expect(wal.info().durableBatches - batches0).toBeLessThanOrEqual(4);
    const types = seen.filter((e) => e.task_id === queued.task_id).map((e) => e.type);
    expect(types.at(-1)).toBe('completed');
    expect(types.filter((t) => t === 'output').length).toBeGreaterThan(0);
    const ids = seen.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  } finally {
    await close();
  }
});

it("frees the worker once the task's end is on its way to the disk: the next task starts during that fsync", async () => {
  const fs = new GatedFs();
  const { o, agent, close } = await start({ run_window_ms: 0, workers: 1 }, fs);
  try {
    mock.setBehavior({ script: [{ firstByteDelayMs: 300 }] }); // the first task's model call takes a while
    const { task: first } = await o.tasks.run(agent.id, RunTaskSchema.parse({ message: 'one' }), 'acme');
    const { task: second } = await o.tasks.run(agent.id, RunTaskSchema.parse({ message: 'two' }), 'acme');
    await until(() => o.store.tasks.get(first.task_id)?.status === 'running', 'the first task runs');
    expect(o.tasks.isRunning(second.task_id)).toBe(false); // one worker: the second waits
    fs.holdSyncs(); // from here no record becomes durable
    await until(() => o.tasks.isRunning(second.task_id), 'the second task starts while the first one ends');
    await until(() => fs.waiting > 0, "the first task's end waits for its fsync");
    // The first task's end is not durable, so it is not visible either: still running, no completed event.
    expect(o.store.tasks.get(first.task_id)?.status).toBe('running');
    expect((o.store as EmbeddedStore).events.some((e) => e.type === 'completed')).toBe(false);
    fs.releaseSyncs();
    expect(await o.tasks.waitForTask(first.task_id)).toMatchObject({ status: 'completed' });
    expect(await o.tasks.waitForTask(second.task_id)).toMatchObject({ status: 'completed' });
  } finally {
    fs.releaseSyncs();
    mock.setBehavior({});
    await close();
  }
});
