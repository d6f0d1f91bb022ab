// Agents slice: agents, tasks, the live event stream (capped), each task's run as its events tell it, the activity
// feed, WAL status, all through the agent API; and the server's model list (GET /v1/models) for the model picker.
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { Agent, AgentEvent, Task } from '../../shared/orchestrator.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import { failureText } from './config.ts';
import { type ActivityEntry, applyActivity, applyEvents, type TaskRun } from './run-view.ts';

export const EVENT_CAP = 1000;

/** What Run answers: the task it started, or the problems in words. */
export type RunStarted = { ok: true; task_id: string } | { ok: false; problems: string[] };

export type AgentsSlice = {
  agents: Agent[];
  tasks: Task[];
  events: AgentEvent[];
  /** Each task's run as its events told it (the newest RUN_CAP tasks), by task id. */
  taskRuns: Record<string, TaskRun>;
  /** The activity feed, oldest first; a task's consecutive deltas are one entry. */
  activity: ActivityEntry[];
  wal: Record<string, unknown> | null;
  /** Why the agent API could not be read (the page's banner); cleared by the next read that works. */
  agentsError: string | null;
  /** The server's models (GET /v1/models), for the model picker; null until read. */
  models: string[] | null;
  modelsError: string | null;
  refreshAgents: () => Promise<void>;
  /** Reads one task (the run view's, which may be older than the list's 100). */
  refreshTask: (id: string) => Promise<void>;
  refreshModels: () => Promise<void>;
  createAgent: (a: {
    name: string;
    model: string;
    system_prompt?: string;
    tools?: string[];
  }) => Promise<string[] | null>;
  runAgent: (id: string, message: string) => Promise<RunStarted>;
  stopTask: (id: string) => Promise<string[] | null>;
  deleteAgent: (id: string) => Promise<string[] | null>;
  compactWal: () => Promise<string[] | null>;
  appendEvents: (batch: AgentEvent[]) => void;
};

export const createAgentsSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], AgentsSlice> =>
  (set, get) => {
    /** Runs one agent API call; null on success (then the lists are read again), else the error in words. */
    const act = async (method: 'POST' | 'DELETE' | 'PUT', path: string, body?: unknown): Promise<string[] | null> => {
      const r = await api.agentApi({ method, path, ...(body !== undefined ? { body } : {}) });
      if (!r.ok) return failureText(r.failure);
      await get().refreshAgents();
      return null;
    };
    return {
      agents: [],
      tasks: [],
      events: [],
      taskRuns: {},
      activity: [],
      wal: null,
      agentsError: null,
      models: null,
      modelsError: null,
      refreshAgents: async () => {
        const [a, t, w] = await Promise.all([
          api.agentApi({ method: 'GET', path: '/agents?limit=100' }),
          api.agentApi({ method: 'GET', path: '/tasks?limit=100' }),
          api.agentApi({ method: 'GET', path: '/wal/status' }),
        ]);
        if (!a.ok) return set({ agentsError: failureText(a.failure).join(' ') });
        set({
          agents: (a.data as { data: Agent[] }).data,
          tasks: t.ok ? (t.data as { data: Task[] }).data : get().tasks,
          wal: w.ok ? (w.data as Record<string, unknown>) : null,
          agentsError: null, // the engine answers again: the banner goes (issue 15, bug 1)
        });
      },
      refreshTask: async (id) => {
        const r = await api.agentApi({ method: 'GET', path: `/tasks/${encodeURIComponent(id)}` });
        if (!r.ok) return;
        const task = r.data as Task;
        const tasks = get().tasks;
        const at = tasks.findIndex((x) => x.task_id === id);
        set({ tasks: at === -1 ? [...tasks, task] : tasks.map((x, i) => (i === at ? task : x)) });
      },
      refreshModels: async () => {
        const r = await api.listModels();
        if (!r.ok) return set({ modelsError: failureText(r.failure).join(' ') });
        const ids = [...new Set(r.data.data.map((m) => m.id))].sort((x, y) => x.localeCompare(y));
        set({ models: ids, modelsError: null });
      },
      createAgent: (a) => act('POST', '/agents', a),
      runAgent: async (id, message) => {
        const r = await api.agentApi({
          method: 'POST',
          path: `/agents/${encodeURIComponent(id)}/run`,
          body: { message },
        });
        if (!r.ok) return { ok: false, problems: failureText(r.failure) };
        void get().refreshAgents();
        return { ok: true, task_id: (r.data as { task_id: string }).task_id };
      },
      stopTask: (id) => act('POST', `/tasks/${encodeURIComponent(id)}/stop`),
      deleteAgent: (id) => act('DELETE', `/agents/${encodeURIComponent(id)}`),
      compactWal: () => act('POST', '/wal/compact'),
      appendEvents: (batch) => {
        const seen = new Set(get().events.map((e) => e.id));
        const fresh = batch.filter((e) => !seen.has(e.id));
        if (!fresh.length) return;
        set({
          events: get().events.concat(fresh).slice(-EVENT_CAP),
          taskRuns: applyEvents(get().taskRuns, fresh),
          activity: applyActivity(get().activity, fresh),
        });
      },
    };
  };
