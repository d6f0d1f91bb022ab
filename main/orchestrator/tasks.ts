// Tasks: the dispatch queue, runs (the 15 s window, Idempotency-Key, backpressure), internal tasks, stop, lists, and
// the spec's rule for tasks whose holder is gone (a restart, or in Redis mode an instance whose lease ran out). It is
// the TaskHost workflows and swarms run on; the TaskExecutor runs each task to its end.
import {
  IDEMPOTENCY_TTL_MS,
  type RunTask,
  type Task,
  type TaskOrigin,
  type Thread,
} from '../../shared/orchestrator.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import type { AgentRef, AgentService } from './agents.ts';
import { queueFull, zeroUsage } from './common.ts';
import { isActive, TaskExecutor, type TaskDeps } from './executor.ts';
import { taskId } from './ids.ts';
import { DispatchQueue } from './queue.ts';
import type { OrchestratorRecord } from './store/records.ts';
import { ClaimRefused, type Claim, type Delivery, type OrchestratorStore, type WorkItem } from './store/types.ts';
import type { InternalTaskOptions, TaskHost } from './task-host.ts';
import { ThreadService } from './threads.ts';

const INTERRUPTED =
  'interrupted: Switchboard stopped while this task was running; it was not run again (resubmit it to run it)';
const INTERRUPTED_ELSEWHERE = (from: string) =>
  `interrupted: the instance running this task (${from}) stopped answering and its lease ran out; it was not run again (resubmit it to run it)`;
/** How long a stop of a task another instance runs waits for its end before answering with the task as it is. */
const REMOTE_STOP_WAIT_MS = 10_000;
/** How long a retry waits for the first request of its Idempotency-Key to land (it is between checks and disk). */
const IDEMPOTENT_WAIT_MS = 5_000;

export const taskItem = (t: Pick<Task, 'tenant' | 'task_id'>): WorkItem => ({
  kind: 'task',
  tenant: t.tenant,
  id: t.task_id,
});

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

/** What a run answers: the task, and whether it is the task an earlier request with the same Idempotency-Key made. */
export type RunResult = { task: Task; replayed: boolean };

export class TaskService implements TaskHost {
  readonly queue: DispatchQueue<string>;
  readonly executor: TaskExecutor;
  readonly threads: ThreadService;
  /** Runs of each agent between their checks and their durable record (deleting the agent waits for them). */
  private readonly submitting = new Map<string, number>();

  constructor(
    private readonly deps: TaskDeps,
    readonly store: OrchestratorStore,
    private readonly agents: AgentService,
  ) {
    const c = deps.config();
    this.executor = new TaskExecutor(deps, store);
    this.threads = new ThreadService(store, (id) => this.activeTaskOfThread(id));
    this.queue = new DispatchQueue(c.queue_capacity, c.workers, (id) =>
      this.executor.execute(id).finally(() => store.workFreed()),
    );
    // Redis mode reads as many tasks from the team's queue as this instance has free workers.
    store.onWork(
      'task',
      (d) => this.onTask(d),
      () => this.freeSlots(),
    );
    store.onControl((c) => {
      if (c.kind === 'stop_task' && this.executor.isRunning(c.id)) void this.stop(c.id, c.tenant).catch(() => {});
      // Taken over by another instance (this one paused past its lease): stop here, writing nothing more.
      if (c.kind === 'lease_lost' && c.item === 'task')
        this.executor.lost(taskItem({ tenant: c.tenant, task_id: c.id }));
    });
  }

  get closed(): boolean {
    return this.executor.closed;
  }

  /** True when new submissions are refused: the dispatch queue is 80 % full or more (Redis: the tenant's queue). */
  saturatedFor(_tenant: string): boolean {
    // Redis: the team's queue is counted atomically with each run's write (a queue_room claim).
    return this.store.kind === 'embedded' && this.queue.saturated;
  }

  get saturated(): boolean {
    return this.queue.saturated;
  }

  private freeSlots(): number {
    const c = this.deps.config();
    return Math.max(0, c.workers - this.queue.running - this.queue.depth);
  }

  resolveAgent(ref: string, tenant: string): AgentRef {
    return this.agents.resolveRef(ref, tenant);
  }

