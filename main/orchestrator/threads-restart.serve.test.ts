// Threads and the WAL across kill -9 (issue 16): a thread of three turns with `serve` killed between turns keeps
// its whole history; a long answer's output deltas are coalesced into few WAL records, still streamed one event per
// delta, and replayed after the kill with the same ids.
import { afterAll, expect, it } from 'vitest';
import { call, openEvents, type Json } from '../../test/support/agent-api.ts';
import { type AgentServeProcess, useAgentServe } from '../../test/support/agent-serve.ts';

const world = useAgentServe('sb-threads-restart-', ['acme'], { orchestrator: { workers: 2 } });
const live: AgentServeProcess[] = [];

afterAll(async () => {
  for (const sb of live) await sb.stop();
});

async function serve(): Promise<AgentServeProcess> {
  const sb = await world().serve();
  live.push(sb);
  return sb;
}

async function kill9(sb: AgentServeProcess): Promise<void> {
  sb.child.kill('SIGKILL');
  await new Promise((r) => sb.child.once('exit', r));
}

const chats = () => world().mock.requests.filter((r) => r.url === '/v1/chat/completions');

it('a thread of three turns survives kill -9 between turns: each turn sees every earlier one', async () => {
  const { mock } = world();
  const [key] = world().keys;
  let sb = await serve();
  const agentId = (
    await call(`${sb.api}/agents`, key, 'POST', { name: 'pen-pal', model: 'mock-model', tools: ['calculator'] })
  ).body.id;

  mock.setBehavior({
    script: [{ toolCall: { name: 'calculator', arguments: { expression: '6*7' } } }],
    tokens: ['42.'],
  });
  const one = await call(`${sb.api}/agents/${agentId}/run?wait=true`, key, 'POST', { message: 'Turn one: 6*7?' });
  expect(one.body).toMatchObject({ done: true, status: 'completed', result: '42.' });
  const thread = one.body.thread_id;
  await kill9(sb);

  sb = await serve();
  mock.setBehavior({ tokens: ['Two.'] });
  const two = await call(`${sb.api}/agents/${agentId}/run?wait=true`, key, 'POST', {
    message: 'Turn two',
    thread_id: thread,
  });
  expect(two.body).toMatchObject({ done: true, status: 'completed', result: 'Two.', thread_id: thread });
  await kill9(sb);

  sb = await serve();
  mock.setBehavior({ tokens: ['Three.'] });
  const three = await call(`${sb.api}/agents/${agentId}/run?wait=true`, key, 'POST', {
    message: 'Turn three',
    thread_id: thread,
  });
  expect(three.body).toMatchObject({ done: true, status: 'completed', result: 'Three.' });
  const sent = chats().at(-1)!.body.messages as Json[];
  expect(sent.map((m) => [m.role, m.content])).toEqual([
    ['user', 'Turn one: 6*7?'],
    ['assistant', null],
    ['tool', '42'],
    ['assistant', '42.'],
    ['user', 'Turn two'],
    ['assistant', 'Two.'],
    ['user', 'Turn three'],
  ]);
  const read = (await call(`${sb.api}/threads/${thread}`, key)).body;
  expect(read).toMatchObject({ turns: 3, last_task_id: three.body.task_id });
  expect(read.messages).toHaveLength(8);
  mock.setBehavior({});
  await sb.stop();
});

it('writes a 3,000-delta answer in a few WAL records, streams every delta, and replays them after kill -9', async () => {
  const { mock } = world();
  const [key] = world().keys;
  let sb = await serve();
  const agentId = (await call(`${sb.api}/agents`, key, 'POST', { name: 'talker', model: 'mock-model' })).body.id;
  const tokens = Array.from({ length: 3000 }, (_, i) => `w${i} `);
  mock.setBehavior({ tokens });
  const before = (await call(`${sb.api}/wal/status`, key)).body.total_entries;
  const stream = await openEvents(`${sb.api}/events`, key);
  const done = await call(`${sb.api}/agents/${agentId}/run?wait=true`, key, 'POST', { message: 'talk' });
  expect(done.body).toMatchObject({ done: true, status: 'completed', result: tokens.join('') });
  await stream.waitFor((e) => e.some((x) => x.type === 'completed' && x.task_id === done.body.task_id));
  stream.close();
  const records = (await call(`${sb.api}/wal/status`, key)).body.total_entries - before;
  // Task, thread and agent records, progress, the end; the 3,000 deltas in a handful (3,007 before coalescing).
  expect(records).toBeLessThan(60);
  const outputs = stream.events.filter((e) => e.type === 'output' && e.task_id === done.body.task_id);
  expect(outputs).toHaveLength(3000);
  expect(outputs.map((e) => e.content).join('')).toBe(tokens.join(''));
  await kill9(sb);

  sb = await serve();
  const replay = await openEvents(`${sb.api}/events`, key, outputs[0]!.id - 1);
  await replay.waitFor((e) => e.some((x) => x.type === 'completed' && x.task_id === done.body.task_id));
  replay.close();
  const replayed = replay.events.filter((e) => e.task_id === done.body.task_id && e.type === 'output');
  expect(replayed).toEqual(outputs);
  mock.setBehavior({});
});
