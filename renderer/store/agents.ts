// Agents slice: agents, tasks, the live event stream (capped) and WAL status, all through the agent API.
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { Agent, AgentEvent, Task } from '../../shared/orchestrator.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import { failureText } from './config.ts';

export const EVENT_CAP = 1000;

export type AgentsSlice = {
  agents: Agent[];
  tasks: Task[];
  events: AgentEvent[];
  wal: Record<string, unknown> | null;
  agentsError: string | null;
  refreshAgents: () => Promise<void>;
  createAgent: (a: {
    name: string;
    model: string;
    system_prompt?: string;
    tools?: string[];
  }) => Promise<string[] | null>;
  runAgent: (id: string, message: string) => Promise<string[] | null>;
  stopTask: (id: string) => Promise<string[] | null>;
  deleteAgent: (id: string) => Promise<string[] | null>;
  compactWal: () => Promise<string[] | null>;
  appendEvents: (batch: AgentEvent[]) => void;
};

export const createAgentsSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], AgentsSlice> =>
  (set, get) => {
    /** Runs one agent API call; null on success, else the error in words (also kept in agentsError). */
    const act = async (method: 'POST' | 'DELETE' | 'PUT', path: string, body?: unknown): Promise<string[] | null> => {
      const r = await api.agentApi({ method, path, ...(body !== undefined ? { body } : {}) });
      if (!r.ok) {
        const msg = failureText(r.failure);
        set({ agentsError: msg.join(' ') });
        return msg;
      }
      set({ agentsError: null });
      await get().refreshAgents();
      return null;
    };
    return {
      agents: [],
      tasks: [],
      events: [],
      wal: null,
      agentsError: null,
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
        });
      },
      createAgent: (a) => act('POST', '/agents', a),
      runAgent: (id, message) => act('POST', `/agents/${id}/run`, { message }),
      stopTask: (id) => act('POST', `/tasks/${id}/stop`),
      deleteAgent: (id) => act('DELETE', `/agents/${id}`),
      compactWal: () => act('POST', '/wal/compact'),
      appendEvents: (batch) => {
        const seen = new Set(get().events.map((e) => e.id));
        const fresh = batch.filter((e) => !seen.has(e.id));
        if (fresh.length) set({ events: get().events.concat(fresh).slice(-EVENT_CAP) });
      },
    };
  };
