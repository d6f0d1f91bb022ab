// Approvals (docs/agents.md, "Approval"): a tool call whose policy is `ask` is recorded durably as pending, with an
// `approval_required` event, and the task waits (status stays `running`) until a person decides through
// POST /tasks/:id/approvals/:call_id, the timeout (orchestrator.approval_timeout_s) denies it, or the task is stopped.
// The pending record holds the loop's state at that call, so a restart (kill -9 included) resumes the task there and
// the approval can still be given.
import type { OrchestratorConfig } from '../../shared/config.ts';
import type { AgentEvent, Approval, ApprovalDecision, ApprovalStatus, Task } from '../../shared/orchestrator.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import { logger } from '../observability/logger.ts';
import { approvalKey, type NewEvent, type StoredApproval } from './store/records.ts';
import { ClaimRefused, type Claim, type OrchestratorStore, type WorkItem } from './store/types.ts';

export { approvalKey, type StoredApproval } from './store/records.ts';

export type Verdict =
  | { approved: true; arguments: Record<string, unknown>; edited: boolean; reason: string | null }
  | { approved: false; status: Exclude<ApprovalStatus, 'pending' | 'approved'>; reason: string | null };

type EventPart = Pick<AgentEvent, 'type'> & Partial<AgentEvent>;

/** A task waiting here for a decision: how to go on, and the task (its writes are fenced by its lease). */
type Waiting = { resolve: (v: Verdict) => void; reject: (err: unknown) => void; item: WorkItem };

const pendingClaim = (a: StoredApproval): Claim => ({
  kind: 'status',
  tenant: a.tenant,
  record: 'approval',
  id: approvalKey(a.task_id, a.call_id),
  in: ['pending'],
});

/** What the API shows of an approval (the resume state stays inside). */
export function publicApproval(a: StoredApproval): Approval {
  const { resume: _resume, ...rest } = a;
  return rest;
}

function verdictOf(a: StoredApproval): Verdict {
  if (a.status === 'approved')
    return {
      approved: true,
      arguments: a.edited_arguments ?? a.arguments,
      edited: a.edited_arguments !== null,
      reason: a.reason,
    };
  return { approved: false, status: a.status as 'denied' | 'expired' | 'cancelled', reason: a.reason };
}

export class ApprovalService {
  /** Tasks waiting in this process, by approval key. */
  private readonly waiting = new Map<string, Waiting>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Approvals whose decision is on its way to disk (a second decision is refused). */
  private readonly settling = new Set<string>();
  /** Tasks resumed after a restart, and the approval their first call waits for (or was given meanwhile). */
  private readonly resuming = new Map<string, string>();

  constructor(
    private readonly store: OrchestratorStore,
    private readonly config: () => OrchestratorConfig,
    private readonly eventOf: (t: Task, e: EventPart) => NewEvent,
    /** True while the service shuts down: an aborted wait then stays pending, for the restart. */
    private readonly closed: () => boolean,
  ) {
    // A decision made on any instance (Redis mode: heard through the feed) reaches the task waiting here.
    store.onApplied((r) => {
      if (r.type !== 'approval.put' || r.data.status === 'pending') return;
      const key = approvalKey(r.data.task_id, r.data.call_id);
      const w = this.waiting.get(key);
      if (!w) return;
      if (r.data.resume === undefined) return w.resolve(verdictOf(r.data));
      // Decided by another instance while the task waits here: taken first (its resume state dropped, so a takeover
      // of this task after a crash cannot run the call a second time), then the task goes on.
      const { resume: _resume, ...taken } = r.data;
      this.store.commitWith({ as: w.item }, { type: 'approval.put', data: taken }).then(
        () => w.resolve(verdictOf(taken)),
        (err: unknown) => w.reject(err),
      );
    });
  }

  /** The task's pending approval (a task waits for one call at a time). */
  pendingOf(taskId: string): StoredApproval | undefined {
    for (const a of this.store.approvals.values()) if (a.task_id === taskId && a.status === 'pending') return a;
    return undefined;
  }

  /** The state a task goes on from after a restart: its latest approval still holding one (pending or undelivered). */
  resumeOf(taskId: string): { key: string; state: unknown } | null {
    let best: StoredApproval | undefined;
    for (const a of this.store.approvals.values())
      if (a.task_id === taskId && a.resume !== undefined && (!best || a.requested_at > best.requested_at)) best = a;
    return best ? { key: approvalKey(best.task_id, best.call_id), state: best.resume } : null;
  }

