// The Agents area's store, with a scripted transport (the data client's interface): the error banner clears when the
// engine answers again (issue 15, bug 1), a run's events assemble into its answer and tool cards, the activity feed
// merges deltas, Run answers the task it started, and the model picker reads GET /v1/models.
import { describe, expect, it, vi } from 'vitest';
import type { ApiResult, SwitchboardApi } from '../../shared/ipc.ts';
import type { AgentEvent } from '../../shared/orchestrator.ts';
import { createAppStore } from './index.ts';
import { ACTIVITY_CAP, applyActivity, applyEvent, applyEvents, RUN_CAP, toolError } from './run-view.ts';

function fakeApi(over: Partial<SwitchboardApi>): SwitchboardApi {
  return new Proxy(over, {
    get: (target, key) =>
      key in target ? target[key as keyof SwitchboardApi] : () => Promise.reject(new Error(`${String(key)}: not used`)),
  }) as SwitchboardApi;
}
const unreachable = {
  ok: false as const,
  failure: {
    status: 0,
    error: {
      code: 'unreachable',
      message: 'Switchboard did not answer (fetch failed).',
      action: 'Check that Switchboard is running.',
    },
  },
};

let nextId = 1;
const ev = (type: AgentEvent['type'], over: Partial<AgentEvent> = {}): AgentEvent => ({
  id: nextId++,
  type,
  task_id: 'tsk_1',
  agent_id: 'agt_1',
  tenant: 'default',
  workflow_id: null,
  time: '2026-01-02T03:04:05.000Z',
  ...over,
});

describe('the Agents error banner (issue 15, bug 1)', () => {
  it('shows why the agent API could not be read, and goes as soon as it answers again', async () => {
    let up = false;
    const agentApi = vi.fn(async (r: { path: string }): Promise<ApiResult<unknown>> =>
      !up ? unreachable : { ok: true, data: r.path.startsWith('/wal') ? { total_entries: 1 } : { data: [] } },
    );
    const s = createAppStore(fakeApi({ agentApi }));
    await s.getState().refreshAgents();
    expect(s.getState().agentsError).toBe(
      'Switchboard did not answer (fetch failed). Check that Switchboard is running.',
    );
    await s.getState().refreshAgents(); // still down: still shown
    expect(s.getState().agentsError).not.toBeNull();
    up = true;
    await s.getState().refreshAgents();
    expect(s.getState().agentsError).toBeNull();
    expect(s.getState().wal).toEqual({ total_entries: 1 });
  });

  it("an action's refusal is the action's own problem, not the banner", async () => {
    const agentApi = vi.fn(async (r: { method: string }): Promise<ApiResult<unknown>> =>
      r.method === 'POST'
        ? { ok: false, failure: { status: 400, error: { code: 'invalid_request', message: 'model is required.' } } }
        : { ok: true, data: { data: [] } },
    );
    const s = createAppStore(fakeApi({ agentApi }));
    expect(await s.getState().createAgent({ name: 'a', model: '' })).toEqual(['model is required.']);
    expect(s.getState().agentsError).toBeNull();
  });
});

describe('Run', () => {
  it('answers the task it started, so the window can open its run view', async () => {
    const agentApi = vi.fn(async (r: { method: string }): Promise<ApiResult<unknown>> =>
      r.method === 'POST'
        ? { ok: true, data: { task_id: 'tsk_9', status: 'running', agent_id: 'agt_1' } }
        : { ok: true, data: { data: [] } },
    );
    const s = createAppStore(fakeApi({ agentApi }));
    expect(await s.getState().runAgent('agt_1', 'hi')).toEqual({ ok: true, task_id: 'tsk_9' });
    expect(agentApi).toHaveBeenCalledWith({ method: 'POST', path: '/agents/agt_1/run', body: { message: 'hi' } });
  });

  it('reads one task that is not in the list and keeps it', async () => {
    const agentApi = vi.fn(async (): Promise<ApiResult<unknown>> => ({
      ok: true,
      data: { task_id: 'tsk_old', status: 'completed' },
    }));
    const s = createAppStore(fakeApi({ agentApi }));
    await s.getState().refreshTask('tsk_old');
    expect(s.getState().tasks.map((t) => t.task_id)).toEqual(['tsk_old']);
    expect(agentApi).toHaveBeenCalledWith({ method: 'GET', path: '/tasks/tsk_old' });
  });
});

