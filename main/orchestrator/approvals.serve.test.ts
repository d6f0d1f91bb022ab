// Approvals through `switchboard serve` and the agent API: a call whose policy is `ask` waits for a person (approve,
// deny, approve with edited arguments), a timeout denies it, stop ends the wait, and kill -9 while waiting loses
// nothing: after the restart the approval can still be given and the task goes on from that call.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type EventStream, type Json, openEvents } from '../../test/support/agent-api.ts';
import { type AgentServeProcess, settled, useAgentServe } from '../../test/support/agent-serve.ts';
import { configFor, eventually } from '../../test/support/serve-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOG = path.join(os.tmpdir(), `sb-approvals-mcp-${process.pid}.log`);
const mcpServers = {
  t: {
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'test/support/mcp-test-server.ts')],
    cwd: ROOT,
    env: { MCP_TEST_LOG: LOG },
  },
};
const orchestrator = { run_window_ms: 0, workers: 2, sse_heartbeat_ms: 300, approvals: { calculator: 'ask' } };
const world = useAgentServe('sb-approvals-', ['acme', 'globex'], { orchestrator, mcp_servers: mcpServers });

let sb: AgentServeProcess;
let api = '';
let key = '';
let other = '';
let events: EventStream;

beforeAll(async () => {
  [key, other] = world().keys;
  sb = await world().serve();
  api = sb.api;
  events = await openEvents(`${api}/events`, key);
}, 30_000);

afterAll(async () => {
  events?.close();
  await fs.rm(LOG, { force: true });
});

const workspace = (agentId: string) => path.join(world().dir, 'data', 'workspaces', agentId);

async function agent(name: string, tools: string[], approvals?: Record<string, string>) {
  const body = { name, model: 'mock-model', tools, ...(approvals ? { approvals } : {}) };
  return (await call(`${api}/agents`, key, 'POST', body)).body.id as string;
}

/** Starts a run whose model calls these tools (one per turn), then answers "done". */
async function start(agentId: string, script: { name: string; arguments: object }[]): Promise<string> {
  world().mock.setBehavior({ script: script.map((toolCall) => ({ toolCall })), tokens: ['done'] });
  const r = await call(`${api}/agents/${agentId}/run`, key, 'POST', { message: 'go' });
  expect(r.status).toBe(200);
  return r.body.task_id;
}

const of = (taskId: string, stream = events) => stream.events.filter((e) => e.task_id === taskId);
const asked = (taskId: string, n = 1, stream = events) =>
  stream.waitFor((e) => e.filter((x) => x.task_id === taskId && x.type === 'approval_required').length >= n);
const decide = (taskId: string, callId: string, body: unknown, k = key, base = api) =>
  call(`${base}/tasks/${taskId}/approvals/${callId}`, k, 'POST', body);

