// kill -9 of a `serve` child mid-task, restart on the same folder: nothing acknowledged is lost, the interrupted
// task is marked failed (never run twice), a queued task runs once after the restart.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { call, createKey, openEvents } from '../../test/support/agent-api.ts';
import { useAgentServe } from '../../test/support/agent-serve.ts';
import { configFor, eventually, startServe, type ServeProcess } from '../../test/support/serve-process.ts';

const world = useAgentServe('sb-restart-', ['acme'], { orchestrator: { workers: 1 } });
const children: ServeProcess[] = [];

afterAll(async () => {
  for (const c of children) await c.stop();
});

it('rebuilds agents, tasks and events after kill -9; the running task is failed (interrupted), the queued one runs once', async () => {
  const { mock } = world();
  const [key] = world().keys;
  const first = await world().serve();
  const { api } = first;
  const mk = async (name: string) =>
    (await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model' })).body.id as string;
  const [a, b, c] = [await mk('a'), await mk('b'), await mk('c')];

  const done = (await call(`${api}/agents/${a}/run`, key, 'POST', { message: 'quick' })).body.task_id;
  await eventually(async () => expect((await call(`${api}/tasks/${done}`, key)).body.status).toBe('completed'));

  mock.setBehavior({ tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), chunkDelayMs: 200 });
  const chatsBefore = mock.chatCount();
  const interrupted = (await call(`${api}/agents/${b}/run`, key, 'POST', { message: 'slow' })).body.task_id;
  const queued = await call(`${api}/agents/${c}/run`, key, 'POST', { message: 'waits' });
  expect(queued.body.status).toBe('queued');
  await eventually(async () => expect((await call(`${api}/tasks/${interrupted}`, key)).body.status).toBe('running'));
  await eventually(() => expect(mock.chatCount()).toBe(chatsBefore + 1));
  await new Promise((r) => setTimeout(r, 300)); // mid-stream
  const eventsBefore = await openEvents(`${api}/events`, key, 0);
  const acked = await eventsBefore.waitFor((e) => e.some((x) => x.type === 'completed'));
  eventsBefore.close();
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  const chatsAtKill = mock.chatCount();

  mock.setBehavior({});
  const second = await world().serve();
  const api2 = second.api;
  for (const id of [a, b, c]) expect((await call(`${api2}/agents/${id}`, key)).status).toBe(200);
  expect((await call(`${api2}/tasks/${done}`, key)).body).toMatchObject({
    status: 'completed',
    result: 'Hello from mock',
  });
  const failed = (await call(`${api2}/tasks/${interrupted}`, key)).body;
  expect(failed).toMatchObject({ status: 'failed', stop_reason: 'interrupted' });
  expect(failed.error).toMatch(/not run again/);
  expect((await call(`${api2}/agents/${b}`, key)).body.status).toBe('idle');
  await eventually(async () =>
    expect((await call(`${api2}/tasks/${queued.body.task_id}`, key)).body.status).toBe('completed'),
  );
  expect(mock.chatCount()).toBe(chatsAtKill + 1); // only the queued task called the model; the interrupted one never again

  const replay = await openEvents(`${api2}/events`, key, 0);
  const all = await replay.waitFor(
    (e) => e.filter((x) => x.type === 'completed').length >= 2 && e.some((x) => x.type === 'failed'),
  );
  replay.close();
  for (const e of acked) expect(all.find((x) => x.id === e.id)).toEqual(e);
  expect(all.find((x) => x.type === 'failed')).toMatchObject({ task_id: interrupted });
  const ids = all.map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
});

it('ends open event streams on shutdown, so serve stops at once', async () => {
  const own = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-sse-stop-'));
  const key = await createKey(path.join(own, 'config.json'));
  const sb = await startServe({ dir: own, config: configFor({ m: 'http://127.0.0.1:9/v1' }) });
  children.push(sb);
  const stream = await openEvents(`${sb.url}/api/v1/events`, key);
  const t0 = Date.now();
  await sb.stop();
  expect(Date.now() - t0).toBeLessThan(1500);
  expect(sb.child.exitCode).toBe(0);
  stream.close();
  await fs.rm(own, { recursive: true, force: true });
});
