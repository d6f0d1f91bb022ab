// The agent service: agents, tasks (dispatch queue, run window, backpressure), stop, and recovery after a restart.
import path from 'node:path';
import type { OrchestratorConfig } from '../../shared/config.ts';
import type { Agent, AgentEvent, CreateAgent, RunTask, Task, TaskOrigin, UpdateAgent } from '../../shared/orchestrator.ts';
import type { Engine } from '../proxy/engine.ts';
import { ApiError } from '../errors.ts';
import type { WalLog } from '../wal/index.ts';
import { agentId, taskId } from './ids.ts';
import { DispatchQueue } from './queue.ts';
import { runAgentLoop, type ExtraTool } from './runner.ts';
import { OrchestratorStore, type OrchestratorRecord } from './store.ts';
import { SwarmService } from './swarms.ts';
import { WorkflowService } from './workflows.ts';
import { workspaceFor } from './tools/registry.ts';

export type OrchestratorDeps = { wal: WalLog; engine: () => Engine; config: () => OrchestratorConfig; dataDir: string };

const ACTIVE = new Set(['queued', 'running']);
export const LIST_LIMIT = { default: 20, max: 100 } as const;

type Running = { controller: AbortController; done: Promise<void> };

export class Orchestrator {
  readonly store: OrchestratorStore;
  readonly queue: DispatchQueue<string>;
  private readonly running = new Map<string, Running>();
  /** Agents whose run submission is between its checks and its durable record. */
  private readonly submitting = new Set<string>();
  readonly taskCounts = new Map<string, number>();
  /** Callers waiting for a task's end (workflow steps, swarm rounds). */
  private readonly taskWaiters = new Map<string, ((t: Task | null) => void)[]>();
  /** Tools given to one task only (a swarm coordinator's `delegate`). */
  private readonly taskTools = new Map<string, Record<string, ExtraTool>>();
  readonly workflows: WorkflowService;
  readonly swarms: SwarmService;
  closed = false;

  constructor(private readonly deps: OrchestratorDeps) {
    this.store = new OrchestratorStore(deps.wal, () => deps.config().event_retention);
    const c = deps.config();
    this.queue = new DispatchQueue(c.queue_capacity, c.workers, (id) => this.execute(id));
    this.workflows = new WorkflowService(this);
    this.swarms = new SwarmService(this);
  }

  get workspaceRoot(): string {
    return this.deps.config().workspace_root || path.join(this.deps.dataDir, 'workspaces');
  }

