// What a client was told is durable: a task acknowledged as completed (its `completed` event on the stream, or the
// ?wait=true answer) survives a kill -9 of `serve` sent the moment that acknowledgement arrives, while other tasks'
// records are still in flight (their end records share group-commit batches with it).
import http from 'node:http';
import { expect, it } from 'vitest';
import { call } from '../../test/support/agent-api.ts';
import { useAgentServe } from '../../test/support/agent-serve.ts';

const world = useAgentServe('sb-durable-ack-', ['acme'], { orchestrator: { workers: 8, run_window_ms: 0 } });

/** GET /api/v1/events read raw; `onCompleted` runs in the data handler itself, with the completed frames' tasks. */
function rawEvents(api: string, key: string, onCompleted: (taskIds: string[]) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = http.get(`${api}/events`, { headers: { 'x-api-key': key, accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const frames = text.split('\n\n');
        text = frames.pop() ?? '';
        const done: string[] = [];
        for (const f of frames) {
          if (!f.includes('\nevent: completed\n')) continue;
          const data = f.split('\n').find((l) => l.startsWith('data: '));
          if (data) done.push((JSON.parse(data.slice(6)) as { task_id: string }).task_id);
        }
        if (done.length) onCompleted(done);
      });
      res.on('error', () => {});
      resolve(() => req.destroy());
    });
    req.on('error', reject);
  });
}

it('a task acknowledged as completed survives a kill -9 sent the moment the acknowledgement arrives', async () => {
  const { keys } = world();
  const [key] = keys;
  const first = await world().serve();
  const agents: string[] = [];
  for (let i = 0; i < 24; i++)
    agents.push((await call(`${first.api}/agents`, key, 'POST', { name: `a${i}`, model: 'mock-model' })).body.id);

  const acked = new Set<string>();
  const exited = new Promise((r) => first.child.once('exit', r));
  let killed = false;
  const ack = (ids: string[]) => {
    for (const id of ids) acked.add(id);
    if (killed) return;
    killed = true;
    first.child.kill('SIGKILL'); // in the same turn as the acknowledgement: nothing more reaches the disk after it
  };
  const closeStream = await rawEvents(first.api, key, ack);
  // 24 tasks at once (8 workers): when the first is acknowledged, others are queued, running or ending.
  const runs = agents.map(async (id, i) => {
    try {
      const r = await call(`${first.api}/agents/${id}/run?wait=true&timeout_s=30`, key, 'POST', { message: `m${i}` });
      if (r.body.status === 'completed') ack([r.body.task_id]);
    } catch {
      // killed before it answered: not acknowledged
    }
  });
  await Promise.all(runs);
  await exited;
  closeStream();
  expect(killed).toBe(true);
  expect(acked.size).toBeGreaterThan(0);

  const second = await world().serve();
  for (const id of acked) {
    const t = (await call(`${second.api}/tasks/${id}`, key)).body;
    expect(t, `task ${id} was acknowledged as completed`).toMatchObject({
      status: 'completed',
      result: 'Hello from mock',
    });
  }
  // Its completed event is in the history too.
  const history = await new Promise<string>((resolve) => {
    let text = '';
    const req = http.get(`${second.api}/events`, { headers: { 'x-api-key': key, 'last-event-id': '0' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      setTimeout(() => {
        req.destroy();
        resolve(text);
      }, 500);
    });
  });
  for (const id of acked) expect(history).toMatch(new RegExp(`event: completed\\ndata: \\{[^\\n]*"task_id":"${id}"`));
  await second.stop();
});
