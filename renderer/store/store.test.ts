// The store slices with a scripted transport (the data client's interface): batching, pause, filters, caps,
// save validation with the shared schema, server errors in words, agent calls.
import { describe, expect, it, vi } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import type { ApiResult, SwitchboardApi } from '../../shared/ipc.ts';
import type { AgentEvent } from '../../shared/orchestrator.ts';
import { savedText } from '../components/field-errors.ts';
import { createAppStore } from './index.ts';
import { EVENT_CAP } from './agents.ts';
import { filterLogs, LOG_CAP, logBatcher } from './logs.ts';

const entry = (i: number, over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  id: `r${i}`,
  time: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  method: 'POST',
  path: '/v1/chat/completions',
  app: 'code',
  app_source: 'header',
  requested_model: 'gpt-4o',
  routed_model: 'gpt-4o',
  provider: 'openai',
  route: 'rule:gpt-*',
  attempts: [],
  status: 200,
  error_code: null,
  stream: false,
  latency_ms: 10,
  ttfb_ms: 5,
  prompt_tokens: null,
  completion_tokens: null,
  ...over,
});

const ok = <T>(data: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, data });
function fakeApi(over: Partial<SwitchboardApi> = {}): SwitchboardApi {
  const notUsed = () => Promise.reject(new Error('not used'));
  return {
    getAppInfo: notUsed,
    getStatus: notUsed,
    getConfig: notUsed,
    saveConfig: notUsed,
    recentLogs: notUsed,
    explainRoute: notUsed,
    testProvider: notUsed,
    setPaused: notUsed,
    listAgentKeys: notUsed,
    createAgentKey: notUsed,
    revokeAgentKey: notUsed,
    agentApi: notUsed,
    checkPort: notUsed,
    listConfigBackups: notUsed,
    restoreConfigBackup: notUsed,
    subscribe: () => () => {},
    ...over,
  } as SwitchboardApi;
}

describe('logs slice', () => {
  it('puts new entries first, drops duplicates and caps the list', () => {
    const s = createAppStore(fakeApi());
    s.getState().setLogs([entry(1), entry(2)]);
    s.getState().appendLogs([entry(2), entry(3), entry(4)]);
    expect(s.getState().logs.map((e) => e.id)).toEqual(['r4', 'r3', 'r2', 'r1']);
    s.getState().appendLogs(Array.from({ length: LOG_CAP + 10 }, (_, i) => entry(100 + i)));
    expect(s.getState().logs).toHaveLength(LOG_CAP);
    expect(s.getState().logs[0]!.id).toBe(`r${100 + LOG_CAP + 9}`);
  });

  it('orders rows by when requests started: a slow one that arrives last goes below the newer ones (issue 34, bug 4)', () => {
    const s = createAppStore(fakeApi());
    s.getState().setLogs([entry(1), entry(5)]);
    // Live, in the order they finished: 7, then 6 (started before 7), then 3 (a slow stream that started long ago).
    s.getState().appendLogs([entry(7)]);
    s.getState().appendLogs([entry(6), entry(3)]);
    expect(s.getState().logs.map((e) => e.id)).toEqual(['r7', 'r6', 'r5', 'r3', 'r1']);
    // The server's list arriving after live rows (a slow first load) is merged, not put over them.
    s.getState().setLogs([entry(2), entry(4), entry(6)]);
    expect(s.getState().logs.map((e) => e.id)).toEqual(['r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1']);
  });

  it('holds entries while paused and shows them on resume', () => {
    const s = createAppStore(fakeApi());
    s.getState().setLogsPaused(true);
    s.getState().appendLogs([entry(1), entry(2)]);
    expect(s.getState().logs).toEqual([]);
    expect(s.getState().logsHeld).toBe(2);
    s.getState().setLogsPaused(false);
    expect(s.getState().logs.map((e) => e.id)).toEqual(['r2', 'r1']);
    expect(s.getState().logsHeld).toBe(0);
  });

  it('filters by app, provider, status and model', () => {
    const logs = [
      entry(1),
      entry(2, { app: 'cursor', status: 502 }),
      entry(3, { provider: 'local', requested_model: 'llama3' }),
    ];
    expect(filterLogs(logs, { app: 'cursor', provider: '', status: '', model: '' }).map((e) => e.id)).toEqual(['r2']);
    expect(filterLogs(logs, { app: '', provider: '', status: 'error', model: '' }).map((e) => e.id)).toEqual(['r2']);
    expect(filterLogs(logs, { app: '', provider: 'local', status: '', model: '' }).map((e) => e.id)).toEqual(['r3']);
    expect(filterLogs(logs, { app: '', provider: '', status: 'ok', model: 'LLAMA' }).map((e) => e.id)).toEqual(['r3']);
  });

  it('batches 1000 pushed lines into a few store updates', async () => {
    vi.useFakeTimers();
    const s = createAppStore(fakeApi());
    let updates = 0;
    s.subscribe(() => updates++);
    const b = logBatcher<RequestLogEntry>((batch) => s.getState().appendLogs(batch), 200);
    for (let i = 0; i < 1000; i++) {
      b.push(entry(i));
      if (i % 100 === 99) await vi.advanceTimersByTimeAsync(60); // 1000 lines over 600 ms
    }
    await vi.advanceTimersByTimeAsync(250);
    vi.useRealTimers();
    expect(s.getState().logs).toHaveLength(1000);
    expect(updates).toBeLessThanOrEqual(5);
  });
});