  /** Rebuilds state from snapshot + WAL; tasks that were running are marked failed, queued ones are queued again. */
  async start(): Promise<void> {
    await this.store.load();
    const tasks = [...this.store.tasks.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (const t of tasks) {
      if (t.status !== 'running') continue;
      const error = 'interrupted: Switchboard stopped while this task was running; it was not run again (resubmit it to run it)';
      await this.finish(t, { status: 'failed', error, stop_reason: 'interrupted' }, { type: 'failed', error });
    }
    for (const a of this.store.agents.values()) {
      if (a.status === 'running' && !this.activeTaskOf(a.id)) await this.store.commit({ type: 'agent.put', data: { ...a, status: 'idle' } });
    }
    for (const t of tasks) {
      if (t.status !== 'queued') continue;
      // A swarm's queued turn has no one waiting for it any more (the swarm task is failed below): never run it.
      if (t.origin?.kind === 'swarm') await this.finish(t, { status: 'failed', error: 'interrupted: Switchboard stopped before this swarm task could go on', stop_reason: 'interrupted' }, { type: 'failed', error: 'interrupted' });
      else this.queue.push(t.task_id);
    }
    await this.workflows.resume();
    await this.swarms.resume();
  }

  configure(): void {
    const c = this.deps.config();
    this.queue.configure(c.queue_capacity, c.workers);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [id, waiters] of this.taskWaiters) {
      this.taskWaiters.delete(id);
      for (const w of waiters) w(null);
    }
    this.store.endSubscriptions();
    for (const r of this.running.values()) r.controller.abort(new Error('shutting down'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  // ---- agents

  agent(id: string, tenant: string): Agent {
    const a = this.store.agents.get(id);
    if (!a || a.tenant !== tenant) throw new ApiError('agent_not_found', `No agent "${id}".`, 'List agents with GET /api/v1/agents.');
    return a;
  }

  async createAgent(body: CreateAgent, tenant: string): Promise<Agent> {
    const now = new Date().toISOString();
    const agent: Agent = { id: agentId(), ...body, status: 'idle', tenant, created_at: now, updated_at: now, last_run_at: null };
    await this.store.commit({ type: 'agent.put', data: agent });
    return agent;
  }

  listAgents(tenant: string, status: string | undefined, limit: number, offset: number) {
    const all = [...this.store.agents.values()].filter((a) => a.tenant === tenant && (!status || a.status === status));
    return { data: all.slice(offset, offset + limit), total: all.length, limit, offset };
  }

  async updateAgent(id: string, body: UpdateAgent, tenant: string): Promise<Agent> {
    const a = this.agent(id, tenant);
    const next: Agent = { ...a, ...body, config: { ...a.config, ...body.config }, updated_at: new Date().toISOString() };
    await this.store.commit({ type: 'agent.put', data: next });
    return next;
  }

  async deleteAgent(id: string, tenant: string): Promise<void> {
    const a = this.agent(id, tenant);
    const active = this.activeTaskOf(id);
    if (a.status === 'running' || active || this.submitting.has(id)) {
      throw new ApiError('agent_running', `Agent "${id}" is running a task and cannot be deleted.`, `Stop it first: POST /api/v1/tasks/${active?.task_id ?? '<task_id>'}/stop, then retry.`, { agent_id: id, task_id: active?.task_id ?? null });
    }
    await this.store.commit({ type: 'agent.deleted', data: { id } });
  }

  // ---- tasks

  /** True once a worker holds the task (its "running" record may still be on its way to disk). */
  isRunning(taskId: string): boolean {
    return this.running.has(taskId);
  }

  activeTaskOf(agentId: string): Task | undefined {
    for (const t of this.store.tasks.values()) if (t.agent_id === agentId && ACTIVE.has(t.status)) return t;
    return undefined;
  }

  task(id: string, tenant: string): Task {
    const t = this.store.tasks.get(id);
    if (!t || t.tenant !== tenant) throw new ApiError('task_not_found', `No task "${id}".`, 'List tasks with GET /api/v1/tasks.');
    return t;
  }

  listTasks(tenant: string, filter: { agent_id?: string; status?: string }, limit: number) {
    const all = [...this.store.tasks.values()]
      .filter((t) => t.tenant === tenant && (!filter.agent_id || t.agent_id === filter.agent_id) && (!filter.status || t.status === filter.status))
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    return { data: all.slice(0, limit), total: all.length, limit };
  }

  /** POST /agents/:id/run: the 15 s window, one task per agent at a time, backpressure, then a durable queued task. */
  async run(id: string, body: RunTask, tenant: string): Promise<Task> {
    const agent = this.agent(id, tenant);
    const windowMs = this.deps.config().run_window_ms;
    const now = Date.now();
    const lastRun = agent.last_run_at ? Date.parse(agent.last_run_at) : 0;
    const active = this.activeTaskOf(id);
    if (this.submitting.has(id) || now - lastRun < windowMs || active) {
      const availableAt = lastRun + windowMs;
      const retryMs = Math.max(0, availableAt - now);
      const details = {
        agent_id: id,
        running_task_id: active?.task_id ?? null,
        retry_after_seconds: active ? null : Math.ceil(retryMs / 1000),
        available_at: active ? null : new Date(Math.max(availableAt, now)).toISOString(),
        reason: active ? 'the agent is running a task; it may run again when that task ends (or is stopped)' : `runs of one agent are at least ${windowMs / 1000} s apart`,
      };
      const err = new ApiError('agent_busy', `Agent "${id}" was run less than ${windowMs / 1000} s ago or is still running.`, active ? `Wait for task ${active.task_id} to end, or stop it.` : `Retry after ${details.available_at}.`, details);
      if (!active) err.headers['retry-after'] = String(Math.max(1, Math.ceil(retryMs / 1000)));
      throw err;
    }
    if (this.queue.saturated) {
      const err = new ApiError('queue_full', 'The dispatch queue is 80 % full or more.', 'Retry in 5 seconds.', { depth: this.queue.depth, capacity: this.deps.config().queue_capacity });
      err.headers['retry-after'] = '5';
      throw err;
    }
    this.submitting.add(id);
    try {
      const time = new Date(now).toISOString();
      const task: Task = {
        task_id: taskId(), agent_id: id, tenant, status: 'queued', message: body.message, context: body.context, result: null, error: null, stop_reason: null,
        iterations: 0, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, created_at: time, started_at: null, finished_at: null,
      };
      await this.store.commit({ type: 'task.put', data: task }, { type: 'agent.put', data: { ...agent, status: 'running', last_run_at: time } });
      this.queue.push(task.task_id);
      return this.store.tasks.get(task.task_id) as Task;
    } finally {
      this.submitting.delete(id);
    }
  }

  /**
   * A task started by a workflow step or a swarm. Unlike POST /agents/:id/run it ignores the 15 s window and does not
   * move `last_run_at` (the window guards against a client submitting twice; these submissions are the service's
   * own, made once per durable step record), and it does not wait for the agent's other tasks. `nested` runs it at
   * once in the caller's worker slot (a coordinator waiting for the member it delegated to) instead of the queue.
   */
  async submitInternal(agentId: string, body: RunTask, tenant: string, origin: TaskOrigin, opts: { nested?: boolean; tools?: Record<string, ExtraTool>; records?: (task: Task) => OrchestratorRecord[] } = {}): Promise<Task> {
    const agent = this.agent(agentId, tenant);
    while (!opts.nested && !this.closed && this.queue.depth >= this.deps.config().queue_capacity) await new Promise((r) => setTimeout(r, 100));
    const time = new Date().toISOString();
    const task: Task = {
      task_id: taskId(), agent_id: agentId, tenant, status: 'queued', message: body.message, context: body.context, result: null, error: null, stop_reason: null,
      iterations: 0, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, created_at: time, started_at: null, finished_at: null, origin,
    };
    // With the caller's own records (the run step or swarm round naming this task) in one durable batch.
    await this.store.commit({ type: 'task.put', data: task }, { type: 'agent.put', data: { ...agent, status: 'running' } }, ...(opts.records?.(task) ?? []));
    if (opts.tools) this.taskTools.set(task.task_id, opts.tools);
    if (opts.nested) void this.execute(task.task_id);
    else this.queue.push(task.task_id);
    return task;
  }

  /** Resolves with the task once it is over (completed, failed or stopped); null when it is gone or the service closes. */
  waitForTask(id: string): Promise<Task | null> {
    const t = this.store.tasks.get(id);
    if (!t) return Promise.resolve(null);
    if (!ACTIVE.has(t.status)) return Promise.resolve(t);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const list = this.taskWaiters.get(id) ?? [];
      list.push(resolve);
      this.taskWaiters.set(id, list);
    });
  }

  async stop(id: string, tenant: string): Promise<Task> {
    const t = this.task(id, tenant);
    const running = this.running.get(id);
    if (running) {
      running.controller.abort(new Error('stopped by request'));
      await running.done;
    } else if (t.status === 'queued' && this.queue.remove((q) => q === id)) {
      await this.finish(t, { status: 'stopped', error: 'stopped by request before it started', stop_reason: 'stopped' }, { type: 'stopped' });
    } else {
      throw new ApiError('task_not_running', `Task "${id}" is ${t.status}; only queued or running tasks can be stopped.`, 'Nothing to do.', { task_id: id, status: t.status });
    }
    return this.store.tasks.get(id) as Task;
  }

  private emitRecord(t: Task, e: Pick<AgentEvent, 'type'> & Partial<AgentEvent>) {
    const o = t.origin;
    const tags = o?.kind === 'workflow' ? { workflow_id: o.workflow_id, run_id: o.run_id } : o?.kind === 'swarm' ? { workflow_id: null, swarm_id: o.swarm_id, swarm_task_id: o.swarm_task_id } : { workflow_id: null };
    return this.store.event({ task_id: t.task_id, agent_id: t.agent_id, tenant: t.tenant, ...tags, ...e } as Omit<AgentEvent, 'id' | 'time'>);
  }

  /** The task's end: task record, its event and the agent's status, in one durable batch. */
  private async finish(t: Task, patch: Partial<Task>, event: Pick<AgentEvent, 'type'> & Partial<AgentEvent>): Promise<void> {
    const current = this.store.tasks.get(t.task_id) ?? t;
    const done: Task = { ...current, ...patch, finished_at: new Date().toISOString() };
    this.count(done.status);
    const agent = this.store.agents.get(t.agent_id);
    const records = [{ type: 'task.put', data: done } as const, this.emitRecord(done, event.type === 'completed' ? { ...event, task_id: t.task_id } : event)];
    // completed → the agent is "completed"; failed or stopped → back to "idle". Either may run again (after the window).
    // An agent running other tasks too (workflows and swarms may share it) stays running until the last one ends.
    const others = [...this.store.tasks.values()].some((x) => x.agent_id === t.agent_id && x.task_id !== t.task_id && ACTIVE.has(x.status));
    if (agent && !others) records.push({ type: 'agent.put', data: { ...agent, status: done.status === 'completed' ? 'completed' : 'idle' } } as never);
    await this.store.commit(...records);
    this.taskTools.delete(t.task_id);
    const waiters = this.taskWaiters.get(t.task_id);
    this.taskWaiters.delete(t.task_id);
    for (const w of waiters ?? []) w(this.store.tasks.get(t.task_id) ?? null);
  }

  private count(status: string): void {
    this.taskCounts.set(status, (this.taskCounts.get(status) ?? 0) + 1);
  }

  private execute(id: string): Promise<void> {
    const t0 = this.store.tasks.get(id);
    if (!t0 || t0.status !== 'queued' || this.closed) return Promise.resolve();
    const controller = new AbortController();
    const done = this.executeRunning(t0, controller.signal).finally(() => this.running.delete(id));
    this.running.set(id, { controller, done });
    return done;
  }

  private async executeRunning(t0: Task, signal: AbortSignal): Promise<void> {
    try {
      const started: Task = { ...t0, status: 'running', started_at: new Date().toISOString() };
      await this.store.commit({ type: 'task.put', data: started });
      const agent = this.store.agents.get(t0.agent_id);
      if (!agent) throw new Error('the agent was deleted');
      const cfg = this.deps.config();
      const outcome = await runAgentLoop(agent, started, {
        engine: this.deps.engine(),
        signal,
        emit: (e) => this.store.commit(this.emitRecord(started, e)),
        progress: async (iterations, usage) => {
          const cur = this.store.tasks.get(t0.task_id) as Task;
          await this.store.commit({ type: 'task.put', data: { ...cur, iterations, usage: { ...usage } } });
        },
        tool: { workspace: workspaceFor(this.workspaceRoot, agent.id), httpGet: cfg.http_get },
        extraTools: this.taskTools.get(t0.task_id),
      });
      signal.throwIfAborted();
      await this.finish(t0, { status: 'completed', result: outcome.result, stop_reason: outcome.stop_reason }, { type: 'completed' });
    } catch (err) {
      try {
        if (signal.aborted && !this.closed) {
          await this.finish(t0, { status: 'stopped', error: 'stopped by request', stop_reason: 'stopped' }, { type: 'stopped' });
        } else if (!this.closed) {
          const error = (err as Error)?.message ?? String(err);
          await this.finish(t0, { status: 'failed', error, stop_reason: 'error' }, { type: 'failed', error });
        }
      } catch {
        // The WAL refused the end record: the task stays "running" until a restart marks it failed (interrupted).
      }
    }
  }
}
