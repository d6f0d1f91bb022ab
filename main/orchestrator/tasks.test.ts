// Run admission in-process, where the WAL's fsync can be held open: what a run is refused for, and what not.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunTaskSchema } from '../../shared/orchestrator.ts';
import { startMockProvider, type MockProvider } from '../../test/support/mock-provider.ts';
import { startOrchestrator } from '../../test/support/orchestrator.ts';
import { GatedFs } from '../../test/support/wal/gated-fs.ts';
import { useTempDir } from '../../test/support/wal/temp-dir.ts';

const dir = useTempDir('tasks');
let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ name: 'mock', record: false });
});
afterAll(() => mock.close());

// Issue 35: with run_window_ms 0 a second run submitted while the first's record waited for its fsync was refused
// 409 agent_busy ("was run less than 0 s ago"): the guard against double submission held even with no window.
it('run_window_ms 0: runs of one agent that overlap their fsync are all accepted, none 409', async () => {
  const fs = new GatedFs();
  const { o, agent, close } = await startOrchestrator(dir(), mock.baseUrl, { run_window_ms: 0 }, fs);
  try {
    fs.holdSyncs(); // every run's record waits for its fsync: the runs overlap
    const runs = Array.from({ length: 5 }, (_, i) =>
      o.tasks.run(agent.id, RunTaskSchema.parse({ message: `run ${i}` }), 'acme').then(
        (r) => ({ ok: true, task: r.task.task_id }) as const,
        (err: { code?: string }) => ({ ok: false, code: err.code }) as const,
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(fs.waiting).toBeGreaterThan(0);
    fs.releaseSyncs();
    const answers = await Promise.all(runs);
    expect(answers.filter((a) => !a.ok)).toEqual([]);
    expect(new Set(answers.map((a) => a.ok && a.task)).size).toBe(5);
    for (const a of answers) if (a.ok) expect(await o.tasks.waitForTask(a.task)).toMatchObject({ status: 'completed' });
  } finally {
    fs.releaseSyncs();
    await close();
  }
});

it('with a window, two overlapping new-thread runs of one agent: one is accepted, the other 409 with Retry-After', async () => {
  const fs = new GatedFs();
  const { o, agent, close } = await startOrchestrator(dir(), mock.baseUrl, { run_window_ms: 15_000 }, fs);
  try {
    fs.holdSyncs();
    const runs = [0, 1].map((i) =>
      o.tasks.run(agent.id, RunTaskSchema.parse({ message: `run ${i}` }), 'acme').then(
        () => null,
        (err: { code?: string; headers?: Record<string, string> }) => err,
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    fs.releaseSyncs();
    const refused = (await Promise.all(runs)).filter(Boolean);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'agent_busy' });
    expect(Number(refused[0]!.headers!['retry-after'])).toBeGreaterThan(0);
  } finally {
    fs.releaseSyncs();
    await close();
  }
});
