// The agent API through `switchboard serve` over real HTTP, with the mock provider returning tool calls.
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, cli, createKey, openEvents } from '../../test/support/agent-api.ts';
import { type AgentServeProcess, useAgentServe } from '../../test/support/agent-serve.ts';
import type { MockProvider } from '../../test/support/mock-provider.ts';
import { eventually } from '../../test/support/serve-process.ts';

const world = useAgentServe('sb-agents-', ['acme', 'globex'], {
  orchestrator: {
    queue_capacity: 5,
    workers: 1,
    sse_heartbeat_ms: 300,
    http_get: { allow_hosts: ['127.0.0.1'] },
    approvals: { http_get: 'auto' }, // these tests are about the tool, not about asking (approvals.serve.test.ts)
  },
});
let mock: MockProvider;
let sb: AgentServeProcess;
let hang: http.Server;
let hangClosed = 0;
let hangUrl = '';
let keyA = '';
let keyB = '';
let api = '';

const agentBody = (name: string, tools: string[] = []) => ({
  name,
  system_prompt: 'You are terse.',
  model: 'mock-model',
  tools,
  config: { max_tokens: 256, temperature: 0.2, max_iterations: 4 },
});

beforeAll(async () => {
  hang = http.createServer((req) => req.socket.once('close', () => hangClosed++));
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
  hangUrl = `http://127.0.0.1:${(hang.address() as { port: number }).port}/slow`;
  ({ mock } = world());
  [keyA, keyB] = world().keys;
  sb = await world().serve();
  ({ api } = sb);
}, 30_000);

afterAll(async () => {
  hang?.closeAllConnections();
  await new Promise((r) => hang?.close(r));
});

describe('keys and auth', () => {
  it('creates keys of the spec format, lists them without the key, and answers 401 unauthorized without a valid one', async () => {
    expect(keyA).toMatch(/^sk-agent-[a-f0-9]{64}$/);
    const list = await cli(['keys', 'list', '--config', sb.configPath]);
    expect(list).toMatch(/key_[a-f0-9]+\tacme\t/);
    expect(list).not.toContain(keyA);
    const stored = await fs.readFile(path.join(sb.dir, 'agent-keys.json'), 'utf8');
    expect(stored).not.toContain(keyA.slice(9));
    expect((await fs.stat(path.join(sb.dir, 'agent-keys.json'))).mode & 0o777).toBe(0o600);
    for (const key of [null, 'sk-agent-123', `sk-agent-${'0'.repeat(64)}`]) {
      const r = await call(`${api}/agents`, key);
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ code: 'unauthorized', details: null });
    }
  });

  it('revokes a key while serve runs', async () => {
    const key = await createKey(sb.configPath, 'temp');
    expect((await call(`${api}/agents`, key)).status).toBe(200);
    const id = /^(key_[a-f0-9]+)\ttemp/m.exec(await cli(['keys', 'list', '--config', sb.configPath]))![1]!;
    expect(await cli(['keys', 'revoke', id, '--config', sb.configPath])).toContain('revoked');
    expect((await call(`${api}/agents`, key)).status).toBe(401);
  });

  it('serves health and metrics without a key', async () => {
    const h = await call(`${api}/health`, null);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({
      status: 'ok',
      wal: { status: 'ok', corrupted_entries: 0 },
      providers: { total: 1 },
    });
    const m = await call(`${api}/metrics`, null);
    expect(m.status).toBe(200);
    for (const name of [
      'switchboard_http_requests_total',
      'switchboard_agent_queue_depth',
      'switchboard_agent_tasks',
      'switchboard_wal_total_entries',
      'switchboard_event_subscribers',
    ]) {
      expect(m.body).toContain(name);
    }
  });
});