describe('config slice', () => {
  const stored = {
    path: '/c.json',
    config: {
      providers: [{ name: 'a', base_url: 'http://127.0.0.1:1/v1', api_key: 'sk-****1234' }],
      routing: { default_provider: 'a', rules: [] },
    },
    error: null,
  };

  it('validates with the shared schema and sends nothing invalid', async () => {
    const saveConfig = vi.fn();
    const s = createAppStore(fakeApi({ getConfig: () => ok(stored), saveConfig }));
    await s.getState().loadConfig();
    const next = s.getState().currentConfig();
    next.providers!.push({ name: 'b', base_url: 'localhost:8080' });
    const r = await s.getState().saveConfig(next);
    expect(r).toMatchObject({
      ok: false,
      messages: [
        'providers[1].base_url (found "localhost:8080") must be a full http:// or https:// address, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8080/v1"',
      ],
    });
    expect(saveConfig).not.toHaveBeenCalled();
    // currentConfig is a copy: the stored document is untouched.
    expect((s.getState().configDoc!.config as { providers: unknown[] }).providers).toHaveLength(1);
  });

  it("shows the server's error in words, with its details", async () => {
    const s = createAppStore(
      fakeApi({
        getConfig: () => ok(stored),
        saveConfig: () =>
          Promise.resolve({
            ok: false,
            failure: {
              status: 400,
              error: {
                code: 'config_invalid',
                message: 'The config was not saved.',
                action: 'Fix the fields listed.',
                details: [{ path: 'providers[0].api_key', message: 'is a masked key' }],
              },
            },
          }),
      }),
    );
    await s.getState().loadConfig();
    const r = await s.getState().saveConfig(s.getState().currentConfig());
    expect(r).toMatchObject({
      ok: false,
      messages: ['The config was not saved. Fix the fields listed.', 'providers[0].api_key is a masked key'],
    });
  });

  it('keeps the saved document and refreshes status after a save', async () => {
    const getStatus = vi.fn(() => ok({ paused: false } as never));
    const s = createAppStore(
      fakeApi({ getConfig: () => ok(stored), saveConfig: (c) => ok({ ...stored, config: c }), getStatus }),
    );
    await s.getState().loadConfig();
    const next = s.getState().currentConfig();
    next.log_requests = false;
    expect(await s.getState().saveConfig(next)).toEqual({ ok: true, warnings: [] });
    expect((s.getState().configDoc!.config as { log_requests: boolean }).log_requests).toBe(false);
    expect(getStatus).toHaveBeenCalled();
    expect(s.getState().saveNote).toBeNull();
  });

  it("keeps the server's team note of a save (an instance of a team: saved on this instance only) and says it", async () => {
    const note = 'Saved on this instance only: with the Redis store config.json is per instance.';
    const s = createAppStore(
      fakeApi({
        getConfig: () => ok(stored),
        saveConfig: (c) => ok({ ...stored, config: c, team_note: note }),
        getStatus: () => ok({ paused: false } as never),
      }),
    );
    await s.getState().loadConfig();
    const r = await s.getState().saveConfig(s.getState().currentConfig());
    expect(r).toEqual({ ok: true, warnings: [], teamNote: note });
    expect(s.getState().saveNote).toBe(note);
    expect(savedText('Settings', [], undefined, note)).toBe(`${note} Settings saved.`);
    expect(savedText('Settings', [])).toBe('Settings saved.');
  });
});

describe('agents slice', () => {
  it('loads agents, tasks and WAL status through the agent API and reports errors in words', async () => {
    const agentApi = vi.fn(async (r: { method: string; path: string }) => {
      if (r.method === 'POST')
        return {
          ok: false as const,
          failure: {
            status: 409,
            error: { code: 'agent_busy', message: 'The agent ran less than 15 s ago.', action: 'Wait.' },
          },
        };
      if (r.path.startsWith('/agents')) return { ok: true as const, data: { data: [{ id: 'agt_1', name: 'x' }] } };
      if (r.path.startsWith('/tasks')) return { ok: true as const, data: { data: [{ task_id: 'tsk_1' }] } };
      return { ok: true as const, data: { total_entries: 3 } };
    });
    const s = createAppStore(fakeApi({ agentApi }));
    await s.getState().refreshAgents();
    expect(s.getState().agents.map((a) => a.id)).toEqual(['agt_1']);
    expect(s.getState().tasks.map((t) => t.task_id)).toEqual(['tsk_1']);
    expect(s.getState().wal).toEqual({ total_entries: 3 });
    expect(await s.getState().runAgent('agt_1', 'hi')).toEqual({
      ok: false,
      problems: ['The agent ran less than 15 s ago. Wait.'],
    });
    expect(agentApi).toHaveBeenCalledWith({ method: 'POST', path: '/agents/agt_1/run', body: { message: 'hi' } });
  });

  it('keeps events unique and capped', () => {
    const s = createAppStore(fakeApi());
    const ev = (id: number) =>
      ({
        id,
        type: 'output',
        task_id: 't',
        agent_id: 'a',
        tenant: 'default',
        workflow_id: null,
        time: '',
      }) as AgentEvent;
    s.getState().appendEvents([ev(1), ev(2)]);
    s.getState().appendEvents([ev(2), ev(3)]);
    expect(s.getState().events.map((e) => e.id)).toEqual([1, 2, 3]);
    s.getState().appendEvents(Array.from({ length: EVENT_CAP + 5 }, (_, i) => ev(10 + i)));
    expect(s.getState().events).toHaveLength(EVENT_CAP);
  });
});