describe('asking a person', () => {
  it('write_file asks by default: the call is recorded and listed, the task waits running, approve runs it', async () => {
    const id = await agent('writer', ['write_file', 'read_file']);
    const task = await start(id, [{ name: 'write_file', arguments: { path: 'a.txt', content: 'hello' } }]);
    await asked(task);
    const required = of(task).find((e) => e.type === 'approval_required')!;
    expect(required).toMatchObject({
      call_id: 'call_mock1',
      tool: 'write_file',
      arguments: { path: 'a.txt', content: 'hello' },
      agent_id: id,
    });
    expect(Date.parse(required.expires_at!) - Date.parse(required.time)).toBeGreaterThan(590_000); // 600 s default
    expect((await call(`${api}/tasks/${task}`, key)).body.status).toBe('running');
    const pending = (await call(`${api}/approvals?status=pending`, key)).body.data;
    expect(pending).toEqual([
      expect.objectContaining({ task_id: task, call_id: 'call_mock1', tool: 'write_file', status: 'pending' }),
    ]);
    expect(pending[0].resume).toBeUndefined(); // the loop's state stays inside
    expect((await call(`${api}/approvals?status=pending`, other)).body.data).toEqual([]);
    await expect(fs.access(path.join(workspace(id), 'a.txt'))).rejects.toThrow();

    const ok = await decide(task, 'call_mock1', { decision: 'approve', reason: 'fine' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'approved', reason: 'fine', edited_arguments: null });
    expect(await settled(`${api}/tasks/${task}`, key)).toMatchObject({ status: 'completed', result: 'done' });
    expect(await fs.readFile(path.join(workspace(id), 'a.txt'), 'utf8')).toBe('hello');
    expect(of(task).map((e) => e.type)).toEqual([
      'tool_call',
      'approval_required',
      'approval_decided',
      'tool_result',
      'output',
      'completed',
    ]);
    expect(of(task)[2]).toMatchObject({ decision: 'approved', call_id: 'call_mock1', arguments: { content: 'hello' } });
    const again = await decide(task, 'call_mock1', { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'approval_not_pending', details: { status: 'approved' } });
    expect((await call(`${api}/tasks/${task}/approvals`, key)).body.data).toHaveLength(1);
  });

  it('a call waiting for approval is a notification (GET /admin/v1/events; the desktop app shows it)', async () => {
    const ac = new AbortController();
    const res = await sb.admin('/events', { signal: ac.signal });
    const seen: Json[] = [];
    void (async () => {
      let buf = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += Buffer.from(chunk).toString();
        for (let cut = buf.indexOf('\n\n'); cut !== -1; cut = buf.indexOf('\n\n')) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (/^event: notification$/m.test(block) && data) seen.push(JSON.parse(data));
        }
      }
    })().catch(() => {});
    const id = await agent('notifier', ['write_file']);
    const task = await start(id, [{ name: 'write_file', arguments: { path: 'n.txt', content: 'x' } }]);
    await asked(task);
    const note = await eventually(() => {
      const n = seen.find((x) => x.kind === 'approval_required');
      expect(n).toBeDefined();
      return n;
    });
    ac.abort();
    expect(note).toMatchObject({ title: 'Agent "notifier" asks to run write_file' });
    expect(note.message).toContain(`(task ${task})`);
    await decide(task, 'call_mock1', { decision: 'deny' });
    await settled(`${api}/tasks/${task}`, key);
  });

  it('deny (with a reason): nothing runs, and the model is told it was denied and why', async () => {
    const id = await agent('denied', ['write_file']);
    const task = await start(id, [{ name: 'write_file', arguments: { path: 'no.txt', content: 'x' } }]);
    await asked(task);
    const r = await decide(task, 'call_mock1', { decision: 'deny', reason: 'not in my home folder' });
    expect(r.body).toMatchObject({ status: 'denied', reason: 'not in my home folder' });
    await settled(`${api}/tasks/${task}`, key);
    const result = of(task).find((e) => e.type === 'tool_result')!;
    expect(result.output).toBe(
      'error: a person denied this call: not in my home folder. It was not run; do not retry it unless asked to.',
    );
    const chats = world().mock.requests.filter((q) => q.url === '/v1/chat/completions');
    expect(chats.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: result.output });
    await expect(fs.access(path.join(workspace(id), 'no.txt'))).rejects.toThrow();
  });

  it('approve with edited arguments: the call runs with them, and the model is told so', async () => {
    const id = await agent('edited', ['write_file']);
    const task = await start(id, [{ name: 'write_file', arguments: { path: 'draft.txt', content: 'rm -rf' } }]);
    await asked(task);
    const edit = { path: 'final.txt', content: 'reviewed' };
    const r = await decide(task, 'call_mock1', { decision: 'approve', arguments: edit });
    expect(r.body).toMatchObject({ status: 'approved', arguments: { path: 'draft.txt' }, edited_arguments: edit });
    await settled(`${api}/tasks/${task}`, key);
    expect(await fs.readFile(path.join(workspace(id), 'final.txt'), 'utf8')).toBe('reviewed');
    await expect(fs.access(path.join(workspace(id), 'draft.txt'))).rejects.toThrow();
    expect(of(task).find((e) => e.type === 'approval_decided')).toMatchObject({ arguments: edit });
    expect(of(task).find((e) => e.type === 'tool_result')!.output).toMatch(
      /^\(a person edited the arguments before approving; the call ran with \{"path":"final.txt","content":"reviewed"\}\)\n/,
    );
  });

  it('refuses bad decisions: unknown call 404, arguments with deny 400, a bad body 400, another tenant 404', async () => {
    const id = await agent('refusals', ['write_file']);
    const task = await start(id, [{ name: 'write_file', arguments: { path: 'r.txt', content: 'x' } }]);
    await asked(task);
    const unknown = await decide(task, 'call_nope', { decision: 'approve' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'approval_not_found']);
    const withArgs = await decide(task, 'call_mock1', { decision: 'deny', arguments: { path: 'x' } });
    expect(withArgs.status).toBe(400);
    expect(withArgs.body.error.details).toEqual([
      { field: 'arguments', message: expect.stringContaining('"approve" only') },
    ]);
    const bad = await decide(task, 'call_mock1', { decision: 'maybe', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['decision']));
    const foreign = await decide(task, 'call_mock1', { decision: 'approve' }, other);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'task_not_found']);
    expect((await decide(task, 'call_mock1', { decision: 'deny' })).status).toBe(200);
    await settled(`${api}/tasks/${task}`, key);
  });

  it('stop while waiting: the task stops at once and its approval is cancelled', async () => {
    const id = await agent('stopper', ['write_file']);
    const task = await start(id, [{ name: 'write_file', arguments: { path: 's.txt', content: 'x' } }]);
    await asked(task);
    const t0 = Date.now();
    const stop = await call(`${api}/tasks/${task}/stop`, key, 'POST');
    expect(stop.body).toMatchObject({ status: 'stopped' });
    expect(Date.now() - t0).toBeLessThan(2000);
    const [a] = (await call(`${api}/tasks/${task}/approvals`, key)).body.data;
    expect(a).toMatchObject({ status: 'cancelled', reason: 'the task was stopped' });
    expect((await decide(task, 'call_mock1', { decision: 'approve' })).status).toBe(409);
    expect((await call(`${api}/approvals?status=pending&task_id=${task}`, key)).body.data).toEqual([]);
  });
});

