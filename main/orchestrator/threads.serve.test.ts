// Threads (issue 16) through `switchboard serve` over real HTTP: a run starts a thread, thread_id continues it with
// its history (user messages, answers, tool calls and results), the one-run rule per thread and the window for new
// threads, listing/reading/deleting threads; and the task list's offset, deleting tasks, unique agent names.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type Json } from '../../test/support/agent-api.ts';
import { useAgentServe } from '../../test/support/agent-serve.ts';
import type { MockProvider } from '../../test/support/mock-provider.ts';
import { eventually } from '../../test/support/serve-process.ts';

const WINDOW_MS = 1500;
const world = useAgentServe('sb-threads-', ['acme', 'globex'], {
  orchestrator: { workers: 4, run_window_ms: WINDOW_MS },
});
let mock: MockProvider;
let key = '';
let other = '';
let api = '';

const agent = async (name: string, tools: string[] = []) => {
  const r = await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model', tools, system_prompt: 'Be brief.' });
  expect(r.status).toBe(201);
  return r.body.id as string;
};
const run = (agentId: string, body: Json, query = '?wait=true&timeout_s=20') =>
  call(`${api}/agents/${agentId}/run${query}`, key, 'POST', body);
const chats = () => mock.requests.filter((r) => r.url === '/v1/chat/completions');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  ({ mock } = world());
  [key, other] = world().keys;
  ({ api } = await world().serve());
}, 30_000);

