// Lifecycle and events of workflows and swarms (issue 16) through `switchboard serve` over real HTTP: PUT and DELETE
// of workflows and swarms, cancelling a run, stopping a swarm task; run-level events (run_started ... run_failed);
// every SSE frame named after its type (a real EventSource's addEventListener('output')); and two bugs: a stream
// following a workflow by name that did not exist yet, and agents referred to by name (now unique, saved by id).
import { EventSource } from 'eventsource';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, openEvents, type Json } from '../../test/support/agent-api.ts';
import { settled, useAgentServe } from '../../test/support/agent-serve.ts';
import type { MockProvider } from '../../test/support/mock-provider.ts';
import { eventually } from '../../test/support/serve-process.ts';

const world = useAgentServe('sb-lifecycle-', ['acme', 'globex'], { orchestrator: { workers: 2 } });
let mock: MockProvider;
let key = '';
let other = '';
let api = '';

const agent = async (name: string) =>
  (await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model' })).body.id as string;
const slow = (n = 60, delay = 50) => ({ tokens: Array.from({ length: n }, (_, i) => `s${i} `), chunkDelayMs: delay });
const step = (name: string, agentName: string, prompt = 'Work on it.') => ({ name, agent: agentName, prompt });

beforeAll(async () => {
  ({ mock } = world());
  [key, other] = world().keys;
  ({ api } = await world().serve());
  for (const name of ['alpha', 'beta', 'lead', 'member']) await agent(name);
}, 30_000);

describe('workflows: change, delete, cancel, run-level events', () => {
  it('emits run_started, step_started, step_completed, run_completed, each frame named after its type', async () => {
    const wf = {
      name: 'two-steps',
      steps: [step('first', 'alpha'), step('second', 'beta', 'Go on: {{steps.first.output}}')],
    };
    expect((await call(`${api}/workflows`, key, 'POST', wf)).status).toBe(201);
    const stream = await openEvents(`${api}/events?workflow_id=two-steps`, key);
    const run = await call(`${api}/workflows/two-steps/run?wait=true`, key, 'POST', {});
    expect(run.body).toMatchObject({ done: true, status: 'completed' });
    const got = await stream.waitFor((e) => e.some((x) => x.type === ('run_completed' as never)));
    stream.close();
    const runLevel = got.filter((e) => !['output', 'thinking', 'completed'].includes(e.type)) as Json[];
    expect(runLevel.map((e) => [e.type, e.step ?? null])).toEqual([
      ['run_started', null],
      ['step_started', 'first'],
      ['step_completed', 'first'],
      ['step_started', 'second'],
      ['step_completed', 'second'],
      ['run_completed', null],
    ]);
    expect(runLevel[1]).toMatchObject({ run_id: run.body.run_id, attempt: 1, task_id: run.body.steps[0].task_ids[0] });
    expect(runLevel[2]).toMatchObject({ output: 'Hello from mock', agent_id: run.body.steps[0].agent_id });
    expect(runLevel[5]).toMatchObject({ output: 'Hello from mock', workflow_id: run.body.workflow_id });
    expect(stream.names).toEqual(got.map((e) => e.type)); // every frame's `event:` is its type
  });

  it('emits step_failed and run_failed when a step fails', async () => {
    const wf = { name: 'breaks', steps: [step('only', 'alpha')] };
    expect((await call(`${api}/workflows`, key, 'POST', wf)).status).toBe(201);
    const stream = await openEvents(`${api}/events?workflow_id=breaks`, key);
    mock.setBehavior({ status: 400 });
    const run = await call(`${api}/workflows/breaks/run?wait=true`, key, 'POST', {});
    mock.setBehavior({});
    expect(run.body).toMatchObject({ done: true, status: 'failed' });
    const got = (await stream.waitFor((e) => e.some((x) => x.type === ('run_failed' as never)))) as Json[];
    stream.close();
    expect(got.find((e) => e.type === 'step_failed')).toMatchObject({
      step: 'only',
      error: expect.stringContaining('failed'),
    });
    expect(got.find((e) => e.type === 'run_failed')).toMatchObject({ status: 'failed', error: run.body.error });
  });

  it('PUT changes a workflow (runs going on keep their definition); DELETE removes it, not while a run goes on', async () => {
    const wf = { name: 'editable', steps: [step('a', 'alpha')] };
    const created = (await call(`${api}/workflows`, key, 'POST', wf)).body;
    mock.setBehavior(slow());
    const running = await call(`${api}/workflows/editable/run`, key, 'POST', {});
    const changed = await call(`${api}/workflows/editable`, key, 'PUT', {
      name: 'edited',
      description: 'now two steps',
      steps: [step('a', 'alpha'), step('b', 'beta')],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: created.id, name: 'edited', created_at: created.created_at });
    expect(changed.body.updated_at).toMatch(/Z$/);
    expect((await call(`${api}/workflows/editable`, key)).status).toBe(404);
    const invalid = await call(`${api}/workflows/edited`, key, 'PUT', { name: 'edited', steps: [step('a', 'ghost')] });
    expect(invalid.status).toBe(422);
    await call(`${api}/workflows`, key, 'POST', { name: 'taken', steps: [step('a', 'alpha')] });
    expect(
      (await call(`${api}/workflows/edited`, key, 'PUT', { name: 'taken', steps: [step('a', 'alpha')] })).body.error
        .code,
    ).toBe('workflow_exists');
    const busy = await call(`${api}/workflows/edited`, key, 'DELETE');
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'workflow_running', details: { run_ids: [running.body.run_id] } });
    mock.setBehavior({});
    const done = await call(`${api}/workflows/edited/runs/${running.body.run_id}/wait?timeout_s=20`, key);
    expect(done.body.definition.map((s: Json) => s.name)).toEqual(['a']); // the definition it started with
    const del = await call(`${api}/workflows/edited`, key, 'DELETE');
    expect(del.body).toEqual({ name: 'edited', deleted: true });
    expect((await call(`${api}/workflows/edited`, key)).status).toBe(404);
    expect((await call(`${api}/workflows/edited/runs/${running.body.run_id}`, key)).status).toBe(404);
    expect((await call(`${api}/workflows/taken`, other, 'DELETE')).status).toBe(404);
  });

  it('cancels a run: the step running is stopped, the rest skipped, the run ends cancelled with run_failed', async () => {
    const wf = { name: 'cancel-me', steps: [step('long', 'alpha'), step('never', 'beta')] };
    expect((await call(`${api}/workflows`, key, 'POST', wf)).status).toBe(201);
    const stream = await openEvents(`${api}/events?workflow_id=cancel-me`, key);
    mock.setBehavior(slow(100, 50));
    const run = (await call(`${api}/workflows/cancel-me/run`, key, 'POST', {})).body;
    await stream.waitFor((e) => e.some((x) => x.type === 'output'));
    const t0 = Date.now();
    const cancelled = await call(`${api}/workflows/cancel-me/runs/${run.run_id}/cancel`, key, 'POST');
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', error: 'cancelled by request' });
    expect(cancelled.body.steps.map((s: Json) => s.status)).toEqual(['failed', 'skipped']);
    const task = (await call(`${api}/tasks/${cancelled.body.steps[0].task_ids[0]}`, key)).body;
    expect(task).toMatchObject({ status: 'stopped' });
    expect(task.result).toMatch(/^s0 /); // the stopped step keeps what it streamed
    const got = (await stream.waitFor((e) => e.some((x) => x.type === ('run_failed' as never)))) as Json[];
    stream.close();
    expect(got.find((e) => e.type === 'run_failed')).toMatchObject({ status: 'cancelled', run_id: run.run_id });
    const again = await call(`${api}/workflows/cancel-me/runs/${run.run_id}/cancel`, key, 'POST');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('run_not_running');
    mock.setBehavior({});
  });

  it('cancels a run waiting out a retry backoff at once', async () => {
    const wf = {
      name: 'retrying',
      steps: [{ ...step('flaky', 'alpha'), error_policy: 'retry', max_retries: 10 }],
    };
    expect((await call(`${api}/workflows`, key, 'POST', wf)).status).toBe(201);
    mock.setBehavior({ status: 400 });
    const run = (await call(`${api}/workflows/retrying/run`, key, 'POST', {})).body;
    await eventually(async () => {
      const r = (await call(`${api}/workflows/retrying/runs/${run.run_id}`, key)).body;
      // After the 5th failure the backoff is 2-4 s (250 ms * 2^4 with jitter): the cancel must not wait it out.
      expect(r.steps[0].errors.length).toBeGreaterThanOrEqual(5);
    }, 15_000);
    const t0 = Date.now();
    const cancelled = await call(`${api}/workflows/retrying/runs/${run.run_id}/cancel`, key, 'POST');
    expect(cancelled.body.status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(cancelled.body.steps[0].errors).toHaveLength(5); // no attempt after the cancel
    mock.setBehavior({});
  });
});

