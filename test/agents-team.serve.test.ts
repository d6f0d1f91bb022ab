// The agent API of a team (issue 35): three real `switchboard serve` processes on one real Redis (append-only,
// fsync always: the setting deploy/docker-compose.yml ships), behind a round-robin balancer (test/support/
// balancer.ts), a mock provider behind them. Checked: an agent key made on one instance works on all, and its
// revocation on another ends it everywhere; an agent created through one is read, renamed and run through the
// others; agent names are unique across the team; a task is polled and waited for through any instance; an SSE stream
// on C gets every event of a run on A in order, and resumes with Last-Event-ID on B once C is stopped; approvals are
// decided through any instance; kill -9 of the instance running a task ends it failed (interrupted) within the lease,
// never run twice, a workflow run goes on at its step, and across 5 rounds of kill -9 under load no acknowledged task
// is lost or run twice; Redis down: the agent API answers 503 store_unavailable and comes back with Redis.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, openEvents, type Json } from './support/agent-api.ts';
import { type Balancer, startBalancer } from './support/balancer.ts';
import { type MockProvider, startMockProvider } from './support/mock-provider.ts';
import { startRedis, type TestRedis } from './support/redis.ts';
import { configFor, eventually, runSwitchboard, type ServeProcess, startServe } from './support/serve-process.ts';

const PREFIX = 'agents-team:';
const LEASE_MS = 1500;
const N = 3;

let redis: TestRedis;
let mock: MockProvider;
let root: string;
let lb: Balancer;
let key = '';
const dirs: string[] = [];
const sb: (ServeProcess | null)[] = [];

const config = () =>
  configFor(
    { mock: mock.baseUrl },
    {
      store: { kind: 'redis', url: redis.url, prefix: PREFIX },
      orchestrator: { lease_ms: LEASE_MS, run_window_ms: 0, workers: 2, sse_heartbeat_ms: 300 },
    },
  );
const api = (i: number) => `${(sb[i] as ServeProcess).url}/api/v1`;
const via = () => `${lb.url}/api/v1`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serve(i: number): Promise<ServeProcess> {
  const s = await startServe({ dir: dirs[i], config: config() });
  sb[i] = s;
  await eventually(async () => {
    const h = (await call(`${s.url}/api/v1/health`, null)).body;
    expect(h.store).toMatchObject({ kind: 'redis', up: true });
  }, 15_000);
  return s;
}

/** The instance (index) that holds a piece of work now, from the team's lease table in Redis. */
async function holderOf(item: string): Promise<number> {
  const { Redis } = await import('ioredis');
  const r = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    const owner = (await r.hget(`${PREFIX}o:{default}:owners`, item)) ?? '';
    const name = owner.slice(owner.indexOf('|') + 1);
    for (let i = 0; i < N; i++) {
      const s = sb[i];
      if (s && name.includes(`-${s.child.pid}-`)) return i;
    }
    return -1;
  } finally {
    r.disconnect();
  }
}

async function kill9(i: number): Promise<void> {
  const s = sb[i] as ServeProcess;
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGKILL');
  await exited;
  sb[i] = null;
}

/** How many chat requests the mock got whose messages carry `marker` (a task's run is one request per model call). */
const runsOf = (marker: string) =>
  mock.requests.filter((r) => r.url === '/v1/chat/completions' && JSON.stringify(r.body).includes(marker)).length;

