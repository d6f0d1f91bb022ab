// Retention (orchestrator.retention, issue 35) through `switchboard serve`: finished tasks past the count cap and the
// period leave the API (404, not listed) at once and for good (a restart does not bring them back), and a compaction
// leaves them out of the snapshot (the WAL does not keep them forever either).
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type Json } from '../../test/support/agent-api.ts';
import { useAgentServe } from '../../test/support/agent-serve.ts';
import { eventually } from '../../test/support/serve-process.ts';
import { decodeSnapshot } from '../wal/snapshot.ts';

describe('retention: the count cap', () => {
  const world = useAgentServe('sb-retention-', ['acme'], {
    orchestrator: { run_window_ms: 0, retention: { finished_days: 30, max_finished_tasks: 3 } },
  });
  let key = '';
  beforeAll(() => {
    [key] = world().keys;
  });

  it('keeps the last 3 finished tasks: older ones answer 404 and leave the list, across kill -9 and compaction', async () => {
    const sb = await world().serve();
    const agent = (await call(`${sb.api}/agents`, key, 'POST', { name: 'a', model: 'mock-model' })).body;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await call(`${sb.api}/agents/${agent.id}/run?wait=true`, key, 'POST', { message: `task ${i}` });
      expect(r.body).toMatchObject({ status: 'completed', done: true });
      ids.push(r.body.task_id);
    }
    const check = async (api: string) => {
      for (const id of ids.slice(0, 3)) expect((await call(`${api}/tasks/${id}`, key)).status).toBe(404);
      for (const id of ids.slice(3)) expect((await call(`${api}/tasks/${id}`, key)).status).toBe(200);
      const list = (await call(`${api}/tasks`, key)).body;
      expect(list.total).toBe(3);
      expect(list.data.map((t: Json) => t.task_id)).toEqual(ids.slice(3).reverse());
    };
    // Every run had its own thread: past the cap, the idle threads changed longest ago go too (in bulk, past a
    // tenth more than the cap, and at every start).
    const threads = async (api: string) => (await call(`${api}/threads`, key)).body.total as number;
    await check(sb.api);
    sb.child.kill('SIGKILL');
    await new Promise((r) => sb.child.once('exit', r));
    const again = await world().serve();
    await check(again.api); // the WAL still holds their records; the rule drops them again as it replays
    expect(await threads(again.api)).toBe(3);
    const compacted = await call(`${again.api}/wal/compact`, key, 'POST');
    expect(compacted.body.compacted).toBe(true);
    const dataDir = path.join(world().dir, 'data');
    const snaps = (await fs.readdir(dataDir)).filter((f) => f.startsWith('snapshot-'));
    const name = snaps.sort().at(-1)!;
    const snapshot = decodeSnapshot(await fs.readFile(path.join(dataDir, name)), name);
    const kept = (snapshot.data as { tasks: { task_id: string }[] }).tasks.map((t) => t.task_id);
    expect(kept.filter((id) => ids.includes(id))).toEqual(ids.slice(3)); // their events stay, by event_retention
    await again.stop();
  });
});

describe('retention: the period', () => {
  // 0.00003 days is 2.6 s: long enough to read a task back, short enough to see it go.
  const world = useAgentServe('sb-retention-days-', ['acme'], {
    orchestrator: { run_window_ms: 0, retention: { finished_days: 0.00003, max_finished_tasks: 0 } },
  });

  it('a finished task and its idle thread expire after the period (404); a running one stays', async () => {
    const [key] = world().keys;
    const sb = await world().serve();
    const agent = (await call(`${sb.api}/agents`, key, 'POST', { name: 'a', model: 'mock-model' })).body;
    const done = await call(`${sb.api}/agents/${agent.id}/run?wait=true`, key, 'POST', { message: 'old' });
    expect(done.body.status).toBe('completed');
    expect((await call(`${sb.api}/tasks/${done.body.task_id}`, key)).status).toBe(200);
    expect((await call(`${sb.api}/threads/${done.body.thread_id}`, key)).status).toBe(200);
    world().mock.setBehavior({ tokens: Array.from({ length: 80 }, (_, i) => `t${i} `), chunkDelayMs: 100 });
    const long = await call(`${sb.api}/agents/${agent.id}/run`, key, 'POST', { message: 'still going' });
    await eventually(async () => {
      expect((await call(`${sb.api}/tasks/${done.body.task_id}`, key)).status).toBe(404);
      expect((await call(`${sb.api}/threads/${done.body.thread_id}`, key)).status).toBe(404);
    }, 10_000);
    expect((await call(`${sb.api}/tasks/${long.body.task_id}`, key)).body.status).toBe('running');
    await call(`${sb.api}/tasks/${long.body.task_id}/stop`, key, 'POST');
    world().mock.setBehavior({});
    await sb.stop();
  });
});
