// Two orchestrators of one team in the test's process, each on its own connection to one real redis-server (as two
// `serve` instances), their model calls going to one mock provider: how work is handed between them where the order
// of events decides, made deterministic (an instance that takes nothing from the team's queue; one whose workers
// are all busy).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { CreateAgentSchema, RunTaskSchema, type Task } from '../../shared/orchestrator.ts';
import { startMockProvider, type MockProvider } from '../../test/support/mock-provider.ts';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { configFor } from '../../test/support/serve-process.ts';
import { makeTempDir } from '../../test/support/temp.ts';
import { ConfigStore } from '../config/store.ts';
import { RequestLog } from '../observability/request-log.ts';
import { Engine } from '../proxy/engine.ts';
import { connectRedis } from '../store/redis-connection.ts';
import { Orchestrator } from './orchestrator.ts';
import { RedisOrchestratorStore } from './store/redis.ts';

const T = 'acme';
let redis: TestRedis;
let mock: MockProvider;
beforeAll(async () => {
  redis = await startRedis();
  mock = await startMockProvider({ name: 'mock' });
});
afterAll(async () => {
  await mock.close();
  await redis.stop();
});

type Member = { o: Orchestrator; store: RedisOrchestratorStore; dataDir: string; close: () => Promise<void> };
const open: Member[] = [];
afterEach(async () => {
  for (const m of open.splice(0).reverse()) await m.close().catch(() => undefined);
  mock.setBehavior({});
});

