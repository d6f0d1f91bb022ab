// Running tasks: a worker's run of one task through the agent loop to its durable end (completed, failed, stopped),
// the callers waiting for a task's end, and aborting running tasks (stop, shutdown).
import path from 'node:path';
import type { OrchestratorConfig } from '../../shared/config.ts';
import type { AgentEvent, Task, ThreadMessage } from '../../shared/orchestrator.ts';
import { redact } from '../observability/redact.ts';
import type { HubMessage } from '../proxy/formats/hub/index.ts';
import type { Engine } from '../proxy/engine.ts';
import { ApprovalService } from './approvals.ts';
import { EventBuffer } from './event-buffer.ts';
import type { McpManager } from './mcp/manager.ts';
import { runAgentLoop, type ExtraTool } from './runner.ts';
import { isoNow, type NewEvent, type OrchestratorRecord, type OrchestratorStore } from './store.ts';
import type { LoopState } from './tool-calls.ts';
import { workspaceFor } from './tools/registry.ts';

export type TaskDeps = {
  engine: () => Engine;
  config: () => OrchestratorConfig;
  dataDir: string;
  /** The MCP servers of config.json (absent: agents get no MCP tools). */
  mcp?: McpManager;
};
export type EventPart = Pick<AgentEvent, 'type'> & Partial<AgentEvent>;

/** done: the task's end is durable (or it failed); release: frees its worker's slot (see execute). */
type Running = { controller: AbortController; done: Promise<void>; release: () => void };

const ACTIVE = new Set(['queued', 'running']);

/** Queued or running: the task has not ended yet. */
export const isActive = (t: Task): boolean => ACTIVE.has(t.status);

/** The abort reason of a task that ran past its `timeout_s`. */
class TaskTimeout extends Error {
  constructor(readonly seconds: number) {
    super(`timed out after ${seconds} s (the run's timeout_s)`);
  }
}

export class TaskExecutor {
  private readonly running = new Map<string, Running>();
  /** Callers waiting for a task's end (workflow steps, swarm rounds). */
  private readonly waiters = new Map<string, ((t: Task | null) => void)[]>();
  /** Tools given to one task only (a swarm coordinator's `delegate`). */
  private readonly tools = new Map<string, Record<string, ExtraTool>>();
  closed = false;
  /** Tool calls waiting for a person's decision (approvals.ts). */
  readonly approvals: ApprovalService;

  constructor(
    private readonly deps: TaskDeps,
    private readonly store: OrchestratorStore,
  ) {
    this.approvals = new ApprovalService(
      store,
      deps.config,
      (t, e) => this.eventOf(t, e),
      () => this.closed,
    );
  }

  /**
   * The state a running task goes on from after a restart: it was waiting for a person's approval (nothing ran
   * since the pending record was written). Swarm turns are not resumed (their swarm task fails at restart).
   */
  resumable(t: Task): LoopState | null {
    if (t.status !== 'running' || t.origin?.kind === 'swarm' || this.running.has(t.task_id)) return null;
    return (this.approvals.resumeOf(t.task_id)?.state as LoopState | undefined) ?? null;
  }

  /** True once a worker holds the task (its "running" record may still be on its way to disk). */
  isRunning(taskId: string): boolean {
    return this.running.has(taskId);
  }

  giveTools(taskId: string, tools: Record<string, ExtraTool>): void {
    this.tools.set(taskId, tools);
  }

