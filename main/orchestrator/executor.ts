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
import { isoNow, type NewEvent, type OrchestratorRecord } from './store/records.ts';
import { ClaimRefused, LeaseLost, type Claim, type OrchestratorStore, type WorkItem } from './store/types.ts';
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

/** The rest of a task's end: records after and before its own, claims, and whether this instance holds the task. */
export type FinishOptions = {
  extra?: OrchestratorRecord[];
  before?: OrchestratorRecord[];
  claims?: Claim[];
  /** false: written by an instance that does not hold the task (a stop of a queued task). */
  holder?: boolean;
};

/** Longest wait for a task's end (setTimeout's limit); the store's close ends it sooner. */
const FOREVER_MS = 2 ** 31 - 1;

const itemOf = (t: Pick<Task, 'tenant' | 'task_id'>): WorkItem => ({ kind: 'task', tenant: t.tenant, id: t.task_id });

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
  /** Tasks resumed here after the instance that ran them was gone: which one it was (said in an event). */
  private readonly movedFrom = new Map<string, string>();
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

  /** The task goes on here after `from`, the instance running it, was gone (its first event says so). */
  resumedFrom(taskId: string, from: string): void {
    this.movedFrom.set(taskId, from);
  }

  /**
   * Runs a queued task to its end in the caller's worker slot. The slot is free (the promise resolves) once the task's
   * end record is handed to the WAL: its fsync (and with it the end's being visible: the store applies a record only
   * once durable) overlaps the next task's start instead of holding a worker idle.
   */
  execute(id: string): Promise<void> {
    const t0 = this.store.tasks.get(id);
    // One run of a task per process: a second hand-out of it (a second queue entry, a reclaim racing a delivery) is
    // not run beside the first (its refused start would also let go of the lease the first one holds).
    if (!t0 || this.closed || this.running.has(id)) return Promise.resolve();
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
      // Its end is written (released already) or could not be (a write failed): no longer renewed from here.
      this.store.forget(itemOf(t0));
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

  /**
   * Another instance took the task over (this one was paused past its lease): it stops here and writes nothing more
   * (the one that took it over writes its end).
   */
  lost(item: WorkItem): void {
    this.running.get(item.id)?.controller.abort(new LeaseLost(item));
  }

  /**
   * The task once it is over (completed, failed or stopped), wherever it ran (the store tells of every task record
   * applied); null when it is gone or the service closes.
   */
  async waitForTask(id: string): Promise<Task | null> {
    const t = this.store.tasks.get(id);
    if (!t) return null;
    if (!isActive(t)) return t;
    if (this.closed) return null;
    const over = () => {
      const now = this.store.tasks.get(id);
      return !now || !isActive(now);
    };
    const ended = await this.store.waits.wait(id, over, FOREVER_MS);
    return ended ? (this.store.tasks.get(id) ?? null) : null;
  }

  /** Aborts the running tasks and waits for them (their records stay as they are). */
  async close(): Promise<void> {
    this.closed = true;
    this.approvals.close();
    for (const r of this.running.values()) r.controller.abort(new Error('shutting down'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /**
   * The task's end: task record and its event (and `extra`) in one durable batch; `before` goes first in it (the
   * task's last output deltas). The agent's status follows from it (the store derives it from its tasks).
   */
  async finish(t: Task, patch: Partial<Task>, event: EventPart, opts: FinishOptions = {}): Promise<void> {
    const { extra = [], before = [], claims = [], holder = true } = opts;
    const current = this.store.tasks.get(t.task_id) ?? t;
    const done: Task = { ...current, ...patch, finished_at: isoNow() };
    const records: OrchestratorRecord[] = [
      ...before,
      { type: 'task.put', data: done } as const,
      this.eventRecord(done, event.type === 'completed' ? { ...event, task_id: t.task_id } : event),
      ...extra,
    ];
    const item = itemOf(t);
    const durable = this.store.commitWith({ claims, ...(holder ? { as: item, done: item } : {}) }, ...records);
    this.running.get(t.task_id)?.release(); // the end is on its way to the disk: the worker may take the next task
    await durable;
    this.tools.delete(t.task_id);
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
    const item = itemOf(t0);
    // Every write while it runs is this instance's, as long as it holds the task (Redis mode: LeaseLost otherwise).
    const commit = (...records: OrchestratorRecord[]) => this.store.commitWith({ as: item }, ...records);
    // Output and thinking deltas are coalesced into few WAL records (event_flush_ms; 0: one record per delta).
    const buffer =
      cfg.event_flush_ms > 0
        ? new EventBuffer({ commit, eventBatch: (l) => this.store.eventBatch(l) }, cfg.event_flush_ms)
        : null;
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
      if (!resume) {
        // Still queued (a stop may have ended it meanwhile, on any instance): it starts once, here. The status claim
        // and the lease are one script (Redis: COMMIT), durable before the first model call: whoever else was handed
        // the task (a second delivery, a reclaim) is refused, and an instance killed after this line leaves a
        // running task that the reaper ends failed (interrupted), never one that is queued again.
        const queued: Claim = { kind: 'status', tenant: t0.tenant, record: 'task', id: t0.task_id, in: ['queued'] };
        try {
          await this.store.commitWith({ take: item, claims: [queued] }, { type: 'task.put', data: started });
        } catch (err) {
          // Stopped (or started elsewhere) meanwhile: let the delivery go, and run nothing.
          if (err instanceof ClaimRefused) return void (await this.store.commitWith({ done: item }).catch(() => {}));
          throw err;
        }
      } else {
        // Resumed from its approval: only under a lease this instance holds (the reaper's takeover), checked before
        // anything runs again (a tool call, a model call).
        await this.store.commitWith({ as: item });
      }
      const from = this.movedFrom.get(t0.task_id);
      if (from) {
        this.movedFrom.delete(t0.task_id);
        const content = `resumed on this instance: ${from}, which was running it, is gone; it goes on from its approval (its workspace is this instance's)`;
        await commit(this.eventRecord(started, { type: 'resumed', content }));
      }
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
          await commit(...progressRecords(), this.eventRecord(started, e));
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
          if (progress.length) await commit(...progress);
          return this.approvals.request(started, call, state, signal, item);
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
        await this.finish(t0, patch, { type: 'failed', error: error ?? 'invalid output' }, { before });
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
      await this.finish(t0, patch, { type: 'completed' }, { extra, before });
    } catch (err) {
      // Another instance took the task over (this one paused past its lease), or its start's outcome is unknown (no
      // lease known here): it writes nothing more; the holder, or the reaper once the lease runs out, ends it.
      if (err instanceof LeaseLost || signal.reason instanceof LeaseLost) return;
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