describe('threads', () => {
  it('a run starts a thread and says its id; thread_id goes on with the history, tool calls and results included', async () => {
    const id = await agent('tutor', ['calculator']);
    mock.setBehavior({
      script: [{ toolCall: { name: 'calculator', arguments: { expression: '2+2' } } }],
      tokens: ['It is 4.'],
    });
    const first = await run(id, { message: 'What is 2+2?' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ done: true, status: 'completed', result: 'It is 4.' });
    const thread = first.body.thread_id as string;
    expect(thread).toMatch(/^thr_[a-f0-9]{24}$/);

    mock.setBehavior({ tokens: ['Doubled: 8.'] });
    await sleep(50);
    const second = await run(id, { message: 'And doubled?', thread_id: thread });
    expect(second.body).toMatchObject({ done: true, status: 'completed', result: 'Doubled: 8.', thread_id: thread });
    // The second model call saw the whole first turn before the new message.
    const sent = chats().at(-1)!.body.messages as Json[];
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[1].content).toBe('What is 2+2?');
    expect(sent[2].tool_calls[0].function).toEqual({ name: 'calculator', arguments: '{"expression":"2+2"}' });
    expect(sent[3]).toMatchObject({ role: 'tool', content: '4', tool_call_id: sent[2].tool_calls[0].id });
    expect(sent[4]).toEqual({ role: 'assistant', content: 'It is 4.' });
    expect(sent[5].content).toBe('And doubled?');

    const read = await call(`${api}/threads/${thread}`, key);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: thread, agent_id: id, turns: 2, last_task_id: second.body.task_id });
    // Issue 35: the list said message_count, the thread itself did not.
    expect(read.body.message_count).toBe(read.body.messages.length);
    expect(read.body.message_count).toBe(6);
    expect(read.body.messages.map((m: Json) => [m.role, m.task_id])).toEqual([
      ['user', first.body.task_id],
      ['assistant', first.body.task_id],
      ['tool', first.body.task_id],
      ['assistant', first.body.task_id],
      ['user', second.body.task_id],
      ['assistant', second.body.task_id],
    ]);
    const list = await call(`${api}/threads?agent_id=${id}`, key);
    expect(list.body).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(list.body.data[0]).toMatchObject({ id: thread, message_count: 6, turns: 2 });
    expect(list.body.data[0].messages).toBeUndefined();
    const tasks = await call(`${api}/tasks?thread_id=${thread}`, key);
    expect(tasks.body.data.map((t: Json) => t.task_id)).toEqual([second.body.task_id, first.body.task_id]);
    expect((await call(`${api}/threads/${thread}`, other)).body.error.code).toBe('thread_not_found');
    mock.setBehavior({});
  });

  it('a failed run adds nothing to its thread', async () => {
    const id = await agent('flaky');
    const first = await run(id, { message: 'one' });
    const thread = first.body.thread_id;
    mock.setBehavior({ status: 400 }); // a refusal: no failover, the task fails
    const failed = await run(id, { message: 'two', thread_id: thread });
    expect(failed.body).toMatchObject({ done: true, status: 'failed' });
    mock.setBehavior({});
    const read = (await call(`${api}/threads/${thread}`, key)).body;
    expect(read).toMatchObject({ turns: 1, last_task_id: first.body.task_id });
    expect(read.messages.map((m: Json) => m.content)).toEqual(['one', 'Hello from mock']);
  });

  it('one run at a time per thread (409 agent_busy); two threads of one agent run at once; the window holds new threads', async () => {
    const id = await agent('busy');
    mock.setBehavior({ tokens: Array.from({ length: 30 }, (_, i) => `w${i} `), chunkDelayMs: 100 });
    const a = await run(id, { message: 'slow one' }, '');
    expect(a.status).toBe(200);
    expect(a.body.thread_id).toMatch(/^thr_/);
    const again = await run(id, { message: 'next turn', thread_id: a.body.thread_id }, '');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'agent_busy',
      details: { thread_id: a.body.thread_id, running_task_id: a.body.task_id },
    });
    const windowed = await run(id, { message: 'a new thread too soon' }, '');
    expect(windowed.status).toBe(409);
    expect(windowed.body.error.details.retry_after_seconds).toBeGreaterThan(0);
    expect(windowed.headers.get('retry-after')).toBeTruthy();
    await sleep(WINDOW_MS + 100);
    const b = await run(id, { message: 'another thread' }, '');
    expect(b.status).toBe(200);
    expect(b.body.thread_id).not.toBe(a.body.thread_id);
    const both = await eventually(async () => {
      const list = (await call(`${api}/tasks?agent_id=${id}&status=running`, key)).body;
      expect(list.total).toBe(2);
      return list;
    });
    expect(both.data.map((t: Json) => t.thread_id).sort()).toEqual([a.body.thread_id, b.body.thread_id].sort());
    expect((await call(`${api}/threads/${a.body.thread_id}`, key, 'DELETE')).body.error).toMatchObject({
      code: 'thread_busy',
      details: { task_id: a.body.task_id },
    });
    const waited = await call(`${api}/tasks/${a.body.task_id}/wait?timeout_s=20`, key);
    expect(waited.body).toMatchObject({ done: true, status: 'completed' });
    // A thread's next turn is not held by the window: it goes on as soon as the turn before it ends.
    mock.setBehavior({});
    const next = await run(id, { message: 'next turn', thread_id: a.body.thread_id });
    expect(next.body).toMatchObject({ done: true, status: 'completed' });
    await call(`${api}/tasks/${b.body.task_id}/wait?timeout_s=20`, key);
  });

  // Issue 35: a client could not retry a run safely, and the window throttled every new conversation of a busy agent.
  it('Idempotency-Key: a retry gets the same task back (Idempotent-Replayed), new keys are not held to the window, another body is 422', async () => {
    const id = await agent('keyed');
    const post = (body: Json, idempotencyKey?: string) =>
      fetch(`${api}/agents/${id}/run`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as Json }));
    const first = await post({ message: 'one' }, 'conv-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same request again (a client that lost the answer): the same task, said to be a replay.
    const retry = await post({ message: 'one' }, 'conv-1');
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ task_id: first.body.task_id, thread_id: first.body.thread_id });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    // Other keys are other conversations: not held to the 15 s window of new threads.
    const second = await post({ message: 'two' }, 'conv-2');
    const third = await post({ message: 'three' }, 'conv-3');
    expect([second.status, third.status]).toEqual([200, 200]);
    expect(new Set([first.body.task_id, second.body.task_id, third.body.task_id]).size).toBe(3);
    // Without a key the window still holds (the agent started a new thread a moment ago).
    expect((await post({ message: 'no key' })).status).toBe(409);
    const reused = await post({ message: 'something else' }, 'conv-1');
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({
      code: 'idempotency_key_reused',
      details: { task_id: first.body.task_id },
    });
    const bad = await post({ message: 'x' }, 'has spaces in it');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('Idempotency-Key');
    expect((await call(`${api}/tasks/${first.body.task_id}`, key)).body.idempotency_key).toBe('conv-1');
    for (const t of [first, second, third]) await call(`${api}/tasks/${t.body.task_id}/wait?timeout_s=20`, key);
  });

  it("refuses an unknown thread (404) and another agent's thread (400); deletes threads, and an agent takes its threads along", async () => {
    const id = await agent('owner');
    const intruder = await agent('intruder');
    const t = await run(id, { message: 'hi' });
    const unknown = await run(id, { message: 'x', thread_id: 'thr_000000000000000000000000' }, '');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('thread_not_found');
    const foreign = await run(intruder, { message: 'x', thread_id: t.body.thread_id }, '');
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details).toEqual([
      { field: 'thread_id', message: expect.stringContaining(`belongs to agent ${id}`) },
    ]);
    const del = await call(`${api}/threads/${t.body.thread_id}`, key, 'DELETE');
    expect(del.body).toEqual({ id: t.body.thread_id, deleted: true });
    expect((await call(`${api}/threads/${t.body.thread_id}`, key)).status).toBe(404);
    expect((await call(`${api}/tasks/${t.body.task_id}`, key)).status).toBe(200); // its tasks stay

    await sleep(WINDOW_MS);
    const kept = await run(id, { message: 'again' });
    expect((await call(`${api}/agents/${id}`, key, 'DELETE')).status).toBe(200);
    expect((await call(`${api}/threads/${kept.body.thread_id}`, key)).status).toBe(404);
  });
});

