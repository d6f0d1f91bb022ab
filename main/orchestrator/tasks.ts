// Tasks: the dispatch queue, runs (the 15 s window, backpressure), internal tasks, stop, lists, and recovery after a
// restart. It is the TaskHost workflows and swarms run on; the TaskExecutor runs each task to its end.
import type { RunTask, Task, TaskOrigin, Thread } from '../../shared/orchestrator.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import type { AgentRef, AgentService } from './agents.ts';
import { queueFull, zeroUsage } from './common.ts';
import { isActive, TaskExecutor, type TaskDeps } from './executor.ts';
import { taskId } from './ids.ts';
import { DispatchQueue } from './queue.ts';
import type { OrchestratorRecord, OrchestratorStore } from './store.ts';
import type { InternalTaskOptions, TaskHost } from './task-host.ts';
import { ThreadService } from './threads.ts';

const INTERRUPTED =
  'interrupted: Switchboard stopped while this task was running; it was not run again (resubmit it to run it)';

function newTask(agentId: string, body: RunTask, tenant: string, time: string, origin?: TaskOrigin): Task {
  const { thread_id, timeout_s } = body;
  return {
    task_id: taskId(),
    agent_id: agentId,
    tenant,
    status: 'queued',
    message: body.message,
    context: body.context,
    result: null,
    error: null,
    stop_reason: null,
    iterations: 0,
    usage: zeroUsage(),
    created_at: time,
    started_at: null,
    finished_at: null,
    ...(origin ? { origin } : {}),
    ...(thread_id ? { thread_id } : {}),
    ...(timeout_s ? { timeout_s } : {}),
  };
}

export class TaskService implements TaskHost {
  readonly queue: DispatchQueue<string>;
  readonly executor: TaskExecutor;
  readonly threads: ThreadService;
  /**
   * Runs between their checks and their durable record: the agent's id for a run that starts a new thread, the
   * thread's id for one that continues a thread.
   */
  private readonly submitting = new Set<string>();

  constructor(
    private readonly deps: TaskDeps,
    readonly store: OrchestratorStore,
    private readonly agents: AgentService,
  ) {
    const c = deps.config();
    this.executor = new TaskExecutor(deps, store);
    this.threads = new ThreadService(store, (id) => this.activeTaskOfThread(id));
    this.queue = new DispatchQueue(c.queue_capacity, c.workers, (id) => this.executor.execute(id));
  }

  get closed(): boolean {
    return this.executor.closed;
  }

  get saturated(): boolean {
    return this.queue.saturated;
  }

  resolveAgent(ref: string, tenant: string): AgentRef {
    return this.agents.resolveRef(ref, tenant);
  }

  /** After a restart: running tasks are failed (interrupted), their agents idle again, queued tasks queued again. */
  async recover(): Promise<void> {
    const tasks = [...this.store.tasks.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
    const resumed: string[] = [];
    for (const t of tasks) {
      if (t.status !== 'running') continue;
      // Waiting for a person's approval: it goes on from there, and the approval can still be given (approvals.ts).
      if (this.executor.resumable(t)) {
        resumed.push(t.task_id);
        continue;
      }
      await this.executor.approvals.cancel(t.task_id, 'Switchboard stopped while the task was running');
      const patch = { status: 'failed', error: INTERRUPTED, stop_reason: 'interrupted' } as const;
      await this.executor.finish(t, patch, { type: 'failed', error: INTERRUPTED });
    }
    for (const a of this.store.agents.values()) {
      if (a.status !== 'running' || this.activeTaskOf(a.id)) continue;
      await this.store.commit({ type: 'agent.put', data: { ...a, status: 'idle' } });
    }
    for (const id of resumed) this.queue.push(id);
    for (const t of tasks) {
      if (t.status !== 'queued') continue;
      if (t.origin?.kind !== 'swarm') {
        this.queue.push(t.task_id);
        continue;
      }
      // A swarm's queued turn has no one waiting for it any more (SwarmService.resume fails its swarm task).
      const error = 'interrupted: Switchboard stopped before this swarm task could go on';
      const patch = { status: 'failed', error, stop_reason: 'interrupted' } as const;
      await this.executor.finish(t, patch, { type: 'failed', error: 'interrupted' });
    }
  }

  configure(): void {
    const c = this.deps.config();
    this.queue.configure(c.queue_capacity, c.workers);
  }

  close(): Promise<void> {
    return this.executor.close();
  }

  /** True once a worker holds the task (its "running" record may still be on its way to disk). */
  isRunning(taskId: string): boolean {
    return this.executor.isRunning(taskId);
  }

  isSubmitting(agentId: string): boolean {
    if (this.submitting.has(agentId)) return true;
    for (const key of this.submitting) if (this.store.threads.get(key)?.agent_id === agentId) return true;
    return false;
  }

  activeTaskOf(agentId: string): Task | undefined {
    return this.oldest(this.store.activeOfAgent(agentId));
  }

  activeTaskOfThread(threadId: string): Task | undefined {
    return this.oldest(this.store.activeOfThread(threadId));
  }

  /** The first of the tasks in the store's order (as the scan of every task found it). */
  private oldest(ids: ReadonlySet<string>): Task | undefined {
    if (ids.size === 0) return undefined;
    if (ids.size === 1) for (const id of ids) return this.store.tasks.get(id);
    for (const t of this.store.tasks.values()) if (ids.has(t.task_id)) return t;
    return undefined;
  }

  get(id: string, tenant: string): Task {
    const t = this.store.tasks.get(id);
    if (!t || t.tenant !== tenant) {
      throw new ApiError('task_not_found', `No task "${id}".`, 'List tasks with GET /api/v1/tasks.');
    }
    return t;
  }

  list(tenant: string, filter: { agent_id?: string; status?: string; thread_id?: string }, limit: number, offset = 0) {
    const all = [...this.store.tasks.values()]
      .filter((t) => t.tenant === tenant && (!filter.agent_id || t.agent_id === filter.agent_id))
      .filter(
        (t) =>
          (!filter.status || t.status === filter.status) && (!filter.thread_id || t.thread_id === filter.thread_id),
      )
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.task_id.localeCompare(a.task_id));
    return { data: all.slice(offset, offset + limit), total: all.length, limit, offset };
  }