  /**
   * A task handed to this instance: queued for a worker; or, when its holder is gone (`reclaimed`), the spec's rule:
   * a task that was running ends failed (interrupted) and is never run again, except one waiting for a person's
   * approval (nothing ran since it was recorded), which goes on from there; a queued task is queued again (a swarm's
   * queued turn fails: its swarm task fails with it).
   */
  private async onTask(d: Delivery): Promise<void> {
    const t = this.store.tasks.get(d.id);
    const item = taskItem({ tenant: d.tenant, task_id: d.id });
    // Running here: reclaimed, this instance's renewal came late and its own reaper took the lease over (the new
    // fence is this instance's): it goes on here. Delivered: a second queue entry of it, which goes.
    if (this.executor.isRunning(d.id)) {
      if (!d.reclaimed) await this.store.commitWith({ letGo: item }).catch(() => undefined);
      return;
    }
    if (!d.reclaimed) {
      // A delivery starts a queued task. One that is over, or running (an entry handed out twice: redelivered once
      // idle past the lease, while the instance it went to first started it), is let go, never resumed: only a
      // reclaim (a lease that ran out) judges a running task, and the lease it releases is not touched here.
      if (t?.status === 'queued') this.queue.push(t.task_id);
      else await this.store.commitWith({ letGo: item }).catch(() => undefined);
      return;
    }
    if (!t || !isActive(t)) {
      await this.store.commitWith({ done: item }).catch(() => undefined); // nothing left to do: let it go
      return;
    }
    const from = d.reclaimed.from;
    if (t.status === 'running' && this.executor.resumable(t)) {
      if (from) this.executor.resumedFrom(t.task_id, from);
      this.queue.push(t.task_id);
      return;
    }
    if (t.status === 'queued' && t.origin?.kind !== 'swarm') {
      this.queue.push(t.task_id);
      return;
    }
    if (t.status === 'running') {
      const error = from ? INTERRUPTED_ELSEWHERE(from) : INTERRUPTED;
      await this.executor.approvals.cancel(t.task_id, 'Switchboard stopped while the task was running');
      const patch = { status: 'failed', error, stop_reason: 'interrupted' } as const;
      await this.executor.finish(t, patch, { type: 'failed', error });
      return;
    }
    // A swarm's queued turn has no one waiting for it any more (the swarm task fails: swarms.ts).
    const error = 'interrupted: Switchboard stopped before this swarm task could go on';
    const patch = { status: 'failed', error, stop_reason: 'interrupted' } as const;
    await this.executor.finish(t, patch, { type: 'failed', error: 'interrupted' });
  }

  configure(): void {
    const c = this.deps.config();
    this.queue.configure(c.queue_capacity, c.workers);
    this.store.workFreed();
  }

  close(): Promise<void> {
    return this.executor.close();
  }

  /** True once a worker holds the task (its "running" record may still be on its way to disk). */
  isRunning(taskId: string): boolean {
    return this.executor.isRunning(taskId);
  }

  isSubmitting(agentId: string): boolean {
    return (this.submitting.get(agentId) ?? 0) > 0;
  }

  activeTaskOf(agentId: string): Task | undefined {
    return this.oldest(this.store.activeOfAgent(agentId));
  }

  activeTaskOfThread(threadId: string): Task | undefined {
    return this.oldest(this.store.activeOfThread(threadId));
  }

  /** The first made of the tasks. */
  private oldest(ids: ReadonlySet<string>): Task | undefined {
    let first: Task | undefined;
    for (const id of ids) {
      const t = this.store.tasks.get(id);
      if (t && (!first || t.created_at < first.created_at)) first = t;
    }
    return first;
  }

  get(id: string, tenant: string): Task {
    const t = this.store.tasks.get(id);
    if (!t || t.tenant !== tenant) {
      throw new ApiError('task_not_found', `No task "${id}".`, 'List tasks with GET /api/v1/tasks.');
    }
    return t;
  }