describe('swarms: change, delete, stop, run-level events', () => {
  it('emits run_started, step_started/step_completed per round and run_completed', async () => {
    const swarm = { name: 'panel', coordinator: 'lead', agents: ['member'] };
    expect((await call(`${api}/swarms`, key, 'POST', swarm)).status).toBe(201);
    const st = (await call(`${api}/swarms/panel/tasks?wait=true`, key, 'POST', { message: 'q' })).body;
    expect(st).toMatchObject({ done: true, status: 'completed' });
    const replay = await openEvents(`${api}/events?swarm_task_id=${st.id}&last_event_id=0`, key);
    const got = (await replay.waitFor((e) => e.some((x) => x.type === ('run_completed' as never)))) as Json[];
    replay.close();
    const runLevel = got.filter((e) => e.type.startsWith('run_') || e.type.startsWith('step_'));
    expect(runLevel.map((e) => [e.type, e.round ?? null])).toEqual([
      ['run_started', null],
      ['step_started', 1],
      ['step_completed', 1],
      ['run_completed', null],
    ]);
    expect(runLevel[3]).toMatchObject({ output: st.final_answer, swarm_id: st.swarm_id, swarm_task_id: st.id });
    const byName = await openEvents(`${api}/events?swarm_id=panel&last_event_id=0`, key);
    await byName.waitFor((e) => e.some((x) => x.type === ('run_completed' as never)));
    byName.close();
    expect(byName.events.every((e) => e.swarm_id === st.swarm_id)).toBe(true);
  });

  it('stops a swarm task mid-turn: status stopped, run_failed; PUT and DELETE the swarm (not while a task runs)', async () => {
    const swarm = { name: 'stoppable', coordinator: 'lead', agents: ['member'] };
    const created = (await call(`${api}/swarms`, key, 'POST', swarm)).body;
    mock.setBehavior(slow(100, 50));
    const st = (await call(`${api}/swarms/stoppable/tasks`, key, 'POST', { message: 'q' })).body;
    const busy = await call(`${api}/swarms/stoppable`, key, 'DELETE');
    expect(busy.body.error).toMatchObject({ code: 'swarm_running', details: { swarm_task_ids: [st.id] } });
    await eventually(async () => {
      const t = (await call(`${api}/swarms/stoppable/tasks/${st.id}`, key)).body;
      expect(t.rounds[0]?.coordinator_task_id).toBeTruthy();
    });
    const stopped = await call(`${api}/swarms/stoppable/tasks/${st.id}/stop`, key, 'POST');
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ status: 'stopped', error: 'stopped by request (in round 1)' });
    const coordinator = (await call(`${api}/tasks/${stopped.body.rounds[0].coordinator_task_id}`, key)).body;
    expect(coordinator.status).toBe('stopped');
    expect((await call(`${api}/swarms/stoppable/tasks/${st.id}/stop`, key, 'POST')).body.error.code).toBe(
      'swarm_task_not_running',
    );
    const events = await openEvents(`${api}/events?swarm_task_id=${st.id}&last_event_id=0`, key);
    const got = (await events.waitFor((e) => e.some((x) => x.type === ('run_failed' as never)))) as Json[];
    events.close();
    expect(got.find((e) => e.type === 'run_failed')).toMatchObject({ status: 'stopped' });
    mock.setBehavior({});

    const changed = await call(`${api}/swarms/stoppable`, key, 'PUT', {
      name: 'stoppable',
      coordinator: 'member',
      agents: ['lead', 'beta'],
      config: { max_rounds: 2 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: created.id, coordinator: 'member', config: { max_rounds: 2 } });
    expect(changed.body.agent_ids).toHaveLength(2);
    expect(
      (await call(`${api}/swarms/stoppable`, key, 'PUT', { name: 'x', coordinator: 'nobody', agents: [] })).status,
    ).toBe(422);
    expect((await call(`${api}/swarms/stoppable`, key, 'DELETE')).body).toEqual({ name: 'stoppable', deleted: true });
    expect((await call(`${api}/swarms/stoppable/tasks/${st.id}`, key)).status).toBe(404);
  });
});