  /**
   * Runs a queued task to its end in the caller's worker slot. The slot is free (the promise resolves) once the task's
   * end record is handed to the WAL: its fsync (and with it the end's being visible: the store applies a record only
   * once durable) overlaps the next task's start instead of holding a worker idle.
   */
  execute(id: string): Promise<void> {
    const t0 = this.store.tasks.get(id);
    if (!t0 || this.closed) return Promise.resolve();
    const resume = this.resumable(t0);
    if (t0.status !== 'queued' && !resume) return Promise.resolve();
    if (resume) this.approvals.markResuming(id, this.approvals.resumeOf(id)!.key);
    const controller = new AbortController();
    // The deadline counts from now, when a worker takes the task (time in the queue is not the task's).
    const s = t0.timeout_s;
    const deadline = s ? setTimeout(() => controller.abort(new TaskTimeout(s)), s * 1000) : undefined;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const done = this.executeRunning(t0, controller.signal, resume).finally(() => {
      clearTimeout(deadline);
      this.running.delete(id);
      release();
    });
    this.running.set(id, { controller, done, release });
    return released;
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
    this.approvals.close();
    for (const [id, waiters] of this.waiters) {
      this.waiters.delete(id);
      for (const w of waiters) w(null);
    }
    for (const r of this.running.values()) r.controller.abort(new Error('shutting down'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /**
   * The task's end: task record, its event and the agent's status (and `extra`), in one durable batch; `before`
   * goes first in it (the task's last output deltas).
   */
  async finish(
    t: Task,
    patch: Partial<Task>,
    event: EventPart,
    extra: OrchestratorRecord[] = [],
    before: OrchestratorRecord[] = [],
  ): Promise<void> {
    const current = this.store.tasks.get(t.task_id) ?? t;
    const done: Task = { ...current, ...patch, finished_at: isoNow() };
    const agent = this.store.agents.get(t.agent_id);
    const records: OrchestratorRecord[] = [
      ...before,
      { type: 'task.put', data: done } as const,
      this.eventRecord(done, event.type === 'completed' ? { ...event, task_id: t.task_id } : event),
      ...extra,
    ];
    // completed → the agent is "completed"; failed or stopped → back to "idle". Either may run again (after the
    // window). An agent running other tasks too (workflows and swarms may share it) stays running until the last ends.
    const active = this.store.activeOfAgent(t.agent_id);
    const others = active.size > (active.has(t.task_id) ? 1 : 0);
    if (agent && !others) {
      const status = done.status === 'completed' ? 'completed' : 'idle';
      records.push({ type: 'agent.put', data: { ...agent, status } } as never);
    }
    const durable = this.store.commit(...records);
    this.running.get(t.task_id)?.release(); // the end is on its way to the disk: the worker may take the next task
    await durable;
    this.tools.delete(t.task_id);
    const waiters = this.waiters.get(t.task_id);
    this.waiters.delete(t.task_id);
    for (const w of waiters ?? []) w(this.store.tasks.get(t.task_id) ?? null);
  }

  /** An event of the task, tagged with the workflow run or swarm task it belongs to. */
  private eventRecord(t: Task, e: EventPart) {
    return this.store.event(this.eventOf(t, e));
  }

  private eventOf(t: Task, e: EventPart): NewEvent {
    const o = t.origin;
    const tags =
      o?.kind === 'workflow'
        ? { workflow_id: o.workflow_id, run_id: o.run_id }
        : o?.kind === 'swarm'
          ? { workflow_id: null, swarm_id: o.swarm_id, swarm_task_id: o.swarm_task_id }
          : { workflow_id: null };
    return { task_id: t.task_id, agent_id: t.agent_id, tenant: t.tenant, ...tags, ...e } as NewEvent;
  }

  private async executeRunning(t0: Task, signal: AbortSignal, resume: LoopState | null): Promise<void> {
    const cfg = this.deps.config();
    // Output and thinking deltas are coalesced into few WAL records (event_flush_ms; 0: one record per delta).
    const buffer = cfg.event_flush_ms > 0 ? new EventBuffer(this.store, cfg.event_flush_ms) : null;
    let streamed = ''; // the output so far: a stopped task keeps it as its result
    // The last model call's iterations and usage: written with the task's next record (an event, an approval, its
    // end) rather than in a batch of their own, so a task whose first answer is final writes them with its end.
    let progressed: Pick<Task, 'iterations' | 'usage'> | null = null;
    const progressRecords = (): OrchestratorRecord[] => {
      if (!progressed) return [];
      const cur = this.store.tasks.get(t0.task_id) as Task;
      const record = { type: 'task.put', data: { ...cur, ...progressed } } as const;
      progressed = null;
      return [record];
    };
    const progressPatch = (): Partial<Task> => {
      const patch = progressed ?? {};
      progressed = null;
      return patch;
    };
    try {
      // A task resumed after a restart (it was waiting for approval) is running already.
      const started: Task = resume ? t0 : { ...t0, status: 'running', started_at: isoNow() };
      if (!resume) await this.store.commit({ type: 'task.put', data: started });
      const agent = this.store.agents.get(t0.agent_id);
      if (!agent) throw new Error('the agent was deleted');
      const workspaceRoot = cfg.workspace_root || path.join(this.deps.dataDir, 'workspaces');
      const thread = t0.thread_id ? this.store.threads.get(t0.thread_id) : undefined;
      const outcome = await runAgentLoop(agent, started, {
        engine: this.deps.engine(),
        signal,
        emit: async (e) => {
          if (e.type === 'output' && e.content) streamed += e.content;
          if (buffer && (e.type === 'output' || e.type === 'thinking')) return buffer.add(this.eventOf(started, e));
          await buffer?.drain();
          await this.store.commit(...progressRecords(), this.eventRecord(started, e));
        },
        progress: async (iterations, usage) => {
          progressed = { iterations, usage: { ...usage } };
        },
        tool: { workspace: workspaceFor(workspaceRoot, agent.id), httpGet: cfg.http_get },
        extraTools: this.tools.get(t0.task_id),
        history: thread?.messages.map(({ task_id: _t, ...m }) => m as HubMessage),
        mcp: this.deps.mcp,
        approvals: cfg.approvals,
        approve: async (call, state) => {
          await buffer?.drain(); // the deltas before the call stay before its approval_required event
          const progress = progressRecords();
          if (progress.length) await this.store.commit(...progress);
          return this.approvals.request(started, call, state, signal);
        },
        ...(resume ? { resume } : {}),
      });
      signal.throwIfAborted();
      // The deltas not yet flushed go first in the end's own batch.
      const rest = buffer ? await buffer.takeRest() : [];
      const before = rest.length ? [this.store.eventBatch(rest)] : [];
      const { result, stop_reason, turn, error } = outcome;
      if (stop_reason === 'invalid_output') {
        const patch = { ...progressPatch(), status: 'failed', result, error: error ?? null, stop_reason } as const;
        await this.finish(t0, patch, { type: 'failed', error: error ?? 'invalid output' }, [], before);
        return;
      }
      // A completed run of a thread adds its messages to the thread's history, in the task's end record's batch.
      const task_id = t0.task_id;
      const messages = turn.map((m) => ({ ...m, task_id }) as ThreadMessage);
      const at = isoNow();
      const extra: OrchestratorRecord[] =
        t0.thread_id && thread
          ? [{ type: 'thread.turn', data: { thread_id: t0.thread_id, task_id, messages, at } }]
          : [];
      const patch = { ...progressPatch(), status: 'completed', result, stop_reason } as const;
      await this.finish(t0, patch, { type: 'completed' }, extra, before);
    } catch (err) {
      await buffer?.drain().catch(() => undefined);
      try {
        if (signal.aborted && !this.closed) {
          const timeout = signal.reason instanceof TaskTimeout ? signal.reason : null;
          const error = timeout ? timeout.message : 'stopped by request';
          const stop_reason = timeout ? 'timeout' : 'stopped';
          const patch = {
            ...progressPatch(),
            status: 'stopped',
            error,
            stop_reason,
            result: streamed || null,
          } as const;
          await this.finish(t0, patch, timeout ? { type: 'stopped', error } : { type: 'stopped' });
        } else if (!this.closed) {
          const error = redact((err as Error)?.message ?? String(err)); // a model call's error may quote a provider
          const patch = { ...progressPatch(), status: 'failed', error, stop_reason: 'error' } as const;
          await this.finish(t0, patch, { type: 'failed', error });
        }
      } catch {
        // The WAL refused the end record: the task stays "running" until a restart marks it failed (interrupted).
      }
    }
  }
}
