// Running tasks: a worker's run of one task through the agent loop to its durable end (completed, failed, stopped),
// the callers waiting for a task's end, and aborting running tasks (stop, shutdown).
import path from 'node:path';
import type { OrchestratorConfig } from '../../shared/config.ts';
import type { AgentEvent, Task } from '../../shared/orchestrator.ts';
import { redact } from '../observability/redact.ts';
import type { Engine } from '../proxy/engine.ts';
import { runAgentLoop, type ExtraTool } from './runner.ts';
import type { OrchestratorStore } from './store.ts';
import { workspaceFor } from './tools/registry.ts';

export type TaskDeps = { engine: () => Engine; config: () => OrchestratorConfig; dataDir: string };
export type EventPart = Pick<AgentEvent, 'type'> & Partial<AgentEvent>;

type Running = { controller: AbortController; done: Promise<void> };

const ACTIVE = new Set(['queued', 'running']);

/** Queued or running: the task has not ended yet. */
export const isActive = (t: Task): boolean => ACTIVE.has(t.status);

export class TaskExecutor {
  private readonly running = new Map<string, Running>();
  /** Callers waiting for a task's end (workflow steps, swarm rounds). */
  private readonly waiters = new Map<string, ((t: Task | null) => void)[]>();
  /** Tools given to one task only (a swarm coordinator's `delegate`). */
  private readonly tools = new Map<string, Record<string, ExtraTool>>();
  closed = false;

  constructor(
    private readonly deps: TaskDeps,
    private readonly store: OrchestratorStore,
  ) {}

  /** True once a worker holds the task (its "running" record may still be on its way to disk). */
  isRunning(taskId: string): boolean {
    return this.running.has(taskId);
  }

  giveTools(taskId: string, tools: Record<string, ExtraTool>): void {
    this.tools.set(taskId, tools);
  }

  /** Runs a queued task to its end in the caller's worker slot. */
  execute(id: string): Promise<void> {
    const t0 = this.store.tasks.get(id);
    if (!t0 || t0.status !== 'queued' || this.closed) return Promise.resolve();
    const controller = new AbortController();
    const done = this.executeRunning(t0, controller.signal).finally(() => this.running.delete(id));
    this.running.set(id, { controller, done });
    return done;
  }

  /** Stops a running task: its end, or undefined when no worker holds it. */
  abort(id: string): Promise<void> | undefined {
    const running = this.running.get(id);
    running?.controller.abort(new Error('stopped by request'));
    return running?.done;
  }

  /** The task once it is over (completed, failed or stopped); null when it is gone or the service closes. */
  waitForTask(id: string): Promise<Task | null> {
    const t = this.store.tasks.get(id);
    if (!t) return Promise.resolve(null);
    if (!isActive(t)) return Promise.resolve(t);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const list = this.waiters.get(id) ?? [];
      list.push(resolve);
      this.waiters.set(id, list);
    });
  }

  /** Releases every waiter, aborts the running tasks and waits for them (their records stay as they are). */
  async close(): Promise<void> {
    this.closed = true;
    for (const [id, waiters] of this.waiters) {
      this.waiters.delete(id);
      for (const w of waiters) w(null);
    }
    for (const r of this.running.values()) r.controller.abort(new Error('shutting down'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** The task's end: task record, its event and the agent's status, in one durable batch. */
  async finish(t: Task, patch: Partial<Task>, event: EventPart): Promise<void> {
    const current = this.store.tasks.get(t.task_id) ?? t;
    const done: Task = { ...current, ...patch, finished_at: new Date().toISOString() };
    const agent = this.store.agents.get(t.agent_id);
    const records = [
      { type: 'task.put', data: done } as const,
      this.eventRecord(done, event.type === 'completed' ? { ...event, task_id: t.task_id } : event),
    ];
    // completed → the agent is "completed"; failed or stopped → back to "idle". Either may run again (after the
    // window). An agent running other tasks too (workflows and swarms may share it) stays running until the last ends.
    const others = [...this.store.tasks.values()].some(
      (x) => x.agent_id === t.agent_id && x.task_id !== t.task_id && isActive(x),
    );
    if (agent && !others) {
      const status = done.status === 'completed' ? 'completed' : 'idle';
      records.push({ type: 'agent.put', data: { ...agent, status } } as never);
    }
    await this.store.commit(...records);
    this.tools.delete(t.task_id);
    const waiters = this.waiters.get(t.task_id);
    this.waiters.delete(t.task_id);
    for (const w of waiters ?? []) w(this.store.tasks.get(t.task_id) ?? null);
  }

  /** An event of the task, tagged with the workflow run or swarm task it belongs to. */
  private eventRecord(t: Task, e: EventPart) {
    const o = t.origin;
    const tags =
      o?.kind === 'workflow'
        ? { workflow_id: o.workflow_id, run_id: o.run_id }
        : o?.kind === 'swarm'
          ? { workflow_id: null, swarm_id: o.swarm_id, swarm_task_id: o.swarm_task_id }
          : { workflow_id: null };
    const event = { task_id: t.task_id, agent_id: t.agent_id, tenant: t.tenant, ...tags, ...e };
    return this.store.event(event as Omit<AgentEvent, 'id' | 'time'>);
  }

  private async executeRunning(t0: Task, signal: AbortSignal): Promise<void> {
    try {
      const started: Task = { ...t0, status: 'running', started_at: new Date().toISOString() };
      await this.store.commit({ type: 'task.put', data: started });
      const agent = this.store.agents.get(t0.agent_id);
      if (!agent) throw new Error('the agent was deleted');
      const cfg = this.deps.config();
      const workspaceRoot = cfg.workspace_root || path.join(this.deps.dataDir, 'workspaces');
      const outcome = await runAgentLoop(agent, started, {
        engine: this.deps.engine(),
        signal,
        emit: (e) => this.store.commit(this.eventRecord(started, e)),
        progress: async (iterations, usage) => {
          const cur = this.store.tasks.get(t0.task_id) as Task;
          await this.store.commit({ type: 'task.put', data: { ...cur, iterations, usage: { ...usage } } });
        },
        tool: { workspace: workspaceFor(workspaceRoot, agent.id), httpGet: cfg.http_get },
        extraTools: this.tools.get(t0.task_id),
      });
      signal.throwIfAborted();
      const { result, stop_reason } = outcome;
      await this.finish(t0, { status: 'completed', result, stop_reason }, { type: 'completed' });
    } catch (err) {
      try {
        if (signal.aborted && !this.closed) {
          const patch = { status: 'stopped', error: 'stopped by request', stop_reason: 'stopped' } as const;
          await this.finish(t0, patch, { type: 'stopped' });
        } else if (!this.closed) {
          const error = redact((err as Error)?.message ?? String(err)); // a model call's error may quote a provider
          await this.finish(t0, { status: 'failed', error, stop_reason: 'error' }, { type: 'failed', error });
        }
      } catch {
        // The WAL refused the end record: the task stays "running" until a restart marks it failed (interrupted).
      }
    }
  }
}