  /** Newest first: the tenant's tasks are kept in order, so a page walks back from the end (no sort per request). */
  list(tenant: string, filter: { agent_id?: string; status?: string; thread_id?: string }, limit: number, offset = 0) {
    const all = this.store.tasksOf(tenant);
    const data: Task[] = [];
    let total = 0;
    const { agent_id, status, thread_id } = filter;
    for (let i = all.length - 1; i >= 0; i--) {
      const t = all[i] as Task;
      if ((agent_id && t.agent_id !== agent_id) || (status && t.status !== status)) continue;
      if (thread_id && t.thread_id !== thread_id) continue;
      if (total >= offset && data.length < limit) data.push(t);
      total++;
    }
    return { data, total, limit, offset };
  }

  /** DELETE /tasks/:id: a task that is over leaves the list (its events stay in the history); 409 while active. */
  async delete(id: string, tenant: string): Promise<void> {
    const t = this.get(id, tenant);
    const running = () =>
      new ApiError(
        'task_running',
        `Task "${id}" is ${t.status}; only a task that is over can be deleted.`,
        `Stop it first (POST /api/v1/tasks/${id}/stop), then delete it.`,
        { task_id: id, status: t.status },
      );
    if (isActive(t) || this.executor.isRunning(id)) throw running();
    const over: Claim = { kind: 'status', tenant, record: 'task', id, in: ['completed', 'failed', 'stopped'] };
    try {
      await this.store.commitWith({ claims: [over] }, { type: 'task.deleted', data: { id } });
    } catch (err) {
      if (err instanceof ClaimRefused) throw running();
      throw err;
    }
  }

  /**
   * POST /agents/:id/run: a run that starts a new thread is held to the 15 s window of the agent, unless it carries an
   * Idempotency-Key (the key is then what guards against a duplicate: a retry with it gets the first run's task back);
   * one that goes on with a thread, to one task at a time in that thread. Then backpressure, then a durable queued
   * task (and the new thread, if any, in the same batch), each condition claimed atomically with the write.
   */
  async run(id: string, body: RunTask, tenant: string, idempotencyKey?: string): Promise<RunResult> {
    const agent = this.agents.get(id, tenant);
    if (idempotencyKey) {
      const earlier = this.byIdempotencyKey(id, tenant, idempotencyKey);
      if (earlier) return { task: this.sameRun(earlier, body), replayed: true };
    }
    const thread = body.thread_id ? this.threads.get(body.thread_id, tenant) : undefined;
    if (thread && thread.agent_id !== id) {
      const message = `belongs to agent ${thread.agent_id}; a thread goes on with the agent that started it`;
      throw invalidRequest([{ field: 'thread_id', message }], 'Run that agent, or leave out thread_id.');
    }
    const now = Date.now();
    const windowMs = this.deps.config().run_window_ms;
    const windowed = !thread && !idempotencyKey && windowMs > 0;
    if (thread) {
      const active = this.activeTaskOfThread(thread.id);
      if (active) throw this.threadBusy(id, thread, active);
    } else if (windowed) {
      const lastRun = agent.last_run_at ? Date.parse(agent.last_run_at) : 0;
      if (now - lastRun < windowMs) throw this.busy(id, lastRun + windowMs - now);
    }
    if (this.saturatedFor(tenant)) {
      throw queueFull({ depth: this.queue.depth, capacity: this.deps.config().queue_capacity });
    }
    const time = new Date(now).toISOString();
    const fresh = thread ? null : this.threads.create(id, tenant, time);
    const task = newTask(id, { ...body, thread_id: thread?.id ?? fresh?.id }, tenant, time);
    if (idempotencyKey) task.idempotency_key = idempotencyKey;
    const claims: Claim[] = [];
    if (thread) claims.push({ kind: 'thread_idle', tenant, thread_id: thread.id, task_id: task.task_id });
    if (windowed) claims.push({ kind: 'run_window', tenant, agent_id: id, ms: windowMs });
    if (this.store.kind === 'redis')
      claims.push({ kind: 'queue_room', tenant, capacity: this.deps.config().queue_capacity });
    if (idempotencyKey)
      claims.push({
        kind: 'idempotency',
        tenant,
        agent_id: id,
        key: idempotencyKey,
        task_id: task.task_id,
        ttl_ms: IDEMPOTENCY_TTL_MS,
      });
    // A new thread moves the agent's last_run_at (the window counts from it); a thread's next turn does not.
    const records: OrchestratorRecord[] = [
      ...(fresh ? [{ type: 'thread.put', data: fresh } as const] : []),
      { type: 'task.put', data: task },
      ...(fresh ? [{ type: 'agent.patch', data: { id, fields: { last_run_at: time } } } as const] : []),
    ];
    this.submitting.set(id, (this.submitting.get(id) ?? 0) + 1);
    try {
      await this.store.commitWith({ claims, enqueue: [taskItem(task)] }, ...records);
    } catch (err) {
      if (!(err instanceof ClaimRefused)) throw err;
      if (err.claim.kind === 'idempotency')
        return { task: this.sameRun(await this.landed(err.holder, tenant), body), replayed: true };
      if (err.claim.kind === 'queue_room')
        throw queueFull({ capacity: this.deps.config().queue_capacity, scope: 'the team queue of this tenant' });
      if (err.claim.kind === 'thread_idle' && thread)
        throw this.threadBusy(id, thread, this.store.tasks.get(err.holder ?? ''));
      throw this.busy(id, err.retryAfterMs ?? windowMs);
    } finally {
      const n = (this.submitting.get(id) ?? 1) - 1;
      if (n > 0) this.submitting.set(id, n);
      else this.submitting.delete(id);
    }
    return { task: this.store.tasks.get(task.task_id) ?? task, replayed: false };
  }