  /** DELETE /tasks/:id: a task that is over leaves the list (its events stay in the history); 409 while active. */
  async delete(id: string, tenant: string): Promise<void> {
    const t = this.get(id, tenant);
    if (isActive(t) || this.executor.isRunning(id)) {
      throw new ApiError(
        'task_running',
        `Task "${id}" is ${t.status}; only a task that is over can be deleted.`,
        `Stop it first (POST /api/v1/tasks/${id}/stop), then delete it.`,
        { task_id: id, status: t.status },
      );
    }
    await this.store.commit({ type: 'task.deleted', data: { id } });
  }

  /**
   * POST /agents/:id/run: a run that starts a new thread is held to the 15 s window of the agent; one that goes on
   * with a thread, to one task at a time in that thread. Then backpressure, then a durable queued task (and the new
   * thread, if any, in the same batch).
   */
  async run(id: string, body: RunTask, tenant: string): Promise<Task> {
    const agent = this.agents.get(id, tenant);
    const thread = body.thread_id ? this.threads.get(body.thread_id, tenant) : undefined;
    if (thread && thread.agent_id !== id) {
      const message = `belongs to agent ${thread.agent_id}; a thread goes on with the agent that started it`;
      throw invalidRequest([{ field: 'thread_id', message }], 'Run that agent, or leave out thread_id.');
    }
    const now = Date.now();
    const key = thread?.id ?? id;
    if (thread) {
      const active = this.activeTaskOfThread(thread.id);
      if (this.submitting.has(key) || active) throw this.threadBusy(id, thread, active);
    } else {
      const lastRun = agent.last_run_at ? Date.parse(agent.last_run_at) : 0;
      if (this.submitting.has(key) || now - lastRun < this.deps.config().run_window_ms) {
        throw this.busy(id, undefined, lastRun, now);
      }
    }
    if (this.queue.saturated) throw queueFull({ depth: this.queue.depth, capacity: this.deps.config().queue_capacity });
    this.submitting.add(key);
    try {
      const time = new Date(now).toISOString();
      const fresh = thread ? null : this.threads.create(id, tenant, time);
      const task = newTask(id, { ...body, thread_id: thread?.id ?? fresh?.id }, tenant, time);
      // A new thread moves the agent's last_run_at (the window counts from it); a thread's next turn does not.
      const records: OrchestratorRecord[] = [
        ...(fresh ? [{ type: 'thread.put', data: fresh } as const] : []),
        { type: 'task.put', data: task },
        { type: 'agent.put', data: { ...agent, status: 'running', ...(fresh ? { last_run_at: time } : {}) } },
      ];
      await this.store.commit(...records);
      this.queue.push(task.task_id);
      return this.store.tasks.get(task.task_id) as Task;
    } finally {
      this.submitting.delete(key);
    }
  }