describe('policies', () => {
  it("an agent's approvals win: auto runs without asking, deny refuses; config.json's orchestrator.approvals asks for calculator", async () => {
    const id = await agent('trusted', ['write_file', 'http_get', 'calculator'], {
      write_file: 'auto',
      http_get: 'deny',
    });
    const task = await start(id, [
      { name: 'write_file', arguments: { path: 'auto.txt', content: 'no one asked' } },
      { name: 'http_get', arguments: { url: 'https://example.com/' } },
      { name: 'calculator', arguments: { expression: '6*7' } },
    ]);
    await asked(task);
    expect(
      of(task)
        .filter((e) => e.type === 'approval_required')
        .map((e) => e.tool),
    ).toEqual(['calculator']);
    const results = of(task)
      .filter((e) => e.type === 'tool_result')
      .map((e) => e.output);
    expect(results).toEqual([
      expect.stringMatching(/^wrote 12 bytes/),
      `error: the tool "http_get" may not be used (approval policy "deny", from the agent's approvals "http_get")`,
    ]);
    await decide(task, 'call_mock1', { decision: 'approve' });
    await settled(`${api}/tasks/${task}`, key);
    expect(
      of(task)
        .filter((e) => e.type === 'tool_result')
        .at(-1)!.output,
    ).toBe('42');
  });

  it('MCP tools: read-only ones (readOnlyHint) run, the others ask', async () => {
    const id = await agent('mcp', ['t.echo', 't.note']);
    const task = await start(id, [
      { name: 't__echo', arguments: { text: 'read' } },
      { name: 't__note', arguments: { text: 'write' } },
    ]);
    await asked(task);
    expect(of(task).find((e) => e.type === 'approval_required')).toMatchObject({
      tool: 't.note',
      arguments: { text: 'write' },
    });
    expect(
      of(task)
        .filter((e) => e.type === 'tool_result')
        .map((e) => e.output),
    ).toEqual(['read']);
    await decide(task, 'call_mock1', { decision: 'deny' });
    await settled(`${api}/tasks/${task}`, key);
    expect(await fs.readFile(LOG, 'utf8')).not.toContain('note write');
  });

  it('no decision within orchestrator.approval_timeout_s: the call is denied (expired) and the task goes on', async () => {
    const cfg = (timeout: number) =>
      configFor(
        { mock: world().mock.baseUrl },
        { orchestrator: { ...orchestrator, approval_timeout_s: timeout }, mcp_servers: mcpServers },
      );
    await sb.writeConfig(cfg(1));
    try {
      const id = await agent('slowpoke', ['write_file']);
      // The reload is picked up within a fraction of a second: retry until a request has the short timeout.
      let task = '';
      await eventually(async () => {
        task = await start(id, [{ name: 'write_file', arguments: { path: 't.txt', content: 'x' } }]);
        await asked(task);
        const e = of(task).find((x) => x.type === 'approval_required')!;
        if (Date.parse(e.expires_at!) - Date.parse(e.time) > 2000) {
          await decide(task, e.call_id!, { decision: 'deny' });
          await settled(`${api}/tasks/${task}`, key);
          throw new Error('the old timeout was still in force');
        }
      }, 10_000);
      const t = await settled(`${api}/tasks/${task}`, key);
      expect(t.status).toBe('completed');
      expect(of(task).find((e) => e.type === 'approval_decided')).toMatchObject({
        decision: 'expired',
        reason: 'no decision within 1 s (orchestrator.approval_timeout_s)',
      });
      expect(of(task).find((e) => e.type === 'tool_result')!.output).toBe(
        "error: the call was not run: it needed a person's approval, and no decision within 1 s (orchestrator.approval_timeout_s)",
      );
      await expect(fs.access(path.join(workspace(id), 't.txt'))).rejects.toThrow();
    } finally {
      await sb.writeConfig(cfg(600));
      await eventually(async () => {
        const doc = (await (await sb.admin('/config')).json()) as Json;
        expect(doc.config.orchestrator.approval_timeout_s).toBe(600);
      });
      await new Promise((r) => setTimeout(r, 300)); // read, then put in force
    }
  });
});

