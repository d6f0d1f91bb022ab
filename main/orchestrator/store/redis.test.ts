// The orchestrator store's contract against the Redis store: each instance its own connections (as separate
// processes would have) to one real redis-server, each test under its own key prefix; a crash drops an instance's
// connections without a word, and a survivor takes its work over once the lease runs out.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OrchestratorConfig } from '../../../shared/config.ts';
import { orchestratorConfig } from '../../../test/support/orchestrator.ts';
import { startRedis, type TestRedis } from '../../../test/support/redis.ts';
import { connectRedis } from '../../store/redis-connection.ts';
import { agent, orchestratorStoreContract, task } from './contract.case.ts';
import type { Control } from './records.ts';
import { LeaseLost, type Delivery, type WorkItem } from './types.ts';
import { RedisOrchestratorStore } from './redis.ts';

const LEASE_MS = 600;
let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

const configWith = (extra: Partial<OrchestratorConfig> = {}) => orchestratorConfig({ lease_ms: LEASE_MS, ...extra });

orchestratorStoreContract('redis', {
  async make(n, opts = {}) {
    const prefix = `t${randomUUID().slice(0, 8)}:`;
    const config = configWith({
      retention: { finished_days: opts.finishedDays ?? 0, max_finished_tasks: opts.maxFinishedTasks ?? 0 },
    });
    return Promise.all(
      Array.from({ length: n }, async () => {
        const s = new RedisOrchestratorStore(connectRedis({ kind: 'redis', url: redis.url, prefix }), {
          config: () => config,
        });
        await s.load();
        return s;
      }),
    );
  },
  async crash(s) {
    (s as RedisOrchestratorStore).crashForTest();
  },
  async takeover(_dead, others) {
    return others[0]!;
  },
  takeoverMs: LEASE_MS * 4,
});