describe('the run view', () => {
  it('appends output deltas into one answer and shows each tool call as a card with its result or error', () => {
    const s = createAppStore(fakeApi({}));
    s.getState().appendEvents([
      ev('thinking', { content: 'Let me ' }),
      ev('thinking', { content: 'compute.' }),
      ev('tool_call', { tool: 'calculator', input: { expression: '6*7' } }),
      ev('tool_call', { tool: 'read_file', input: { path: 'x' } }),
    ]);
    expect(s.getState().taskRuns.tsk_1!.items).toEqual([
      { kind: 'thinking', text: 'Let me compute.' },
      { kind: 'tool', name: 'calculator', input: { expression: '6*7' }, output: null, error: null },
      { kind: 'tool', name: 'read_file', input: { path: 'x' }, output: null, error: null },
    ]);
    s.getState().appendEvents([
      ev('tool_result', { tool: 'calculator', output: '42' }),
      ev('tool_result', { tool: 'read_file', output: 'error: tool "read_file" is not enabled for this agent' }),
    ]);
    s.getState().appendEvents(['The answer', ' is', ' 42.'].map((content) => ev('output', { content })));
    const run = s.getState().taskRuns.tsk_1!;
    expect(run.state).toBe('running');
    expect(run.items.slice(1)).toEqual([
      { kind: 'tool', name: 'calculator', input: { expression: '6*7' }, output: '42', error: null },
      {
        kind: 'tool',
        name: 'read_file',
        input: { path: 'x' },
        output: null,
        error: 'tool "read_file" is not enabled for this agent',
      },
      { kind: 'text', text: 'The answer is 42.' },
    ]);
    s.getState().appendEvents([ev('completed')]);
    expect(s.getState().taskRuns.tsk_1!.state).toBe('completed');
  });

  it('keeps runs apart by task, says a failure, ignores replayed events and keeps the newest runs only', () => {
    let runs = applyEvents({}, [
      ev('output', { task_id: 'a', content: 'x' }),
      ev('output', { task_id: 'b', content: 'y', run_id: 'run_1', workflow_id: 'wf_1' }),
    ]);
    const failed = ev('failed', { task_id: 'a', error: 'mock: 500' });
    runs = applyEvents(runs, [failed, failed]);
    expect(runs.a).toMatchObject({ state: 'failed', error: 'mock: 500', items: [{ kind: 'text', text: 'x' }] });
    expect(runs.b).toMatchObject({ run_id: 'run_1', items: [{ kind: 'text', text: 'y' }] });
    const again = applyEvent(runs.a, failed);
    expect(again).toBe(runs.a);
    runs = applyEvents(
      runs,
      Array.from({ length: RUN_CAP + 5 }, (_, i) => ev('output', { task_id: `t${i}`, content: '.' })),
    );
    expect(Object.keys(runs)).toHaveLength(RUN_CAP);
    expect(runs.a).toBeUndefined();
    expect(runs[`t${RUN_CAP + 4}`]).toBeDefined();
  });

  it("reads a tool's text as an error only when the agent loop said so", () => {
    expect(toolError('error: ENOENT')).toBe('ENOENT');
    expect(toolError('42')).toBeNull();
    expect(toolError('no error: fine')).toBeNull();
  });
});

describe('the activity feed', () => {
  it("merges a task's consecutive deltas into one entry labelled by task and agent; other events are their own", () => {
    const feed = applyActivity(
      [],
      [
        ev('output', { task_id: 'a', content: 'Hel' }),
        ev('output', { task_id: 'a', content: 'lo' }),
        ev('output', { task_id: 'b', agent_id: 'agt_2', content: 'Hi' }),
        ev('output', { task_id: 'a', content: '!' }),
        ev('tool_call', { task_id: 'a', tool: 'calculator', input: { expression: '1+1' } }),
        ev('completed', { task_id: 'a' }),
      ],
    );
    expect(feed.map((e) => [e.task_id, e.agent_id, e.type, e.text])).toEqual([
      ['a', 'agt_1', 'output', 'Hello'],
      ['b', 'agt_2', 'output', 'Hi'],
      ['a', 'agt_1', 'output', '!'],
      ['a', 'agt_1', 'tool_call', 'calculator({"expression":"1+1"})'],
      ['a', 'agt_1', 'completed', ''],
    ]);
  });

  it('stays within its cap when a thousand events arrive', () => {
    const s = createAppStore(fakeApi({}));
    const types: AgentEvent['type'][] = ['tool_call', 'tool_result'];
    s.getState().appendEvents(Array.from({ length: 1000 }, (_, i) => ev(types[i % 2]!, { tool: 'calculator' })));
    expect(s.getState().activity).toHaveLength(ACTIVITY_CAP);
    // A thousand output tokens are one entry.
    s.getState().appendEvents(Array.from({ length: 1000 }, () => ev('output', { task_id: 'long', content: 'x' })));
    expect(s.getState().activity.at(-1)!.text).toHaveLength(1000);
    expect(s.getState().taskRuns.long!.items).toEqual([{ kind: 'text', text: 'x'.repeat(1000) }]);
  });
});

describe('the model picker', () => {
  it("lists the server's models from GET /v1/models, sorted and once each; a failure is said in words", async () => {
    const listModels = vi
      .fn<SwitchboardApi['listModels']>()
      .mockResolvedValueOnce({
        ok: true,
        data: { object: 'list', data: [{ id: 'mock-model' }, { id: 'claude-x' }, { id: 'mock-model' }] },
      })
      .mockResolvedValueOnce({
        ok: false,
        failure: { status: 401, error: { code: 'unauthorized', message: 'A gateway credential is needed.' } },
      });
    const s = createAppStore(fakeApi({ listModels }));
    await s.getState().refreshModels();
    expect(s.getState().models).toEqual(['claude-x', 'mock-model']);
    await s.getState().refreshModels();
    expect(s.getState().models).toEqual(['claude-x', 'mock-model']); // the last list stays
    expect(s.getState().modelsError).toBe('A gateway credential is needed.');
  });
});