  /** The task an earlier run of the agent made under this Idempotency-Key (within the key's time), if any. */
  private byIdempotencyKey(agentId: string, tenant: string, key: string): Task | undefined {
    const all = this.store.tasksOf(tenant);
    const since = new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();
    for (let i = all.length - 1; i >= 0; i--) {
      const t = all[i] as Task;
      if (t.created_at < since) break;
      if (t.idempotency_key === key && t.agent_id === agentId) return t;
    }
    return undefined;
  }

  /** The task of a claimed Idempotency-Key whose request is still between its claim and its durable record. */
  private async landed(taskIdHeld: string | null, tenant: string): Promise<Task> {
    const id = taskIdHeld ?? '';
    await this.store.waits.wait(id, () => this.store.tasks.has(id), IDEMPOTENT_WAIT_MS);
    await this.store.sync(tenant);
    const t = this.store.tasks.get(id);
    if (!t)
      throw new ApiError('agent_busy', 'A run with this Idempotency-Key is being submitted.', 'Retry in a moment.');
    return t;
  }

  /** A retry must send what the first request sent: another body under the same key is a client's mistake (422). */
  private sameRun(earlier: Task, body: RunTask): Task {
    const same =
      earlier.message === body.message &&
      JSON.stringify(earlier.context) === JSON.stringify(body.context) &&
      (earlier.timeout_s ?? null) === (body.timeout_s ?? null) &&
      (!body.thread_id || body.thread_id === earlier.thread_id);
    if (same) return earlier;
    throw new ApiError(
      'idempotency_key_reused',
      `The Idempotency-Key "${earlier.idempotency_key}" was used by an earlier run of this agent (task ${earlier.task_id}) with another body.`,
      'Send a new Idempotency-Key for a new run; a retry sends the same body as the first request.',
      { task_id: earlier.task_id },
    );
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

  /** 409 agent_busy: the agent ran a new thread less than the window ago (Retry-After). */
  private busy(id: string, retryMs: number): ApiError {
    const windowMs = this.deps.config().run_window_ms;
    const now = Date.now();
    const available = new Date(now + Math.max(0, retryMs)).toISOString();
    const details = {
      agent_id: id,
      running_task_id: null,
      retry_after_seconds: Math.ceil(Math.max(0, retryMs) / 1000),
      available_at: available,
      reason: `runs of one agent that start a new thread are at least ${windowMs / 1000} s apart`,
    };
    const err = new ApiError(
      'agent_busy',
      `Agent "${id}" started a new thread less than ${windowMs / 1000} s ago.`,
      `Retry after ${available}, continue a thread (thread_id), or send an Idempotency-Key header.`,
      details,
    );
    err.headers['retry-after'] = String(Math.max(1, Math.ceil(retryMs / 1000)));
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
    this.agents.get(agentId, tenant);
    while (!opts.nested && !this.closed && this.queue.depth >= this.deps.config().queue_capacity) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const task = newTask(agentId, body, tenant, new Date().toISOString(), origin);
    // Tools given to the task are this process's (a coordinator's `delegate` drives its swarm task from here): such a
    // task runs here, in this instance's workers, not through the team's queue, where another instance would run it
    // without them. Nobody else runs it: when this instance dies before it starts, its swarm task is reclaimed and
    // fails it (swarms.ts).
    const here = !opts.nested && opts.tools !== undefined;
    if (opts.tools) this.executor.giveTools(task.task_id, opts.tools);
    // With the caller's own records (the run step or swarm round naming this task) in one durable batch.
    await this.store.commitWith(
      { enqueue: opts.nested || here ? [] : [taskItem(task)], ...(opts.as ? { as: opts.as } : {}) },
      { type: 'task.put', data: task },
      ...(opts.records?.(task) ?? []),
    );
    if (opts.nested) void this.executor.execute(task.task_id);
    if (here) this.queue.push(task.task_id);
    return task;
  }

  waitForTask(id: string): Promise<Task | null> {
    return this.executor.waitForTask(id);
  }

  /**
   * Ends the swarm task's turns that never started (failed, interrupted): its driver is gone, and a turn that runs in
   * its driver's process (a coordinator's, a member's) has no queue entry for another instance to find. Each is
   * claimed while still queued, so one its driver starts meanwhile (paused, not gone) is not ended here.
   */
  async interruptQueuedTurns(swarmTaskId: string, tenant: string): Promise<void> {
    const error = 'interrupted: Switchboard stopped before this swarm task could go on';
    for (const t of [...this.store.tasks.values()]) {
      if (t.tenant !== tenant || t.status !== 'queued') continue;
      if (t.origin?.kind !== 'swarm' || t.origin.swarm_task_id !== swarmTaskId) continue;
      const queued: Claim = { kind: 'status', tenant, record: 'task', id: t.task_id, in: ['queued'] };
      const patch = { status: 'failed', error, stop_reason: 'interrupted' } as const;
      await this.executor
        .finish(t, patch, { type: 'failed', error: 'interrupted' }, { claims: [queued], holder: false })
        .catch((err: unknown) => {
          if (!(err instanceof ClaimRefused)) throw err;
        });
    }
  }

  /**
   * Stops a task: a worker here aborts it; a queued one ends at once (claimed while still queued, so a worker taking
   * it meanwhile does not run it); one another instance runs is told (through the store) and waited for.
   */
  async stop(id: string, tenant: string): Promise<Task> {
    const t = this.get(id, tenant);
    const aborted = this.executor.abort(id);
    if (aborted) {
      await aborted;
    } else if (t.status === 'queued') {
      this.queue.remove((q) => q === id);
      const error = 'stopped by request before it started';
      const queued: Claim = { kind: 'status', tenant, record: 'task', id, in: ['queued'] };
      try {
        await this.executor.finish(
          t,
          { status: 'stopped', error, stop_reason: 'stopped' },
          { type: 'stopped' },
          {
            claims: [queued],
          },
        );
      } catch (err) {
        if (!(err instanceof ClaimRefused)) throw err;
        return this.stop(id, tenant); // a worker took it meanwhile: stop it there
      }
    } else if (t.status === 'running' && this.queue.remove((q) => q === id)) {
      // Waiting (after a restart) for a worker to go on from its approval: it ends here.
      await this.executor.approvals.cancel(id, 'the task was stopped');
      const patch = { status: 'stopped', error: 'stopped by request', stop_reason: 'stopped' } as const;
      await this.executor.finish(t, patch, { type: 'stopped' });
    } else if (t.status === 'running' && this.store.kind === 'redis') {
      await this.store.signal({ kind: 'stop_task', tenant, id });
      await this.store.waits.wait(id, () => !isActive(this.store.tasks.get(id) ?? t), REMOTE_STOP_WAIT_MS);
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