describe('agents', () => {
  it('creates, lists, reads, updates and deletes; validates each field', async () => {
    const c = await call(`${api}/agents`, keyA, 'POST', agentBody('crud'));
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ name: 'crud', status: 'idle' });
    expect(c.body.id).toMatch(/^agt_[a-f0-9]+$/);
    expect(c.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = c.body.id;

    const bad = await call(`${api}/agents`, keyA, 'POST', { name: '', model: 7, config: { max_iterations: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'config.max_iterations',
      'model',
      'name',
    ]);
    const tool = await call(`${api}/agents`, keyA, 'POST', agentBody('x', ['calculator', 'rm_rf']));
    expect(tool.status).toBe(400);
    expect(tool.body.error.details).toEqual([expect.objectContaining({ field: 'tools.1' })]);
    expect((await call(`${api}/agents`, keyA, 'POST', '{not json')).status).toBe(400);

    const list = await call(`${api}/agents?status=idle&limit=1&offset=0`, keyA);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ limit: 1, offset: 0 });
    expect(list.body.data).toHaveLength(1);
    const badList = await call(`${api}/agents?limit=101&status=sleepy`, keyA);
    expect(badList.status).toBe(400);
    expect(badList.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['limit', 'status']);

    expect((await call(`${api}/agents/${id}`, keyA)).body).toMatchObject({ id, model: 'mock-model', tools: [] });
    const put = await call(`${api}/agents/${id}`, keyA, 'PUT', { system_prompt: 'new', config: { temperature: 1 } });
    expect(put.body).toMatchObject({ system_prompt: 'new', config: { temperature: 1, max_tokens: 256 } });
    expect((await call(`${api}/agents/${id}`, keyA, 'PUT', { tools: ['nope'] })).status).toBe(400);

    expect((await call(`${api}/agents/${id}`, keyB)).body.error.code).toBe('agent_not_found');
    expect((await call(`${api}/agents/${id}`, keyA, 'DELETE')).status).toBe(200);
    const gone = await call(`${api}/agents/${id}`, keyA);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'agent_not_found', details: null });
    expect((await call(`${api}/agents/agt_nope/run`, keyA, 'POST', { message: 'hi' })).status).toBe(404);
  });
});

