// kill -9 of `serve` in the middle of a three-step workflow run, restart on the same folder: the run resumes at the
// step boundary; the finished step never runs again, the cut-off step starts again once, the last step runs once.
import { expect, it } from 'vitest';
import { call, openEvents, type Json } from '../../test/support/agent-api.ts';
import { useAgentServe } from '../../test/support/agent-serve.ts';
import { eventually } from '../../test/support/serve-process.ts';

const world = useAgentServe('sb-wf-restart-', ['acme'], { orchestrator: { workers: 2 } });

it('resumes a run at the step boundary after kill -9; no finished step runs twice', async () => {
  const { mock } = world();
  const [key] = world().keys;
  const first = await world().serve();
  const { api } = first;
  for (const name of ['a', 'b'])
    expect((await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model' })).status).toBe(201);
  const wf = await call(`${api}/workflows`, key, 'POST', {
    name: 'three',
    steps: [
      { name: 'one', agent: 'a', prompt: 'step one: {{input.x}}' },
      { name: 'two', agent: 'b', prompt: 'step two after {{steps.one.output}}' },
      { name: 'three', agent: 'a', prompt: 'step three after {{steps.two.output}}' },
    ],
  });
  expect(wf.status).toBe(201);

  mock.setBehavior({
    script: [{ tokens: ['ONE'] }, { tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), chunkDelayMs: 200 }],
  });
  const run = (await call(`${api}/workflows/three/run`, key, 'POST', { input: { x: 'go' } })).body;
  await eventually(async () => {
    const r = (await call(`${api}/workflows/three/runs/${run.run_id}`, key)).body;
    expect(r.steps.map((s: Json) => s.status)).toEqual(['completed', 'running', 'pending']);
  });
  await eventually(() => expect(mock.chatCount()).toBe(2));
  await new Promise((r) => setTimeout(r, 300)); // step two is mid-stream
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));

  mock.setBehavior({ script: [{ tokens: ['TWO'] }, { tokens: ['THREE'] }] });
  const second = await world().serve();
  const api2 = second.api;
  const done = await eventually(async () => {
    const r = (await call(`${api2}/workflows/three/runs/${run.run_id}`, key)).body;
    expect(r.status).toBe('completed');
    return r;
  }, 15_000);
  expect(done.output).toBe('THREE');
  expect(done.steps.map((s: Json) => [s.name, s.status, s.output, s.attempts, s.task_ids.length])).toEqual([
    ['one', 'completed', 'ONE', 1, 1],
    ['two', 'completed', 'TWO', 2, 2],
    ['three', 'completed', 'THREE', 1, 1],
  ]);
  expect(done.steps[1].errors).toEqual([
    expect.stringMatching(/^interrupted: attempt 1 \(tsk_[a-f0-9]+\) was cut off by a restart/),
  ]);

  // The model saw step one once, step two twice (the cut-off attempt and the one after the restart), step three once.
  const prompts = mock.requests
    .filter((r) => r.url === '/v1/chat/completions')
    .map((r) => r.body.messages.at(-1).content as string);
  expect(prompts).toEqual(['step one: go', 'step two after ONE', 'step two after ONE', 'step three after TWO']);

  // The cut-off attempt is a failed (interrupted) task; the run's events, old and new, follow the workflow.
  expect((await call(`${api2}/tasks/${done.steps[1].task_ids[0]}`, key)).body).toMatchObject({
    status: 'failed',
    stop_reason: 'interrupted',
  });
  const events = await openEvents(`${api2}/events?workflow_id=three`, key, 0);
  const all = await events.waitFor((e) => e.filter((x) => x.type === 'completed').length === 3);
  events.close();
  expect(all.every((e) => e.run_id === run.run_id)).toBe(true);
  expect(all.filter((e) => e.type === 'failed').map((e) => e.task_id)).toEqual([done.steps[1].task_ids[0]]);
}, 30_000);