describe('redis store: leases and fencing', () => {
  const open: RedisOrchestratorStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
  });
  const make = async (prefix: string) => {
    const config = configWith();
    const s = new RedisOrchestratorStore(connectRedis({ kind: 'redis', url: redis.url, prefix }), {
      config: () => config,
    });
    await s.load();
    open.push(s);
    return s;
  };

  it('a paused holder whose work was taken over cannot write after it (LeaseLost), and hears it lost the lease', async () => {
    const prefix = `f${randomUUID().slice(0, 8)}:`;
    const a = await make(prefix);
    const b = await make(prefix);
    const reclaimed: Delivery[] = [];
    b.onWork('task', (d) => void reclaimed.push(d));
    a.onWork('task', () => {});
    const lost: Control[] = [];
    a.onControl((c) => lost.push(c));
    await a.startWork();
    await b.startWork();
    const ag = agent('paused');
    const t = task(ag.id, { status: 'running', started_at: new Date().toISOString() });
    const item: WorkItem = { kind: 'task', tenant: 'acme', id: t.task_id };
    await a.commitWith({ take: item }, { type: 'agent.put', data: ag }, { type: 'task.put', data: t });
    a.pauseForTest(true); // a stops renewing (a SIGSTOP, a GC pause): its lease runs out
    const deadline = Date.now() + LEASE_MS * 5;
    while (!reclaimed.some((d) => d.id === t.task_id) && Date.now() < deadline) await sleep(20);
    expect(reclaimed.find((d) => d.id === t.task_id)?.reclaimed?.from).toBe(a.instance);
    // a wakes up and goes on writing about the task: refused, nothing of it lands.
    const late = await a
      .commitWith(
        { as: item },
        a.event({
          type: 'output',
          task_id: t.task_id,
          agent_id: ag.id,
          tenant: 'acme',
          workflow_id: null,
          content: 'late',
        }),
      )
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(LeaseLost);
    await b.sync('acme');
    expect(b.replay('acme', 0).events.some((e) => (e as { content?: string }).content === 'late')).toBe(false);
    // b holds it: its writes land.
    await b.commitWith(
      { as: item, done: item },
      {
        type: 'task.put',
        data: { ...t, status: 'failed', stop_reason: 'interrupted', finished_at: new Date().toISOString() },
      },
    );
    expect(b.tasks.get(t.task_id)?.status).toBe('failed');
    // Renewing again, a is told the task is lost to it (the executor stops it there).
    const b2 = await make(prefix);
    void b2;
    const t2 = task(ag.id, { status: 'running' });
    const item2: WorkItem = { kind: 'task', tenant: 'acme', id: t2.task_id };
    await a.commitWith({ take: item2 }, { type: 'task.put', data: t2 });
    await sleep(LEASE_MS * 2); // paused: b takes item2 over
    a.pauseForTest(false);
    const until = Date.now() + LEASE_MS * 3;
    while (!lost.some((c) => c.kind === 'lease_lost' && c.id === t2.task_id) && Date.now() < until) await sleep(20);
    expect(lost).toContainEqual({ kind: 'lease_lost', tenant: 'acme', id: t2.task_id, item: 'task' });
  });

  // Work is taken by its start or through its delivery, never by a write that merely names it: before, any write
  // about work no instance held took it, so an instance that had lost a task (paused past its lease, told so by its
  // renewal, its run aborted) wrote the task's end ("stopped") over the end its taker had written ("interrupted").
  it('a paused holder told it lost the lease cannot write the task’s end over the end its taker wrote', async () => {
    const prefix = `h${randomUUID().slice(0, 8)}:`;
    const a = await make(prefix);
    const b = await make(prefix);
    const handed: Delivery[] = [];
    a.onWork('task', (d) => void handed.push(d));
    const reclaimed: Delivery[] = [];
    b.onWork('task', (d) => void reclaimed.push(d));
    const lost: Control[] = [];
    a.onControl((c) => lost.push(c));
    await a.startWork();
    const ag = agent('late');
    const t = task(ag.id);
    const item: WorkItem = { kind: 'task', tenant: 'acme', id: t.task_id };
    await a.commitWith({ enqueue: [item] }, { type: 'agent.put', data: ag }, { type: 'task.put', data: t });
    await until(() => handed.some((d) => d.id === t.task_id), 3000);
    const started = { ...t, status: 'running' as const, started_at: new Date().toISOString() };
    await a.commitWith({ as: item }, { type: 'task.put', data: started }); // taken through its delivery
    await b.startWork();
    a.pauseForTest(true);
    await until(() => reclaimed.some((d) => d.id === t.task_id), LEASE_MS * 5);
    await b.sync('acme');
    const ended = {
      ...started,
      status: 'failed' as const,
      stop_reason: 'interrupted',
      finished_at: new Date().toISOString(),
    };
    await b.commitWith({ as: item, done: item }, { type: 'task.put', data: ended });
    a.pauseForTest(false);
    await until(() => lost.some((c) => c.kind === 'lease_lost' && c.id === t.task_id), LEASE_MS * 3);
    const stopped = {
      ...started,
      status: 'stopped' as const,
      stop_reason: 'stopped',
      finished_at: new Date().toISOString(),
    };
    const late = await a.commitWith({ as: item, done: item }, { type: 'task.put', data: stopped }).catch((e) => e);
    expect(late).toBeInstanceOf(LeaseLost);
    await b.sync('acme');
    expect(b.tasks.get(t.task_id)).toMatchObject({ status: 'failed', stop_reason: 'interrupted' });
  });

  it('a queue entry handed out twice (idle past the lease: XAUTOCLAIM) is taken once; the late delivery takes nothing, even once the work is over', async () => {
    const prefix = `d${randomUUID().slice(0, 8)}:`;
    const a = await make(prefix);
    const b = await make(prefix);
    const toA: Delivery[] = [];
    const toB: Delivery[] = [];
    a.onWork('run', (d) => void toA.push(d)); // a does nothing with it yet (a slow instance)
    b.onWork('run', (d) => void toB.push(d));
    await a.startWork();
    const run: WorkItem = { kind: 'run', tenant: 'acme', id: `run_${randomUUID().replaceAll('-', '').slice(0, 24)}` };
    await a.commitWith({ enqueue: [run] });
    await until(() => toA.length > 0, 3000);
    await b.sync('acme'); // b follows the tenant now (not at its next look at the team's tenants)
    await b.startWork();
    await until(() => toB.length > 0, LEASE_MS * 5); // idle past the lease: handed to b as well
    expect(toB[0]).toMatchObject({ id: run.id });
    expect(toB[0]!.reclaimed).toBeUndefined();
    await a.commitWith({ as: run }); // a takes it (its delivery's entry acked), and ends it
    await a.commitWith({ as: run, done: run });
    const late = await b.commitWith({ as: run }).catch((e) => e);
    expect(late).toBeInstanceOf(LeaseLost); // before: b took the finished run and would have driven it again
  });

  it('a close gives the work up at once: another instance takes it over without waiting for the lease', async () => {
    const prefix = `g${randomUUID().slice(0, 8)}:`;
    const config = configWith({ lease_ms: 60_000 });
    const mk = async () => {
      const s = new RedisOrchestratorStore(connectRedis({ kind: 'redis', url: redis.url, prefix }), {
        config: () => config,
      });
      await s.load();
      open.push(s);
      return s;
    };
    const a = await mk();
    const b = await mk();
    const got: Delivery[] = [];
    b.onWork('task', (d) => void got.push(d));
    await b.startWork();
    const ag = agent('leaving');
    const t = task(ag.id, { status: 'running' });
    await a.commitWith(
      { take: { kind: 'task', tenant: 'acme', id: t.task_id } },
      { type: 'agent.put', data: ag },
      { type: 'task.put', data: t },
    );
    await a.close();
    // The reaper runs every lease/3 (20 s here): it still finds the given-up lease at its first run, at start.
    const b2 = await mk();
    const got2: Delivery[] = [];
    b2.onWork('task', (d) => void got2.push(d));
    await b2.startWork();
    const deadline = Date.now() + 3000;
    while (![...got, ...got2].some((d) => d.id === t.task_id) && Date.now() < deadline) await sleep(20);
    expect([...got, ...got2].find((d) => d.id === t.task_id)?.reclaimed?.from).toBe(a.instance);
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, withinMs: number): Promise<void> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${withinMs} ms`);
    await sleep(20);
  }
}