describe('event frames and bugs', () => {
  it("names every frame after its type, so a real EventSource's addEventListener('output') gets the deltas", async () => {
    const id = await agent('es-agent');
    const fetchWithKey: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': key } });
    const es = new EventSource(`${api}/events`, { fetch: fetchWithKey });
    const outputs: string[] = [];
    let generic = 0;
    const completed = new Promise<MessageEvent>((resolve) => es.addEventListener('completed', resolve));
    es.addEventListener('output', (m) => outputs.push(JSON.parse(m.data).content));
    es.onmessage = () => generic++; // unnamed frames only: there are none
    await new Promise<void>((resolve, reject) => {
      es.onopen = () => resolve();
      es.onerror = () => reject(new Error('EventSource failed'));
    });
    mock.setBehavior({ tokens: ['Hello', ' there'] });
    const run = await call(`${api}/agents/${id}/run`, key, 'POST', { message: 'hi' });
    const done = await completed;
    es.close();
    expect(JSON.parse(done.data)).toMatchObject({ type: 'completed', task_id: run.body.task_id });
    expect(done.lastEventId).toMatch(/^\d+$/);
    expect(outputs).toEqual(['Hello', ' there']);
    expect(generic).toBe(0);
    mock.setBehavior({});
  });

  it('/events?workflow_id= naming no workflow (or swarm_id= no swarm) is a 404, not a stream that carries nothing forever', async () => {
    // Issue 35: before, the stream opened and stayed silent; the client could not tell a typo from a quiet workflow.
    const early = await call(`${api}/events?workflow_id=made-later`, key);
    expect(early.status).toBe(404);
    expect(early.body.error).toMatchObject({ code: 'workflow_not_found', details: null });
    expect(early.body.error.message).toContain('made-later');
    const swarm = await call(`${api}/events?swarm_id=swm_000000000000000000000000`, key);
    expect(swarm.status).toBe(404);
    expect(swarm.body.error.code).toBe('swarm_not_found');
    // Once it exists, its name is followed (looked up at each event: a rename keeps the id's events).
    const wf = { name: 'made-later', steps: [step('only', 'alpha')] };
    expect((await call(`${api}/workflows`, key, 'POST', wf)).status).toBe(201);
    const stream = await openEvents(`${api}/events?workflow_id=made-later`, key);
    expect(stream.status).toBe(200);
    const run = (await call(`${api}/workflows/made-later/run?wait=true`, key, 'POST', {})).body;
    expect(run.status).toBe('completed');
    const got = await stream.waitFor((e) => e.some((x) => x.type === ('run_completed' as never)));
    stream.close();
    expect(got.some((e) => e.type === 'completed' && e.run_id === run.run_id)).toBe(true);
    expect(got.every((e) => e.workflow_id === run.workflow_id)).toBe(true);
  });

  it('a second agent cannot take a name a workflow and a swarm use; renaming the agent keeps both working', async () => {
    const echo = await agent('echo');
    await agent('echo-member');
    expect(
      (await call(`${api}/workflows`, key, 'POST', { name: 'uses-echo', steps: [step('s', 'echo')] })).status,
    ).toBe(201);
    const sw = { name: 'echo-swarm', coordinator: 'echo', agents: ['echo-member'] };
    expect((await call(`${api}/swarms`, key, 'POST', sw)).status).toBe(201);
    const second = await call(`${api}/agents`, key, 'POST', { name: 'echo', model: 'mock-model' });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'agent_exists', details: { agent_id: echo } });
    expect((await call(`${api}/agents/${echo}`, key, 'PUT', { name: 'echo-renamed' })).status).toBe(200);
    const run = await call(`${api}/workflows/uses-echo/run?wait=true`, key, 'POST', {});
    expect(run.body).toMatchObject({ status: 'completed' });
    expect(run.body.steps[0].agent_id).toBe(echo);
    const st = await call(`${api}/swarms/echo-swarm/tasks?wait=true`, key, 'POST', { message: 'q' });
    expect(st.body).toMatchObject({ status: 'completed' });
    expect((await call(`${api}/workflows/uses-echo`, key)).body.steps[0]).toMatchObject({
      agent: 'echo',
      agent_id: echo,
    });
    await settled(`${api}/workflows/uses-echo/runs/${run.body.run_id}`, key);
  });
});