  /** The resumed task's first call is this approval's (not a new one). */
  markResuming(taskId: string, key: string): void {
    this.resuming.set(taskId, key);
  }

  list(tenant: string, filter: { status?: string; task_id?: string }): Approval[] {
    return [...this.store.approvals.values()]
      .filter((a) => a.tenant === tenant && (!filter.status || a.status === filter.status))
      .filter((a) => !filter.task_id || a.task_id === filter.task_id)
      .sort((a, b) => b.requested_at.localeCompare(a.requested_at))
      .map(publicApproval);
  }

  /**
   * Asks for a call: records it (or, when the task resumes after a restart, finds its pending record) and waits for
   * the verdict. Rejects with the signal's reason when the task is stopped (the approval is then cancelled).
   */
  async request(
    task: Task,
    call: { call_id: string; tool: string; arguments: Record<string, unknown> },
    resume: unknown,
    signal: AbortSignal,
    item: WorkItem = { kind: 'task', tenant: task.tenant, id: task.task_id },
  ): Promise<Verdict> {
    signal.throwIfAborted();
    const resumed = this.resuming.get(task.task_id);
    this.resuming.delete(task.task_id);
    const was = resumed ? this.store.approvals.get(resumed) : undefined;
    if (was && was.status !== 'pending') {
      // Decided while the task was not running: taken now, and its resume state dropped (it must not run twice).
      logger.info(`approval ${was.call_id} of task ${was.task_id} was ${was.status} while the task waited to go on`);
      const { resume: _resume, ...taken } = was;
      await this.store.commitWith({ as: item }, { type: 'approval.put', data: taken });
      return verdictOf(taken);
    }
    let a = was ?? this.pendingOf(task.task_id);
    if (!a) {
      const now = Date.now();
      const expires_at = new Date(now + this.config().approval_timeout_s * 1000).toISOString();
      a = {
        task_id: task.task_id,
        call_id: this.uniqueId(task.task_id, call.call_id),
        agent_id: task.agent_id,
        tenant: task.tenant,
        tool: call.tool,
        arguments: call.arguments,
        edited_arguments: null,
        status: 'pending',
        reason: null,
        requested_at: new Date(now).toISOString(),
        expires_at,
        decided_at: null,
        workflow_id: task.origin?.kind === 'workflow' ? task.origin.workflow_id : null,
        resume,
      };
      const { call_id, tool, arguments: args } = a;
      const event = this.eventOf(task, { type: 'approval_required', call_id, tool, arguments: args, expires_at });
      await this.store.commitWith({ as: item }, { type: 'approval.put', data: a }, this.store.event(event));
    }
    return this.wait(a, signal, item);
  }

  /** POST /tasks/:id/approvals/:call_id: approve (with edited arguments, maybe) or deny a pending call. */
  async decide(taskId: string, callId: string, body: ApprovalDecision, tenant: string): Promise<Approval> {
    const task = this.store.tasks.get(taskId);
    if (!task || task.tenant !== tenant)
      throw new ApiError('task_not_found', `No task "${taskId}".`, 'List tasks with GET /api/v1/tasks.');
    const key = approvalKey(taskId, callId);
    const a = this.store.approvals.get(key);
    if (!a)
      throw new ApiError(
        'approval_not_found',
        `Task "${taskId}" has no approval "${callId}".`,
        `List its approvals with GET /api/v1/tasks/${taskId}/approvals.`,
      );
    if (a.status !== 'pending' || this.settling.has(key))
      throw new ApiError(
        'approval_not_pending',
        `The approval "${callId}" of task "${taskId}" is ${a.status === 'pending' ? 'being decided' : a.status} already.`,
        'Nothing to do: a call is decided once.',
        { task_id: taskId, call_id: callId, status: a.status },
      );
    if (body.decision === 'deny' && body.arguments !== undefined)
      throw invalidRequest(
        [{ field: 'arguments', message: 'goes with "approve" only (the edited arguments the call runs with)' }],
        'Leave out "arguments" to deny, or send "decision": "approve".',
      );
    const status = body.decision === 'approve' ? 'approved' : 'denied';
    try {
      return publicApproval(await this.settle(a, status, body.reason ?? null, body.arguments ?? null));
    } catch (err) {
      if (!(err instanceof ClaimRefused)) throw err;
      throw new ApiError(
        'approval_not_pending',
        `The approval "${callId}" of task "${taskId}" is ${err.holder ?? 'decided'} already.`,
        'Nothing to do: a call is decided once.',
        { task_id: taskId, call_id: callId, status: err.holder },
      );
    }
  }