beforeAll(async () => {
  redis = await startRedis({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  mock = await startMockProvider({ name: 'mock' });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-agents-team-'));
  for (let i = 0; i < N; i++) {
    const dir = path.join(root, `instance-${i}`);
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(config(), null, 2));
    dirs.push(dir);
  }
  // Made with the CLI on instance 0's config: its store is Redis, so the key is the team's.
  key = await createKey(path.join(dirs[0]!, 'config.json'));
  for (let i = 0; i < N; i++) await serve(i);
  lb = await startBalancer(() => sb.filter((s): s is ServeProcess => s !== null).map((s) => s.url));
}, 120_000);

afterAll(async () => {
  await lb?.close();
  for (const s of sb) await s?.stop();
  await mock?.close();
  await redis?.stop();
  await fs.rm(root, { recursive: true, force: true });
});

describe('agents across instances', () => {
  it('an agent key made on one instance works on all; revoked through another, it ends on all', async () => {
    for (let i = 0; i < N; i++) expect((await call(`${api(i)}/agents`, key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call(`${via()}/agents`, key)).status).toBe(200);
    const other = await createKey(path.join(dirs[1]!, 'config.json'), 'globex');
    for (let i = 0; i < N; i++) expect((await call(`${api(i)}/agents`, other)).status).toBe(200);
    const list = await runSwitchboard(['keys', 'list', '--config', path.join(dirs[2]!, 'config.json')]);
    const id = /^(key_[a-f0-9]+)\tglobex\t/m.exec(list.stdout)?.[1];
    expect(id).toBeTruthy(); // made on instance 1, listed through instance 2's config
    const revoked = await runSwitchboard(['keys', 'revoke', id!, '--config', path.join(dirs[2]!, 'config.json')]);
    expect(revoked.stdout).toContain('on every instance of the team');
    await eventually(async () => {
      for (let i = 0; i < N; i++) expect((await call(`${api(i)}/agents`, other)).status).toBe(401);
    }, 5_000);
  });

  it('an agent created through the balancer is read, renamed and run through every instance', async () => {
    const made = await call(`${via()}/agents`, key, 'POST', { name: 'roamer', model: 'mock-model' });
    expect(made.status).toBe(201);
    const reads = [];
    for (let i = 0; i < 3; i++) reads.push((await call(`${via()}/agents/${made.body.id}`, key)).status);
    expect(reads).toEqual([200, 200, 200]); // before: 404, 404, 200
    expect((await call(`${via()}/agents/${made.body.id}`, key, 'PUT', { name: 'roamer-2' })).status).toBe(200);
    for (let i = 0; i < N; i++)
      expect((await call(`${api(i)}/agents/${made.body.id}`, key)).body.name).toBe('roamer-2');
    const runs = [];
    for (let i = 0; i < 3; i++)
      runs.push(await call(`${via()}/agents/${made.body.id}/run?wait=true`, key, 'POST', { message: `hello ${i}` }));
    expect(runs.map((r) => [r.status, r.body.status])).toEqual([
      [200, 'completed'],
      [200, 'completed'],
      [200, 'completed'],
    ]);
    const listed = (await call(`${via()}/tasks?agent_id=${made.body.id}`, key)).body;
    expect(listed.total).toBe(3);
  });

  it('an agent name is unique across the team: the same name created on three instances at once is one agent', async () => {
    const tries = await Promise.all(
      [0, 1, 2].map((i) => call(`${api(i)}/agents`, key, 'POST', { name: 'only-one', model: 'mock-model' })),
    );
    expect(tries.map((t) => t.status).sort()).toEqual([201, 409, 409]);
    const winner = tries.find((t) => t.status === 201)!.body.id;
    for (const t of tries.filter((x) => x.status === 409))
      expect(t.body.error).toMatchObject({ code: 'agent_exists', details: { agent_id: winner } });
  });

  it('a task started on one instance is polled and waited for (?wait=true, /wait) through the others', async () => {
    const a = (await call(`${api(0)}/agents`, key, 'POST', { name: 'waiter', model: 'mock-model' })).body;
    mock.setBehavior({ tokens: Array.from({ length: 8 }, (_, i) => `w${i} `), chunkDelayMs: 60 });
    const run = await call(`${api(0)}/agents/${a.id}/run`, key, 'POST', { message: 'be slow' });
    expect(run.status).toBe(200);
    for (const i of [1, 2]) expect((await call(`${api(i)}/tasks/${run.body.task_id}`, key)).status).toBe(200);
    const waited = await call(`${api(2)}/tasks/${run.body.task_id}/wait?timeout_s=20`, key);
    expect(waited.body).toMatchObject({ done: true, status: 'completed', result: 'w0 w1 w2 w3 w4 w5 w6 w7 ' });
    const again = await call(`${api(1)}/agents/${a.id}/run?wait=true&timeout_s=20`, key, 'POST', { message: 'again' });
    expect(again.body).toMatchObject({ done: true, status: 'completed' });
    mock.setBehavior({});
  });

  it('a swarm task and a workflow run started through one instance are driven to their end and read through the others', async () => {
    for (const name of ['lead', 'member'])
      expect((await call(`${via()}/agents`, key, 'POST', { name, model: 'mock-model' })).status).toBe(201);
    const swarm = { name: 'panel', coordinator: 'lead', agents: ['member'], config: { consensus_required: true } };
    expect((await call(`${via()}/swarms`, key, 'POST', swarm)).status).toBe(201);
    // The coordinator delegates to the member (its task runs in the coordinator's worker), proposes, the member votes.
    mock.setBehavior({
      script: [
        { toolCall: { name: 'delegate', arguments: { agent: 'member', task: 'check' } } },
        { tokens: ['checked'] },
      ],
      tokens: ['APPROVE: fine'],
    });
    const st = await call(`${api(0)}/swarms/panel/tasks`, key, 'POST', { message: 'decide' });
    expect(st.status).toBe(202);
    const done = await call(`${api(1)}/swarms/panel/tasks/${st.body.task_id}/wait?timeout_s=20`, key);
    expect(done.body).toMatchObject({ done: true, status: 'completed', consensus: true });
    expect(done.body.rounds[0].contributions[0]).toMatchObject({ agent: 'member', status: 'completed' });
    expect((await call(`${api(2)}/swarms/panel/tasks/${st.body.id}`, key)).body.status).toBe('completed');
    mock.setBehavior({});
    const wf = { name: 'one-step', steps: [{ name: 'only', agent: 'lead', prompt: 'say {{input.word}}' }] };
    expect((await call(`${via()}/workflows`, key, 'POST', wf)).status).toBe(201);
    const run = (await call(`${api(2)}/workflows/one-step/run`, key, 'POST', { input: { word: 'hi' } })).body;
    const ran = await call(`${api(0)}/workflows/one-step/runs/${run.run_id}/wait?timeout_s=20`, key);
    expect(ran.body).toMatchObject({ done: true, status: 'completed' });
  });

  it('approvals are decided through any instance: asked on one, approved through another, the task goes on', async () => {
    const a = (
      await call(`${via()}/agents`, key, 'POST', { name: 'asker', model: 'mock-model', tools: ['write_file'] })
    ).body;
    mock.setBehavior({
      script: [{ toolCall: { name: 'write_file', arguments: { path: 'note.txt', content: 'hi' } } }],
      tokens: ['written'],
    });
    const run = await call(`${api(0)}/agents/${a.id}/run`, key, 'POST', { message: 'write it' });
    const pending = await eventually(async () => {
      const list = (await call(`${api(2)}/approvals?status=pending&task_id=${run.body.task_id}`, key)).body.data;
      expect(list).toHaveLength(1);
      return list[0];
    }, 10_000);
    const decided = await call(`${api(1)}/tasks/${run.body.task_id}/approvals/${pending.call_id}`, key, 'POST', {
      decision: 'approve',
    });
    expect(decided.body).toMatchObject({ status: 'approved' });
    const twice = await call(`${api(2)}/tasks/${run.body.task_id}/approvals/${pending.call_id}`, key, 'POST', {
      decision: 'deny',
    });
    expect(twice.body.error.code).toBe('approval_not_pending');
    const done = await call(`${api(2)}/tasks/${run.body.task_id}/wait?timeout_s=20`, key);
    expect(done.body).toMatchObject({ status: 'completed', result: 'written' });
    mock.setBehavior({});
  });

  it('an SSE stream on C gets every event of a run on A, in order; after C stops, B resumes it from Last-Event-ID', async () => {
    const a = (await call(`${api(0)}/agents`, key, 'POST', { name: 'talker', model: 'mock-model' })).body;
    const onC = await openEvents(`${api(2)}/events`, key);
    mock.setBehavior({ tokens: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 20 });
    const first = await call(`${api(0)}/agents/${a.id}/run`, key, 'POST', { message: 'count' });
    const seen = await onC.waitFor((e) => e.some((x) => x.type === 'completed' && x.task_id === first.body.task_id));
    const mine = seen.filter((e) => e.task_id === first.body.task_id);
    expect(mine.map((e) => e.type)).toEqual(['output', 'output', 'output', 'output', 'completed']);
    expect(mine.map((e) => e.content ?? '').join('')).toBe('one two three four');
    const ids = onC.ids.map(Number);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    const last = ids.at(-1)!;
    onC.close();
    await (sb[2] as ServeProcess).stop();
    sb[2] = null;
    const second = await call(`${api(0)}/agents/${a.id}/run`, key, 'POST', { message: 'count again' });
    await call(`${api(0)}/tasks/${second.body.task_id}/wait?timeout_s=20`, key);
    const onB = await openEvents(`${api(1)}/events`, key, last);
    const resumed = await onB.waitFor((e) =>
      e.some((x) => x.type === 'completed' && x.task_id === second.body.task_id),
    );
    onB.close();
    expect(onB.ids.map(Number).every((n) => n > last)).toBe(true);
    expect(resumed.filter((e) => e.task_id === second.body.task_id).map((e) => e.type)).toEqual([
      'output',
      'output',
      'output',
      'output',
      'completed',
    ]);
    mock.setBehavior({});
    await serve(2);
  });
});

describe('an instance killed (-9)', () => {
  it('the task it ran ends failed (interrupted) within the lease, is never run again, and says where it was', async () => {
    const a = (await call(`${via()}/agents`, key, 'POST', { name: 'doomed', model: 'mock-model' })).body;
    mock.setBehavior({ tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), chunkDelayMs: 100 });
    const run = await call(`${via()}/agents/${a.id}/run`, key, 'POST', { message: 'marker-doomed-task' });
    await eventually(async () =>
      expect((await call(`${via()}/tasks/${run.body.task_id}`, key)).body.status).toBe('running'),
    );
    const holder = await holderOf(`task:${run.body.task_id}`);
    expect(holder).toBeGreaterThanOrEqual(0);
    const t0 = Date.now();
    await kill9(holder);
    const survivor = (holder + 1) % N;
    const ended = await eventually(async () => {
      const t = (await call(`${api(survivor)}/tasks/${run.body.task_id}`, key)).body;
      expect(t.status).toBe('failed');
      return t;
    }, LEASE_MS * 6);
    expect(Date.now() - t0).toBeLessThan(LEASE_MS * 4); // the lease, a reaper's tick, and the write
    expect(ended.stop_reason).toBe('interrupted');
    expect(ended.error).toContain('its lease ran out; it was not run again');
    mock.setBehavior({});
    await sleep(LEASE_MS);
    expect(runsOf('marker-doomed-task')).toBe(1);
    await serve(holder);
  });

  it('a task waiting for an approval moves to another instance when its own dies, says so, and goes on from the call', async () => {
    const a = (
      await call(`${via()}/agents`, key, 'POST', { name: 'mover', model: 'mock-model', tools: ['write_file'] })
    ).body;
    mock.setBehavior({
      script: [{ toolCall: { name: 'write_file', arguments: { path: 'moved.txt', content: 'x' } } }],
      tokens: ['moved'],
    });
    const run = await call(`${via()}/agents/${a.id}/run`, key, 'POST', { message: 'marker-moving-task' });
    const pending = await eventually(async () => {
      const list = (await call(`${via()}/approvals?status=pending&task_id=${run.body.task_id}`, key)).body.data;
      expect(list).toHaveLength(1);
      return list[0];
    }, 10_000);
    const holder = await holderOf(`task:${run.body.task_id}`);
    expect(holder).toBeGreaterThanOrEqual(0);
    const gone = (await call(`${api(holder)}/health`, null)).body.store.instance as string;
    await kill9(holder);
    const other = (holder + 1) % N;
    const stream = await openEvents(`${api(other)}/events`, key, 0);
    const seen = await stream.waitFor(
      (e) => e.some((x) => x.type === ('resumed' as never) && x.task_id === run.body.task_id),
      LEASE_MS * 6,
    );
    const resumed = seen.find((x) => x.type === ('resumed' as never) && x.task_id === run.body.task_id)!;
    expect(resumed.content).toContain(`${gone}, which was running it, is gone`);
    // Still the same approval (not asked again), decided through yet another instance; the task goes on from it.
    const third = (holder + 2) % N;
    const decided = await call(`${api(third)}/tasks/${run.body.task_id}/approvals/${pending.call_id}`, key, 'POST', {
      decision: 'approve',
    });
    expect(decided.body.status).toBe('approved');
    const done = await call(`${api(other)}/tasks/${run.body.task_id}/wait?timeout_s=20`, key);
    expect(done.body).toMatchObject({ status: 'completed', result: 'moved' });
    stream.close();
    // The model was asked twice in all: before the call (on the instance that died) and after it (here); the task
    // did not start over.
    expect(runsOf('marker-moving-task')).toBe(2);
    expect((await call(`${api(other)}/approvals?task_id=${run.body.task_id}`, key)).body.data).toHaveLength(1);
    mock.setBehavior({});
    await serve(holder);
  });

  it('a workflow run goes on at its step on another instance', async () => {
    await call(`${via()}/agents`, key, 'POST', { name: 'stepper', model: 'mock-model' });
    const wf = {
      name: 'two-steps',
      steps: [
        { name: 'first', agent: 'stepper', prompt: 'marker-step-one' },
        { name: 'second', agent: 'stepper', prompt: 'marker-step-two after {{steps.first.output}}' },
      ],
    };
    expect((await call(`${via()}/workflows`, key, 'POST', wf)).status).toBe(201);
    mock.setBehavior({ tokens: Array.from({ length: 20 }, (_, i) => `s${i} `), chunkDelayMs: 100 });
    const run = (await call(`${via()}/workflows/two-steps/run`, key, 'POST', {})).body;
    await eventually(async () => {
      const r = (await call(`${via()}/workflows/two-steps/runs/${run.run_id}`, key)).body;
      expect(r.steps[0].status).toBe('running');
    });
    const driver = await holderOf(`run:${run.run_id}`);
    expect(driver).toBeGreaterThanOrEqual(0);
    await kill9(driver);
    mock.setBehavior({ tokens: ['quick'] });
    const done = await eventually(async () => {
      const r = (await call(`${api((driver + 1) % N)}/workflows/two-steps/runs/${run.run_id}`, key)).body;
      expect(r.status).toBe('completed');
      return r;
    }, 30_000);
    expect(done.steps.map((s: Json) => s.status)).toEqual(['completed', 'completed']);
    expect(runsOf('marker-step-two')).toBe(1); // the step after the takeover ran once
    mock.setBehavior({});
    await serve(driver);
  });

  it('5 rounds of kill -9 under load: every acknowledged task ends, none is lost, none runs twice', async () => {
    const a = (await call(`${via()}/agents`, key, 'POST', { name: 'loaded', model: 'mock-model' })).body;
    mock.setBehavior({ tokens: ['a ', 'b ', 'c'], chunkDelayMs: 40 });
    const acked: string[] = [];
    let n = 0;
    for (let round = 0; round < 5; round++) {
      let loading = true;
      const clients = Array.from({ length: 4 }, async () => {
        while (loading) {
          const marker = `marker-load-${++n}-x`;
          const r = await call(`${via()}/agents/${a.id}/run`, key, 'POST', { message: marker }).catch(() => null);
          if (r?.status === 200) acked.push(r.body.task_id);
        }
      });
      await sleep(600);
      const victim = round % N;
      await kill9(victim);
      await sleep(600);
      loading = false;
      await Promise.all(clients);
      await serve(victim);
    }
    expect(acked.length).toBeGreaterThan(20);
    const ends = await eventually(async () => {
      const out: Json[] = [];
      for (const id of acked) {
        const t = await call(`${via()}/tasks/${id}`, key);
        expect({ id, status: t.status }).toEqual({ id, status: 200 }); // not lost
        expect({ id, status: t.body.status, in: ['completed', 'failed'].includes(t.body.status) }).toMatchObject({
          in: true,
        });
        out.push(t.body);
      }
      return out;
    }, 60_000);
    // Every task of the agent, acknowledged or not (a run whose instance was killed after its commit and before its
    // answer is a task too): each ends, and each ran by the rule.
    const all = await eventually(async () => {
      const out: Json[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = (await call(`${via()}/tasks?agent_id=${a.id}&limit=100&offset=${offset}`, key)).body;
        out.push(...(page.data as Json[]));
        if (out.length >= page.total || page.data.length === 0) break;
      }
      expect(out.filter((t) => !['completed', 'failed'].includes(t.status)).map((t) => t.task_id)).toEqual([]);
      return out;
    }, 60_000);
    expect(all.length).toBeGreaterThanOrEqual(ends.length);
    // One task per client request: a marker on two tasks is a request sent twice (the balancer used to send a POST
    // again when its instance died before answering; then the acknowledged task's marker showed "runs: 2").
    const tasksOfMarker = new Map<string, string[]>();
    for (const t of all) tasksOfMarker.set(t.message, [...(tasksOfMarker.get(t.message) ?? []), t.task_id]);
    expect([...tasksOfMarker].filter(([, ids]) => ids.length > 1)).toEqual([]);
    // Every task that breaks the rule, with what it says (so a failure names the task and how).
    const wrong = all
      .map((t) => ({
        id: t.task_id,
        acked: acked.includes(t.task_id),
        status: t.status,
        stop_reason: t.stop_reason,
        error: t.error,
        runs: runsOf(t.message),
      }))
      .filter((t) => (t.status === 'completed' ? t.runs !== 1 : t.stop_reason !== 'interrupted' || t.runs > 1));
    expect(wrong).toEqual([]);
    mock.setBehavior({});
  }, 180_000);
});

describe('Redis down', () => {
  it('the agent API answers 503 store_unavailable on every instance, the router still answers, and both come back', async () => {
    const before = (await call(`${via()}/agents`, key, 'POST', { name: 'survivor', model: 'mock-model' })).body;
    await redis.kill();
    for (let i = 0; i < N; i++) {
      const r = await call(`${api(i)}/agents`, key);
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ code: 'store_unavailable', details: null });
      expect(r.body.error.message).toContain('which is not reachable');
    }
    const chat = await fetch(`${(sb[0] as ServeProcess).baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200); // the gateway's own state fails open
    const health = (await call(`${api(1)}/health`, null)).body;
    expect(health).toMatchObject({ status: 'degraded', store: { kind: 'redis', up: false } });
    await redis.restart();
    await eventually(async () => {
      for (let i = 0; i < N; i++) expect((await call(`${api(i)}/agents/${before.id}`, key)).status).toBe(200);
    }, 20_000);
    const health2 = (await call(`${api(1)}/health`, null)).body;
    expect(health2.store.durability).toMatchObject({ level: 'fsync' });
  });
});
