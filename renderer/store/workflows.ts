// Workflows and swarms slice: lists, runs with per-step status, swarm tasks with rounds; all through the agent API.
import type { StateCreator } from 'zustand';
import type { AppState } from './index.ts';
import type { Swarm, SwarmTask, Workflow, WorkflowRun } from '../../shared/orchestrator.ts';
import type { SwitchboardApi } from '../../shared/ipc.ts';
import { failureText } from './config.ts';

/** One step row of the workflow form; max_retries stays text until sent so the server's words judge it. */
export type StepDraft = { name: string; agent: string; prompt: string; error_policy: string; max_retries: string };

/** What an action answers: null on success, else the error in words. */
export type Outcome = string[] | null;

export type WorkflowsSlice = {
  workflows: Workflow[];
  /** Runs per workflow name, newest first. */
  runs: Record<string, WorkflowRun[]>;
  swarms: Swarm[];
  /** Swarm tasks per swarm name, newest first. */
  swarmTasks: Record<string, SwarmTask[]>;
  refreshWorkflows: () => Promise<void>;
  createWorkflow: (w: { name: string; description?: string; steps: StepDraft[] }) => Promise<Outcome>;
  /** `input` is the JSON text typed by the user; a text that is not a JSON object is refused here, in words. */
  runWorkflow: (name: string, input: string) => Promise<Outcome>;
  createSwarm: (s: {
    name: string;
    coordinator: string;
    agents: string[];
    max_rounds: number;
    consensus_required: boolean;
  }) => Promise<Outcome>;
  sendSwarmTask: (name: string, message: string) => Promise<Outcome>;
};

/** The body the API expects from the form's rows (empty optional cells are left out, so the defaults apply). */
export function stepsToBody(steps: StepDraft[]): Record<string, unknown>[] {
  return steps.map((s) => {
    const step: Record<string, unknown> = { name: s.name.trim(), agent: s.agent.trim(), prompt: s.prompt };
    if (s.error_policy) step.error_policy = s.error_policy;
    if (s.max_retries.trim() !== '')
      step.max_retries = /^-?\d+$/.test(s.max_retries.trim()) ? Number(s.max_retries) : s.max_retries;
    return step;
  });
}

/** Parses the run's input text: empty means {}. */
export function parseInput(
  text: string,
): { ok: true; input: Record<string, unknown> } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, input: {} };
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { ok: true, input: v as Record<string, unknown> };
    return { ok: false, message: 'The input must be a JSON object, e.g. {"topic": "bees"}.' };
  } catch (err) {
    return {
      ok: false,
      message: `The input is not valid JSON (${(err as Error).message}). Write an object, e.g. {"topic": "bees"}.`,
    };
  }
}

export const createWorkflowsSlice =
  (api: SwitchboardApi): StateCreator<AppState, [], [], WorkflowsSlice> =>
  (set, get) => {
    const list = async <T>(path: string): Promise<T[] | null> => {
      const r = await api.agentApi({ method: 'GET', path });
      return r.ok ? (r.data as { data: T[] }).data : null;
    };
    const act = async (path: string, body: unknown): Promise<Outcome> => {
      const r = await api.agentApi({ method: 'POST', path, body });
      if (!r.ok) return failureText(r.failure);
      await get().refreshWorkflows();
      return null;
    };
    const enc = encodeURIComponent;
    return {
      workflows: [],
      runs: {},
      swarms: [],
      swarmTasks: {},
      refreshWorkflows: async () => {
        const [workflows, swarms] = await Promise.all([list<Workflow>('/workflows'), list<Swarm>('/swarms')]);
        // An engine without workflows (404) leaves the lists as they were.
        const wf = workflows ?? get().workflows;
        const sw = swarms ?? get().swarms;
        const [runs, tasks] = await Promise.all([
          Promise.all(
            wf.map(
              async (w) =>
                [
                  w.name,
                  (await list<WorkflowRun>(`/workflows/${enc(w.name)}/runs`)) ?? get().runs[w.name] ?? [],
                ] as const,
            ),
          ),
          Promise.all(
            sw.map(
              async (s) =>
                [
                  s.name,
                  (await list<SwarmTask>(`/swarms/${enc(s.name)}/tasks`)) ?? get().swarmTasks[s.name] ?? [],
                ] as const,
            ),
          ),
        ]);
        set({ workflows: wf, swarms: sw, runs: Object.fromEntries(runs), swarmTasks: Object.fromEntries(tasks) });
      },
      createWorkflow: (w) =>
        act('/workflows', {
          name: w.name.trim(),
          ...(w.description ? { description: w.description } : {}),
          steps: stepsToBody(w.steps),
        }),
      runWorkflow: (name, input) => {
        const parsed = parseInput(input);
        if (!parsed.ok) return Promise.resolve([parsed.message]);
        return act(`/workflows/${enc(name)}/run`, { input: parsed.input });
      },
      createSwarm: (s) =>
        act('/swarms', {
          name: s.name.trim(),
          coordinator: s.coordinator.trim(),
          agents: s.agents,
          config: { max_rounds: s.max_rounds, consensus_required: s.consensus_required },
        }),
      sendSwarmTask: (name, message) => act(`/swarms/${enc(name)}/tasks`, { message }),
    };
  };