describe('tasks and agents', () => {
  it('GET /tasks pages with offset; DELETE /tasks/:id removes a task that is over, not one that runs', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const a = await agent(`pager-${i}`);
      ids.push((await run(a, { message: `task ${i}` })).body.task_id);
    }
    const newest = ids.slice().reverse();
    const page1 = await call(`${api}/tasks?limit=2&offset=0`, key);
    const page2 = await call(`${api}/tasks?limit=2&offset=2`, key);
    expect(page1.body).toMatchObject({ limit: 2, offset: 0 });
    expect(page2.body).toMatchObject({ limit: 2, offset: 2, total: page1.body.total });
    expect(page1.body.data.map((t: Json) => t.task_id)).toEqual(newest.slice(0, 2));
    expect(page2.body.data.map((t: Json) => t.task_id)).toEqual(newest.slice(2, 4));
    expect((await call(`${api}/tasks?offset=-1`, key)).body.error.details).toEqual([
      { field: 'offset', message: expect.any(String) },
    ]);

    const del = await call(`${api}/tasks/${ids[0]}`, key, 'DELETE');
    expect(del.body).toEqual({ id: ids[0], deleted: true });
    expect((await call(`${api}/tasks/${ids[0]}`, key)).status).toBe(404);
    expect((await call(`${api}/tasks/${ids[1]}`, other, 'DELETE')).status).toBe(404);

    const slow = await agent('slow-delete');
    mock.setBehavior({ tokens: ['a', 'b', 'c'], chunkDelayMs: 300 });
    const running = await run(slow, { message: 'slow' }, '');
    const refused = await call(`${api}/tasks/${running.body.task_id}`, key, 'DELETE');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'task_running', details: { task_id: running.body.task_id } });
    mock.setBehavior({});
    await call(`${api}/tasks/${running.body.task_id}/wait?timeout_s=20`, key);
  });

  it('agent names are unique per tenant: 409 agent_exists on create and on a rename; another tenant may use it', async () => {
    await agent('unique');
    const dup = await call(`${api}/agents`, key, 'POST', { name: 'unique', model: 'mock-model' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'agent_exists', details: { name: 'unique' } });
    const b = await agent('unique-2');
    const rename = await call(`${api}/agents/${b}`, key, 'PUT', { name: 'unique' });
    expect(rename.status).toBe(409);
    expect((await call(`${api}/agents/${b}`, key, 'PUT', { name: 'unique-2', model: 'mock-model' })).status).toBe(200);
    expect((await call(`${api}/agents`, other, 'POST', { name: 'unique', model: 'mock-model' })).status).toBe(201);
  });
});