  /** Cancels the task's pending approval, if any (a task that will not go on). */
  async cancel(taskId: string, reason: string): Promise<void> {
    const a = this.pendingOf(taskId);
    if (a) await this.settle(a, 'cancelled', reason, null);
  }

  /** Lets every wait go (shutdown): their approvals stay pending for the restart. */
  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private wait(a: StoredApproval, signal: AbortSignal, item: WorkItem): Promise<Verdict> {
    const key = approvalKey(a.task_id, a.call_id);
    const current = this.store.approvals.get(key) ?? a;
    if (current.status !== 'pending') return Promise.resolve(verdictOf(current)); // decided while we restarted
    return new Promise<Verdict>((resolve, reject) => {
      const cleanup = () => {
        signal.removeEventListener('abort', onAbort);
        clearTimeout(this.timers.get(key));
        this.timers.delete(key);
        this.waiting.delete(key);
      };
      const onAbort = () => {
        cleanup();
        if (this.closed()) return reject(signal.reason);
        const cur = this.store.approvals.get(key);
        const done = cur?.status === 'pending' ? this.settle(cur, 'cancelled', 'the task was stopped', null) : null;
        void Promise.resolve(done).then(
          () => reject(signal.reason),
          () => reject(signal.reason),
        );
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(key, {
        resolve: (v) => {
          cleanup();
          resolve(v);
        },
        reject: (err) => {
          cleanup();
          reject(err);
        },
        item,
      });
      const ms = Math.max(0, Date.parse(current.expires_at) - Date.now());
      const timer = setTimeout(() => {
        const cur = this.store.approvals.get(key);
        if (cur?.status !== 'pending' || this.settling.has(key)) return;
        const s = Math.round((Date.parse(cur.expires_at) - Date.parse(cur.requested_at)) / 1000);
        const why = `no decision within ${s} s (orchestrator.approval_timeout_s)`;
        void this.settle(cur, 'expired', why, null).catch(() => undefined);
      }, ms);
      timer.unref();
      this.timers.set(key, timer);
    });
  }

  /** The decision made durable (record and approval_decided event in one batch), then given to the waiting task. */
  private async settle(
    a: StoredApproval,
    status: Exclude<ApprovalStatus, 'pending'>,
    reason: string | null,
    edited: Record<string, unknown> | null,
  ): Promise<StoredApproval> {
    const key = approvalKey(a.task_id, a.call_id);
    this.settling.add(key);
    try {
      // The resume state goes once a running task takes the decision; else the task takes it when it resumes.
      const { resume, ...rest } = a;
      const next: StoredApproval = {
        ...rest,
        ...(this.waiting.has(key) || resume === undefined ? {} : { resume }),
        status,
        reason,
        edited_arguments: edited,
        decided_at: new Date().toISOString(),
      };
      const task = this.store.tasks.get(a.task_id);
      const args = status === 'approved' ? { arguments: edited ?? a.arguments } : {};
      const event = task
        ? [
            this.store.event(
              this.eventOf(task, {
                type: 'approval_decided',
                call_id: a.call_id,
                tool: a.tool,
                decision: status,
                reason,
                ...args,
              }),
            ),
          ]
        : [];
      await this.store.commitWith({ claims: [pendingClaim(a)] }, { type: 'approval.put', data: next }, ...event);
      this.waiting.get(key)?.resolve(verdictOf(next));
      return next;
    } finally {
      this.settling.delete(key);
    }
  }

  /** The model's call id, made unique within the task (some models reuse ids across turns). */
  private uniqueId(taskId: string, callId: string): string {
    const base = callId || 'call';
    let id = base;
    for (let n = 2; this.store.approvals.has(approvalKey(taskId, id)); n++) id = `${base}-${n}`;
    return id;
  }
}