describe('restart', () => {
  it('kill -9 while waiting: after the restart the approval can still be given, and the task goes on from that call', async () => {
    // t.echo: after the restart the task first starts that MCP server (a second or so), so the decision below comes
    // before the resumed task waits again: it takes it then, without asking twice.
    const id = await agent('durable', ['calculator', 'write_file', 't.echo']);
    // First turn: a call that runs at once; second: one that waits.
    const task = await start(id, [
      { name: 'calculator', arguments: { expression: '1+1' } },
      { name: 'write_file', arguments: { path: 'after-restart.txt', content: 'survived' } },
    ]);
    await asked(task, 1);
    // calculator asks too (orchestrator.approvals): approve it, then wait for write_file's approval.
    await decide(task, 'call_mock1', { decision: 'approve' });
    await asked(task, 2);
    const waiting = of(task)
      .filter((e) => e.type === 'approval_required')
      .at(-1)!;
    // The model reused the id call_mock1 for its second turn: the approval got an id of its own within the task.
    expect(waiting).toMatchObject({ tool: 'write_file', call_id: 'call_mock1-2' });
    const lastId = of(task).at(-1)!.id;
    const chatsBefore = world().mock.chatCount();
    sb.child.kill('SIGKILL');
    await new Promise((r) => sb.child.once('exit', r));
    events.close();

    world().mock.setBehavior({ tokens: ['finished after restart'] });
    sb = await world().serve();
    api = sb.api;
    events = await openEvents(`${api}/events`, key, lastId);
    expect((await call(`${api}/tasks/${task}`, key)).body.status).toBe('running');
    const pending = (await call(`${api}/approvals?status=pending`, key)).body.data;
    expect(pending).toEqual([expect.objectContaining({ task_id: task, call_id: 'call_mock1-2', tool: 'write_file' })]);
    expect((await decide(task, 'call_mock1-2', { decision: 'approve' })).status).toBe(200);
    const done = await settled(`${api}/tasks/${task}`, key);
    expect(done).toMatchObject({ status: 'completed', result: 'finished after restart' });
    expect(await fs.readFile(path.join(workspace(id), 'after-restart.txt'), 'utf8')).toBe('survived');
    // Nothing ran twice: one model call after the restart (the answer), no second tool_call for the waiting call.
    expect(world().mock.chatCount()).toBe(chatsBefore + 1);
    expect((await call(`${api}/tasks/${task}/approvals`, key)).body.data.map((x: Json) => x.status)).toEqual([
      'approved',
      'approved',
    ]);
    const after = await events.waitFor((e) => e.some((x) => x.type === 'completed' && x.task_id === task));
    expect(after.filter((e) => e.task_id === task).map((e) => e.type)).toEqual([
      'approval_decided',
      'tool_result',
      'output',
      'completed',
    ]);
    // The model's last request held the whole conversation: both tool results, in order.
    const last = world()
      .mock.requests.filter((q) => q.url === '/v1/chat/completions')
      .at(-1)!.body.messages;
    expect(last.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content)).toEqual([
      '2',
      expect.stringMatching(/^wrote 8 bytes/),
    ]);
  });
});