// Issue 35: a missing model was told in zod's words ("Invalid input: expected string, received undefined").
it('a missing name, model or message says it is required and what it is for', async () => {
  const noModel = await call(`${api}/agents`, keyA, 'POST', { name: 'modelless' });
  expect(noModel.status).toBe(400);
  const problem = noModel.body.error.details.find((d: { field: string }) => d.field === 'model');
  expect(problem.message).toMatch(/^is required: the model the agent's calls use, e\.g\. "gpt-4o-mini"/);
  expect(noModel.body.error.message).not.toContain('expected string');
  const noName = await call(`${api}/agents`, keyA, 'POST', { model: 'm' });
  expect(noName.body.error.details[0]).toMatchObject({ field: 'name', message: expect.stringMatching(/^is required/) });
  const wrongType = await call(`${api}/agents`, keyA, 'POST', { name: 'x', model: 7 });
  expect(wrongType.body.error.details[0].message).toMatch(/^must be text: the model/);
  const a = (await call(`${api}/agents`, keyA, 'POST', agentBody('messageless'))).body;
  const noMessage = await call(`${api}/agents/${a.id}/run`, keyA, 'POST', { context: {} });
  expect(noMessage.body.error.details[0]).toMatchObject({
    field: 'message',
    message: expect.stringMatching(/^is required/),
  });
  await call(`${api}/agents/${a.id}`, keyA, 'DELETE');
});

describe('tasks and events', () => {
  let firstEventId = 0;
  let taskId = '';

  it('runs a tool-using task: tool_call, tool_result, output, completed; the result, timings and usage are on the task', async () => {
    const events = await openEvents(`${api}/events`, keyA);
    const other = await openEvents(`${api}/events`, keyB);
    expect(events.status).toBe(200);
    const agent = (await call(`${api}/agents`, keyA, 'POST', agentBody('math', ['calculator']))).body;
    mock.setBehavior({
      script: [{ toolCall: { name: 'calculator', arguments: { expression: '6 * 7' } } }],
      tokens: ['The answer', ' is 42'],
    });
    const run = await call(`${api}/agents/${agent.id}/run`, keyA, 'POST', {
      message: 'What is 6*7?',
      context: { output_format: 'text', max_length: 100 },
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'running', agent_id: agent.id });
    expect(run.body.task_id).toMatch(/^tsk_[a-f0-9]+$/);
    taskId = run.body.task_id;
    const got = await events.waitFor((e) => e.some((x) => x.type === 'completed'));
    expect(got.map((e) => e.type)).toEqual(['tool_call', 'tool_result', 'output', 'output', 'completed']);
    expect(got[0]).toMatchObject({ tool: 'calculator', input: { expression: '6 * 7' }, task_id: taskId });
    expect(got[1]).toMatchObject({ tool: 'calculator', output: '42' });
    expect(got.slice(2, 4).map((e) => e.content)).toEqual(['The answer', ' is 42']); // streamed as the model sends it
    expect(got[4]).toMatchObject({ task_id: taskId });
    expect(events.ids).toEqual(got.map((e) => String(e.id)));
    firstEventId = got[0]!.id;
    // The second model call saw the tool result; the first carried the system prompt, the context and the tool schema.
    const chats = mock.requests.filter((r) => r.url === '/v1/chat/completions').slice(-2);
    expect(chats[0]!.body.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(chats[0]!.body.messages[1].content).toContain('Keep the answer under 100 characters');
    expect(chats[0]!.body.tools[0].function.name).toBe('calculator');
    expect(chats[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: '42' });

    const task = await call(`${api}/tasks/${taskId}`, keyA);
    expect(task.body).toMatchObject({
      status: 'completed',
      result: 'The answer is 42',
      error: null,
      iterations: 2,
      stop_reason: 'final_answer',
    });
    expect(task.body.usage.total_tokens).toBeGreaterThan(0);
    expect(Date.parse(task.body.finished_at)).toBeGreaterThanOrEqual(Date.parse(task.body.started_at));
    expect((await call(`${api}/agents/${agent.id}`, keyA)).body.status).toBe('completed');
    const list = await call(`${api}/tasks?agent_id=${agent.id}&status=completed&limit=5`, keyA);
    expect(list.body.data.map((t: { task_id: string }) => t.task_id)).toEqual([taskId]);
    expect((await call(`${api}/tasks?status=bogus`, keyA)).status).toBe(400);
    expect((await call(`${api}/tasks/${taskId}`, keyB)).status).toBe(404);

    // 409 within 15 s, saying when it may run again.
    const again = await call(`${api}/agents/${agent.id}/run`, keyA, 'POST', { message: 'again' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('agent_busy');
    expect(Date.parse(again.body.error.details.available_at)).toBeGreaterThan(Date.now());
    expect(again.body.error.details.retry_after_seconds).toBeGreaterThan(0);
    expect((await call(`${api}/tasks/${taskId}/stop`, keyA, 'POST')).body.error.code).toBe('task_not_running');

    // Tenant isolation: the other tenant's stream saw nothing; it may not ask for another tenant.
    await new Promise((r) => setTimeout(r, 400));
    expect(other.events).toEqual([]);
    expect(other.comments).toContain('heartbeat');
    expect((await call(`${api}/events?tenant=acme`, keyB)).status).toBe(403);
    events.close();
    other.close();
  });

  it('replays exactly the missed events to a client that reconnects with Last-Event-ID', async () => {
    const replay = await openEvents(`${api}/events`, keyA, firstEventId);
    const got = await replay.waitFor((e) => e.length >= 4);
    await new Promise((r) => setTimeout(r, 100));
    expect(replay.events.map((e) => e.type)).toEqual(['tool_result', 'output', 'output', 'completed']);
    expect(replay.events.every((e) => e.task_id === taskId && e.id > firstEventId)).toBe(true);
    expect(got[0]!.id).toBe(firstEventId + 1);
    replay.close();
    const otherTenant = await openEvents(`${api}/events`, keyB, 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(otherTenant.events).toEqual([]);
    otherTenant.close();
  });

  it("stops a task mid-tool at once: the tool's request is cancelled, the task is stopped, the agent idle", async () => {
    const events = await openEvents(`${api}/events`, keyA);
    const agent = (await call(`${api}/agents`, keyA, 'POST', agentBody('fetcher', ['http_get']))).body;
    mock.setBehavior({ script: [{ toolCall: { name: 'http_get', arguments: { url: hangUrl } } }] });
    const closedBefore = hangClosed;
    const run = await call(`${api}/agents/${agent.id}/run`, keyA, 'POST', { message: 'fetch it' });
    await events.waitFor((e) => e.some((x) => x.type === 'tool_call'));
    const del = await call(`${api}/agents/${agent.id}`, keyA, 'DELETE');
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: 'agent_running', details: { task_id: run.body.task_id } });
    const t0 = Date.now();
    const stop = await call(`${api}/tasks/${run.body.task_id}/stop`, keyA, 'POST');
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(stop.body).toMatchObject({ status: 'stopped', task_id: run.body.task_id });
    await events.waitFor((e) => e.some((x) => x.type === 'stopped'));
    await new Promise((r) => setTimeout(r, 100));
    expect(hangClosed).toBeGreaterThan(closedBefore);
    expect(events.events.map((e) => e.type)).toEqual(['tool_call', 'stopped']);
    expect((await call(`${api}/agents/${agent.id}`, keyA)).body.status).toBe('idle');
    expect((await call(`${api}/agents/${agent.id}`, keyA, 'DELETE')).status).toBe(200);
    events.close();
  });

  it("refuses an http_get to Switchboard itself through IPv4-mapped IPv6: the refusal is the tool's result", async () => {
    const events = await openEvents(`${api}/events`, keyA);
    const agent = (await call(`${api}/agents`, keyA, 'POST', agentBody('ssrf', ['http_get']))).body;
    const url = `http://[::ffff:127.0.0.1]:${sb.port}/admin/v1/status`; // allow_hosts has 127.0.0.1, not this spelling
    mock.setBehavior({ script: [{ toolCall: { name: 'http_get', arguments: { url } } }], tokens: ['refused'] });
    const run = await call(`${api}/agents/${agent.id}/run`, keyA, 'POST', { message: 'fetch your own status' });
    const got = await events.waitFor((e) => e.some((x) => x.type === 'completed' && x.task_id === run.body.task_id));
    const result = got.find((e) => e.type === 'tool_result' && e.task_id === run.body.task_id);
    expect(result?.output).toMatch(/^error: \[::ffff:7f00:1\] is a loopback address \(IPv4-mapped 127\.0\.0\.1\);/);
    expect(result?.output).toContain('orchestrator.http_get.allow_hosts');
    mock.setBehavior({});
    events.close();
  });

  it('ends at config.max_iterations with a result that says the limit was hit', async () => {
    const agent = (
      await call(`${api}/agents`, keyA, 'POST', {
        ...agentBody('looper', ['current_time']),
        config: { max_iterations: 2 },
      })
    ).body;
    mock.setBehavior({ toolCall: { name: 'current_time', arguments: {} } });
    const run = await call(`${api}/agents/${agent.id}/run`, keyA, 'POST', { message: 'loop' });
    const task = await eventually(async () => {
      const t = (await call(`${api}/tasks/${run.body.task_id}`, keyA)).body;
      expect(t.status).toBe('completed');
      return t;
    });
    expect(task).toMatchObject({ stop_reason: 'max_iterations', iterations: 2 });
    expect(task.result).toMatch(/max_iterations \(2\)/);
    mock.setBehavior({});
  });

  it('answers 429 queue_full with Retry-After: 5 once the queue is 80 % full', async () => {
    mock.setBehavior({ firstByteDelayMs: 20_000 });
    const agents = [];
    for (let i = 0; i < 6; i++) agents.push((await call(`${api}/agents`, keyA, 'POST', agentBody(`q${i}`))).body.id);
    const tasks: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call(`${api}/agents/${agents[i]}/run`, keyA, 'POST', { message: 'slow' });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe(i === 0 ? 'running' : 'queued');
      tasks.push(r.body.task_id);
    }
    const full = await call(`${api}/agents/${agents[5]}/run`, keyA, 'POST', { message: 'one too many' });
    expect(full.status).toBe(429);
    expect(full.headers.get('retry-after')).toBe('5');
    expect(full.body.error.code).toBe('queue_full');
    const m = await call(`${api}/metrics`, null);
    expect(m.body).toMatch(/switchboard_agent_queue_depth 4/);
    for (const t of tasks.reverse())
      expect((await call(`${api}/tasks/${t}/stop`, keyA, 'POST')).body.status).toBe('stopped');
    mock.setBehavior({});
  });
});

describe('WAL endpoints', () => {
  it('reports status and compacts', async () => {
    const s = await call(`${api}/wal/status`, keyA);
    expect(s.status).toBe(200);
    expect(Object.keys(s.body).sort()).toEqual([
      'buffer_usage',
      'corrupted_entries',
      'last_compaction',
      'pending_entries',
      'total_entries',
    ]);
    expect(s.body.total_entries).toBeGreaterThan(0);
    const c = await call(`${api}/wal/compact`, keyA, 'POST');
    expect(c.status).toBe(200);
    expect(c.body.status.total_entries).toBe(0);
    expect(c.body.status.last_compaction).toMatch(/Z$/);
    expect((await call(`${api}/wal/status`, null)).status).toBe(401);
    const nf = await call(`${api}/nothing-here`, keyA);
    expect(nf.status).toBe(404);
  });
});