describe('workflows slice', () => {
  it('sends the form rows as the API body, with empty optional cells left to the defaults', async () => {
    const calls: { method: string; path: string; body?: unknown }[] = [];
    const agentApi = vi.fn(async (r: { method: string; path: string; body?: unknown }) => {
      calls.push(r);
      if (r.path === '/workflows' && r.method === 'GET')
        return { ok: true as const, data: { data: [{ id: 'wf_1', name: 'blog', steps: [] }] } };
      if (r.path === '/swarms' && r.method === 'GET')
        return { ok: true as const, data: { data: [{ id: 'swm_1', name: 'panel' }] } };
      if (r.path === '/workflows/blog/runs')
        return { ok: true as const, data: { data: [{ run_id: 'run_1', status: 'completed' }] } };
      if (r.path === '/swarms/panel/tasks' && r.method === 'GET')
        return { ok: true as const, data: { data: [{ id: 'stk_1', final_answer: 'yes' }] } };
      return { ok: true as const, data: {} };
    });
    const s = createAppStore(fakeApi({ agentApi }));
    expect(
      await s.getState().createWorkflow({
        name: ' blog ',
        steps: [
          { name: 'a', agent: 'w', prompt: 'p {{input.x}}', error_policy: 'retry', max_retries: '3' },
          { name: 'b', agent: 'w', prompt: 'q', error_policy: 'fail', max_retries: '' },
        ],
      }),
    ).toBeNull();
    expect(calls[0]).toEqual({
      method: 'POST',
      path: '/workflows',
      body: {
        name: 'blog',
        steps: [
          { name: 'a', agent: 'w', prompt: 'p {{input.x}}', error_policy: 'retry', max_retries: 3 },
          { name: 'b', agent: 'w', prompt: 'q', error_policy: 'fail' },
        ],
      },
    });
    // After an action the lists, runs and swarm tasks are loaded.
    expect(s.getState().workflows.map((w) => w.name)).toEqual(['blog']);
    expect(s.getState().runs.blog!.map((r) => r.run_id)).toEqual(['run_1']);
    expect(s.getState().swarmTasks.panel!.map((t) => t.final_answer)).toEqual(['yes']);
    await s.getState().runWorkflow('blog', '{"topic": "bees"}');
    expect(calls).toContainEqual({ method: 'POST', path: '/workflows/blog/run', body: { input: { topic: 'bees' } } });
    await s
      .getState()
      .createSwarm({ name: 'panel', coordinator: 'lead', agents: ['a', 'b'], max_rounds: 2, consensus_required: true });
    expect(calls).toContainEqual({
      method: 'POST',
      path: '/swarms',
      body: {
        name: 'panel',
        coordinator: 'lead',
        agents: ['a', 'b'],
        config: { max_rounds: 2, consensus_required: true },
      },
    });
    await s.getState().sendSwarmTask('panel', 'Should I?');
    expect(calls).toContainEqual({ method: 'POST', path: '/swarms/panel/tasks', body: { message: 'Should I?' } });
  });

  it("refuses an input that is not a JSON object before sending, and shows the server's 422 details in words", async () => {
    const agentApi = vi.fn(async () => ({
      ok: false as const,
      failure: {
        status: 422,
        error: {
          code: 'workflow_invalid',
          message: 'The workflow definition is invalid.',
          action: 'Fix every problem.',
          details: [{ field: 'steps.0.agent', message: '"x" names no agent' }],
        },
      },
    }));
    const s = createAppStore(fakeApi({ agentApi }));
    expect(await s.getState().runWorkflow('blog', '[1]')).toEqual([
      'The input must be a JSON object, e.g. {"topic": "bees"}.',
    ]);
    expect((await s.getState().runWorkflow('blog', '{bad'))![0]).toMatch(/^The input is not valid JSON/);
    expect(agentApi).not.toHaveBeenCalled();
    expect(
      await s.getState().createWorkflow({
        name: 'w',
        steps: [{ name: 'a', agent: 'x', prompt: 'p', error_policy: 'fail', max_retries: '' }],
      }),
    ).toEqual(['The workflow definition is invalid. Fix every problem.', 'steps.0.agent "x" names no agent']);
  });
});