  /** 409 agent_busy for a thread: its previous run is still queued or running (one run per thread at a time). */
  private threadBusy(agentId: string, thread: Thread, active: Task | undefined): ApiError {
    const details = {
      agent_id: agentId,
      thread_id: thread.id,
      running_task_id: active?.task_id ?? null,
      retry_after_seconds: null,
      available_at: null,
      reason: 'the thread has a queued or running task; it may go on when that task ends (or is stopped)',
    };
    const action = active ? `Wait for task ${active.task_id} to end, or stop it.` : 'Retry in a moment.';
    return new ApiError('agent_busy', `Thread "${thread.id}" of agent "${agentId}" is still running.`, action, details);
  }

  /** 429 agent_busy: the agent runs a task (wait for it) or ran less than the window ago (Retry-After). */
  private busy(id: string, active: Task | undefined, lastRun: number, now: number): ApiError {
    const windowMs = this.deps.config().run_window_ms;
    const availableAt = lastRun + windowMs;
    const retryMs = Math.max(0, availableAt - now);
    const details = {
      agent_id: id,
      running_task_id: active?.task_id ?? null,
      retry_after_seconds: active ? null : Math.ceil(retryMs / 1000),
      available_at: active ? null : new Date(Math.max(availableAt, now)).toISOString(),
      reason: active
        ? 'the agent is running a task; it may run again when that task ends (or is stopped)'
        : `runs of one agent are at least ${windowMs / 1000} s apart`,
    };
    const err = new ApiError(
      'agent_busy',
      `Agent "${id}" was run less than ${windowMs / 1000} s ago or is still running.`,
      active ? `Wait for task ${active.task_id} to end, or stop it.` : `Retry after ${details.available_at}.`,
      details,
    );
    if (!active) err.headers['retry-after'] = String(Math.max(1, Math.ceil(retryMs / 1000)));
    return err;
  }

  /**
   * A task started by a workflow step or a swarm. Unlike POST /agents/:id/run it ignores the 15 s window and does not
   * move `last_run_at` (the window guards against a client submitting twice; these submissions are the service's
   * own, made once per durable step record), and it does not wait for the agent's other tasks. `nested` runs it at
   * once in the caller's worker slot (a coordinator waiting for the member it delegated to) instead of the queue.
   */
  async submitInternal(
    agentId: string,
    body: RunTask,
    tenant: string,
    origin: TaskOrigin,
    opts: InternalTaskOptions = {},
  ): Promise<Task> {
    const agent = this.agents.get(agentId, tenant);
    while (!opts.nested && !this.closed && this.queue.depth >= this.deps.config().queue_capacity) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const task = newTask(agentId, body, tenant, new Date().toISOString(), origin);
    // With the caller's own records (the run step or swarm round naming this task) in one durable batch.
    await this.store.commit(
      { type: 'task.put', data: task },
      { type: 'agent.put', data: { ...agent, status: 'running' } },
      ...(opts.records?.(task) ?? []),
    );
    if (opts.tools) this.executor.giveTools(task.task_id, opts.tools);
    if (opts.nested) void this.executor.execute(task.task_id);
    else this.queue.push(task.task_id);
    return task;
  }

  waitForTask(id: string): Promise<Task | null> {
    return this.executor.waitForTask(id);
  }

  async stop(id: string, tenant: string): Promise<Task> {
    const t = this.get(id, tenant);
    const aborted = this.executor.abort(id);
    if (aborted) {
      await aborted;
    } else if (t.status === 'queued' && this.queue.remove((q) => q === id)) {
      const error = 'stopped by request before it started';
      await this.executor.finish(t, { status: 'stopped', error, stop_reason: 'stopped' }, { type: 'stopped' });
    } else if (t.status === 'running' && this.queue.remove((q) => q === id)) {
      // Waiting (after a restart) for a worker to go on from its approval: it ends here.
      await this.executor.approvals.cancel(id, 'the task was stopped');
      const patch = { status: 'stopped', error: 'stopped by request', stop_reason: 'stopped' } as const;
      await this.executor.finish(t, patch, { type: 'stopped' });
    } else {
      throw new ApiError(
        'task_not_running',
        `Task "${id}" is ${t.status}; only queued or running tasks can be stopped.`,
        'Nothing to do.',
        { task_id: id, status: t.status },
      );
    }
    return this.store.tasks.get(id) as Task;
  }
}