/** One instance of the team under `prefix`; `work: false`: it takes nothing from the team's queues (no reaper). */
async function member(prefix: string, orchestrator: Record<string, unknown>, work = true): Promise<Member> {
  const tmp = await makeTempDir('sb-team');
  const file = path.join(tmp.dir, 'config.json');
  await writeFile(file, JSON.stringify(configFor({ mock: mock.baseUrl }, { orchestrator })));
  const cfgStore = await ConfigStore.open(file);
  const engine = new Engine(cfgStore.config, file, new RequestLog(10));
  const config = () => cfgStore.config.orchestrator;
  const store = new RedisOrchestratorStore(connectRedis({ kind: 'redis', url: redis.url, prefix }), { config });
  const dataDir = path.join(tmp.dir, 'data');
  const o = new Orchestrator({ store, engine: () => engine, config, dataDir });
  await store.load();
  if (work) await store.startWork();
  const m = {
    o,
    store,
    dataDir,
    close: async () => {
      await o.close();
      cfgStore.close();
      await tmp.cleanup();
    },
  };
  open.push(m);
  return m;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<X>(get: () => X | undefined | false, withinMs: number, what: string): Promise<X> {
  const end = Date.now() + withinMs;
  for (;;) {
    const got = get();
    if (got) return got;
    if (Date.now() > end) throw new Error(`not within ${withinMs} ms: ${what}`);
    await sleep(20);
  }
}
const requestsWith = (marker: string) =>
  mock.requests.filter((r) => r.url === '/v1/chat/completions' && JSON.stringify(r.body).includes(marker)).length;

// A swarm's coordinator gets `delegate`, a closure of the instance that drives the swarm task. Its task went through
// the team's queue, so another instance often ran it without the tool: the coordinator's call to `delegate` failed,
// it answered without the member, and the round had no contribution (agents-team.serve.test.ts's swarm case failed
// with `rounds[0].contributions[0]` undefined whenever the coordinator's task landed on another instance).
it('a task given tools of this process runs on this instance, never through the team queue on another', async () => {
  const prefix = `tm${randomUUID().slice(0, 8)}:`;
  const a = await member(prefix, { lease_ms: 5000, run_window_ms: 0 }, false); // takes nothing from the team queue
  await member(prefix, { lease_ms: 5000, run_window_ms: 0 }); // b: would take whatever is queued for the team
  const agent = await a.o.agents.create(CreateAgentSchema.parse({ name: 'coord', model: 'mock-model' }), T);
  mock.setBehavior({ script: [{ toolCall: { name: 'probe', arguments: {} } }], tokens: ['done'] });
  let probed = 0;
  const probe = {
    schema: {
      type: 'function' as const,
      function: { name: 'probe', description: 'probes', parameters: { type: 'object', properties: {} } },
    },
    run: async () => {
      probed++;
      return 'probed';
    },
  };
  const origin = { kind: 'workflow', workflow_id: 'wf_x', run_id: 'run_x', step: 's', attempt: 1 } as const;
  const t = await a.o.tasks.submitInternal(agent.id, { message: 'marker-tools-here', context: {} }, T, origin, {
    tools: { probe },
  });
  const done = (await Promise.race([a.o.tasks.waitForTask(t.task_id), sleep(10_000).then(() => null)])) as Task;
  expect(done).toMatchObject({ status: 'completed', result: 'done' });
  expect(probed).toBe(1); // before: 0 (b ran it, without the tool)
});

// A queue entry can reach a second instance while the task runs on the first (an entry redelivered once idle past
// the lease, a command sent again). A task waiting for a person's approval has its resume state in the store, and the
// second instance used to resume it from there as if its holder were gone: after the approval both ran the call.
it('a task handed out a second time while it waits for an approval on its instance is not resumed on the other', async () => {
  const prefix = `tp${randomUUID().slice(0, 8)}:`;
  const cfg = { lease_ms: 5000, run_window_ms: 0, workers: 1, approvals: { write_file: 'ask' } };
  const a = await member(prefix, cfg);
  const b = await member(prefix, cfg);
  const agent = await a.o.agents.create(
    CreateAgentSchema.parse({ name: 'writer', model: 'mock-model', tools: ['write_file'] }),
    T,
  );
  mock.setBehavior({
    script: [{ toolCall: { name: 'write_file', arguments: { path: 'once.txt', content: 'x' } } }],
    tokens: ['written'],
  });
  const { task } = await a.o.tasks.run(agent.id, RunTaskSchema.parse({ message: 'marker-approval-once' }), T);
  const pending = await until(
    () => [...a.store.approvals.values()].find((x) => x.task_id === task.task_id && x.status === 'pending'),
    10_000,
    'the approval asked',
  );
  const [holder, other] = a.o.tasks.isRunning(task.task_id) ? [a, b] : [b, a];
  expect(holder.o.tasks.isRunning(task.task_id)).toBe(true);
  // The task's entry once more in the team queue: the holder's one worker is busy, so the other reads it.
  const keys = holder.store.conn.client;
  await keys.xadd(`${prefix}o:{${T}}:q`, '*', 'i', `task:${task.task_id}`);
  const queued = async () => Number(await keys.xlen(`${prefix}o:{${T}}:q`));
  for (let i = 0; (await queued()) > 0 && !other.o.tasks.isRunning(task.task_id); i++) {
    if (i > 250) throw new Error('the entry was not read');
    await sleep(20);
  }
  await sleep(200);
  expect(other.o.tasks.isRunning(task.task_id)).toBe(false); // before: resumed there, waiting on the same approval
  expect(await queued()).toBe(0); // the entry let go
  await other.o.tasks.executor.approvals.decide(task.task_id, pending.call_id, { decision: 'approve' }, T);
  const done = (await Promise.race([holder.o.tasks.waitForTask(task.task_id), sleep(10_000).then(() => null)])) as Task;
  expect(done).toMatchObject({ status: 'completed', result: 'written' });
  await sleep(300);
  const written = [a, b].filter((m) => existsSync(path.join(m.dataDir, 'workspaces', agent.id, 'once.txt')));
  expect(written).toEqual([holder]); // before: the file was written on both instances
  expect(requestsWith('marker-approval-once')).toBe(2); // before the approval, after it: once each
});
