// Workflows: named step lists run in order, each step a task of its agent; runs, retries, and resuming a run at its
// step boundary after a restart (a finished step never runs again); changing, deleting and cancelling; run-level
// events (run_started, step_started, step_completed, step_failed, run_completed, run_failed). Definitions are checked
// in workflows-definition.
import { RunWorkflowSchema } from '../../shared/orchestrator.ts';
import type { StepRun, Task, Workflow, WorkflowRun, WorkflowStep } from '../../shared/orchestrator.ts';
import { ApiError, invalidRequest, issuesToProblems, type FieldProblem } from '../errors.ts';
import type { AgentRef } from './agents.ts';
import { Catalog } from './catalog.ts';
import { addUsage, invalidDefinition, queueFull, workflowEvent, zeroUsage, type RunEventPart } from './common.ts';
import { runId, workflowId } from './ids.ts';
import type { OrchestratorRecord } from './store/records.ts';
import type { Delivery, WorkItem } from './store/types.ts';
import type { TaskHost } from './task-host.ts';
import { validateWorkflow, type WorkflowDefinition } from './workflows-definition.ts';
import { missingInputs, renderTemplate } from './workflows-templates.ts';

type Verdict = 'next' | 'stop' | 'retry';

/** Retry backoff: base · 2^(n-1), capped, then "equal jitter" (a random 50–100 % of it). */
export const RETRY_BACKOFF = { base_ms: 250, max_ms: 8_000 } as const;

export function backoffMs(failure: number, random = Math.random()): number {
  const exp = Math.min(RETRY_BACKOFF.max_ms, RETRY_BACKOFF.base_ms * 2 ** (failure - 1));
  return Math.round(exp * (0.5 + random / 2));
}

const INTERRUPTED = 'interrupted';
const runItem = (r: Pick<WorkflowRun, 'tenant' | 'run_id'>): WorkItem => ({
  kind: 'run',
  tenant: r.tenant,
  id: r.run_id,
});
const CANCELLED = 'cancelled by request';
/** How long POST .../cancel waits for the run's end record before answering with the run as it is. */
const CANCEL_WAIT_MS = 10_000;

/** Workflows and their runs (byName, list, execution, executionsOf: see Catalog). */
export class WorkflowService extends Catalog<Workflow, WorkflowRun> {
  /** Runs asked to cancel: their driver ends them `cancelled` at its next step (a backoff ends early). */
  private readonly cancelling = new Map<string, AbortController>();
  /** Runs this instance drives now. */
  private readonly driving = new Set<string>();

  constructor(
    private readonly host: TaskHost,
    // Unref'd: a backoff in progress never holds up shutdown (the run resumes from its record at the next start).
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms).unref()),
  ) {
    super('workflow', host.store.workflows, host.store.runs, (r) => r.workflow_id);
    host.store.onWork('run', (d) => this.onRun(d));
    // A cancel asked on any instance reaches the one driving the run.
    host.store.onControl((c) => {
      if (c.kind === 'cancel_run' && this.driving.has(c.id)) void this.cancelHere(c.id, c.tenant);
    });
  }

  async create(raw: unknown, tenant: string): Promise<Workflow> {
    const workflow = this.checked(raw, tenant);
    this.assertNameFree(workflow.name, tenant);
    const w: Workflow = { id: workflowId(), ...workflow, tenant, created_at: new Date().toISOString() };
    await this.host.store.commit({ type: 'workflow.put', data: w });
    return w;
  }

  /** PUT /workflows/:name: a whole new definition (checked as on create); running runs keep the one they started with. */
  async update(name: string, raw: unknown, tenant: string): Promise<Workflow> {
    const old = this.byName(name, tenant);
    const workflow = this.checked(raw, tenant);
    this.assertNameFree(workflow.name, tenant, old.id);
    const w: Workflow = { ...old, ...workflow, updated_at: new Date().toISOString() };
    await this.host.store.commit({ type: 'workflow.put', data: w });
    return w;
  }

  /** DELETE /workflows/:name: the workflow and its runs; 409 workflow_running while a run goes on. */
  async delete(name: string, tenant: string): Promise<void> {
    const w = this.byName(name, tenant);
    const running = this.runningOf(w).map((r) => r.run_id);
    if (running.length) {
      throw new ApiError(
        'workflow_running',
        `Workflow "${name}" has ${running.length} running run(s) (${running.join(', ')}).`,
        `Cancel them first (POST /api/v1/workflows/${name}/runs/<run_id>/cancel), then delete it.`,
        { run_ids: running },
      );
    }
    await this.host.store.commit({ type: 'workflow.deleted', data: { id: w.id } });
  }

  /** The definition checked, each step's agent resolved to its id (so renaming the agent later keeps it working). */
  private checked(raw: unknown, tenant: string): WorkflowDefinition {
    const resolve = (ref: string) => this.host.resolveAgent(ref, tenant);
    const { workflow, problems } = validateWorkflow(raw, resolve);
    if (!workflow) throw invalidDefinition('workflow_invalid', problems);
    const steps = workflow.steps.map((s) => {
      const r = resolve(s.agent);
      return 'agent' in r ? { ...s, agent_id: r.agent.id } : s;
    });
    return { ...workflow, steps };
  }

  /** A step's agent: by the id saved with the workflow, or by name (workflows saved before ids were kept). */
  private agentOf(def: WorkflowStep, tenant: string): AgentRef {
    if (!def.agent_id) return this.host.resolveAgent(def.agent, tenant);
    const a = this.host.store.agents.get(def.agent_id);
    if (a && a.tenant === tenant) return { agent: a };
    return { problem: `(${def.agent_id}) was deleted; create the agent again and save the workflow with it (PUT)` };
  }

  /** POST /workflows/:name/runs/:run_id/cancel: stops the step running, skips the rest; the run ends `cancelled`. */
  async cancel(name: string, id: string, tenant: string): Promise<WorkflowRun> {
    const run = this.execution(name, id, tenant);
    if (run.status !== 'running') {
      const message = `Run "${id}" is ${run.status}; only a running run can be cancelled.`;
      throw new ApiError('run_not_running', message, 'Nothing to do.', { run_id: id, status: run.status });
    }
    await this.host.store.signal({ kind: 'cancel_run', tenant, id });
    await this.host.store.waits.wait(id, () => this.current(id).status !== 'running', CANCEL_WAIT_MS);
    return this.current(id);
  }

  /** The driver's side of a cancel: flagged (the driver ends the run at its next step), its running step stopped. */
  private async cancelHere(id: string, tenant: string): Promise<void> {
    const flag = this.cancelling.get(id) ?? new AbortController();
    this.cancelling.set(id, flag);
    flag.abort();
    const taskId = this.current(id)
      ?.steps.find((s) => s.status === 'running')
      ?.task_ids.at(-1);
    if (taskId) await this.host.stop(taskId, tenant).catch(() => undefined); // over already: the driver goes on
  }

  private cancelled(id: string): boolean {
    return this.cancelling.get(id)?.signal.aborted === true;
  }

  /** POST /workflows/:name/run: checks the input and the agents, makes the run durable, starts it. */
  async start(name: string, raw: unknown, tenant: string): Promise<WorkflowRun> {
    const w = this.byName(name, tenant);
    const parsed = RunWorkflowSchema.safeParse(raw ?? {});
    if (!parsed.success) throw invalidRequest(issuesToProblems(parsed.error.issues), 'Send {"input": {...}}.');
    const input = parsed.data.input;
    const missing = missingInputs(w.steps, input);
    if (missing.length) {
      const details = missing.map((m) => ({
        field: `input.${m.key}`,
        message: `is used by step "${m.step}" ({{input.${m.key}}}) but was not given`,
      }));
      const keys = missing.map((m) => `"${m.key}"`).join(', ');
      const list = details.map((d) => `${d.field} ${d.message}`).join('; ');
      throw new ApiError('invalid_request', `Missing input ${keys}: ${list}.`, `Add ${keys} to "input".`, details);
    }
    const agentProblems: FieldProblem[] = [];
    w.steps.forEach((s, i) => {
      const r = this.agentOf(s, tenant);
      if ('problem' in r) agentProblems.push({ field: `steps.${i}.agent`, message: `"${s.agent}" ${r.problem}` });
    });
    if (agentProblems.length) throw invalidDefinition('workflow_invalid', agentProblems);
    if (this.host.saturatedFor(tenant)) throw queueFull();
    const now = new Date().toISOString();
    const steps = w.steps.map((s): StepRun => ({
      name: s.name,
      agent: s.agent,
      agent_id: null,
      status: 'pending',
      prompt: null,
      output: null,
      attempts: 0,
      task_ids: [],
      errors: [],
      usage: zeroUsage(),
      started_at: null,
      finished_at: null,
    }));
    const run: WorkflowRun = {
      run_id: runId(),
      workflow_id: w.id,
      workflow: w.name,
      tenant,
      status: 'running',
      input,
      definition: w.steps,
      steps,
      output: null,
      error: null,
      usage: zeroUsage(),
      created_at: now,
      started_at: now,
      finished_at: null,
    };
    // Driven by the instance it is handed to (this one in embedded mode, at once).
    await this.host.store.commitWith(
      { enqueue: [runItem(run)] },
      { type: 'run.put', data: run },
      workflowEvent(this.host.store, run, { type: 'run_started' }),
    );
    return run;
  }

  /**
   * A run handed to this instance: driven through its steps. One whose driver is gone (a restart, or another
   * instance's lease that ran out) goes on from its step boundary: a finished step never runs again, a step whose
   * task was interrupted starts again.
   */
  private onRun(d: Delivery): void {
    const run = this.host.store.runs.get(d.id);
    if (!run || run.status !== 'running') {
      void this.host.store.commitWith({ done: d }).catch(() => undefined);
      return;
    }
    if (this.driving.has(d.id)) return;
    this.drive(d.id);
  }

  private drive(id: string): void {
    this.driving.add(id);
    void this.driveSteps(id)
      .catch(async (err) => {
        if (this.host.closed) return;
        // The WAL refused a record, or a bug: the run ends failed; if even that is not written, a restart resumes it.
        const error = `internal: ${(err as Error).message}`;
        const finished_at = new Date().toISOString();
        const ended = { type: 'run_failed', status: 'failed', error } as const;
        await this.save(
          id,
          (r) => ({ ...r, status: 'failed', error, finished_at }),
          () => [ended],
        ).catch(() => undefined);
      })
      .finally(() => {
        this.cancelling.delete(id);
        this.driving.delete(id);
      });
  }

  private current(id: string): WorkflowRun {
    return this.host.store.runs.get(id) as WorkflowRun;
  }

  /** The run changed, with the run-level events the change makes, in one durable batch. */
  private async save(
    id: string,
    change: (r: WorkflowRun) => WorkflowRun,
    events: (r: WorkflowRun) => RunEventPart[] = () => [],
  ): Promise<WorkflowRun> {
    const next = change(structuredClone(this.current(id)));
    const records = events(next).map((e) => workflowEvent(this.host.store, next, e));
    const item = runItem(next);
    // The driver holds the run; its end releases it.
    const over = next.status !== 'running';
    await this.host.store.commitWith(
      { as: item, ...(over ? { done: item } : {}) },
      { type: 'run.put', data: next },
      ...records,
    );
    return next;
  }

  private async driveSteps(id: string): Promise<void> {
    const count = this.current(id).steps.length;
    for (let i = 0; i < count; i++) {
      if (this.host.closed) return;
      if (this.cancelled(id)) return this.endCancelled(id);
      const step = this.current(id).steps[i] as StepRun;
      if (step.status !== 'pending' && step.status !== 'running') continue;
      const outcome = await this.runStep(id, i);
      if (outcome === 'closing') return;
      if (this.cancelled(id)) return this.endCancelled(id);
      if (outcome === 'stop') {
        const end = (r: WorkflowRun) => {
          for (const s of r.steps) if (s.status === 'pending') s.status = 'skipped';
          const failed = r.steps[i] as StepRun;
          const error = `step "${failed.name}" failed: ${failed.errors.at(-1) ?? 'unknown error'}`;
          return { ...r, status: 'failed', error, finished_at: new Date().toISOString() } as const;
        };
        await this.save(id, end, (r) => [{ type: 'run_failed', status: 'failed', error: r.error ?? '' }]);
        return;
      }
    }
    const done = (r: WorkflowRun) => {
      const last = [...r.steps].reverse().find((s) => s.status === 'completed');
      return {
        ...r,
        status: 'completed',
        output: last?.output ?? null,
        finished_at: new Date().toISOString(),
      } as const;
    };
    await this.save(id, done, (r) => [{ type: 'run_completed', output: r.output }]);
  }

  /** A cancelled run's end: the step that ran is failed (its task was stopped), the rest skipped. */
  private async endCancelled(id: string): Promise<void> {
    const now = new Date().toISOString();
    const end = (r: WorkflowRun) => {
      for (const s of r.steps) {
        if (s.status === 'pending') s.status = 'skipped';
        if (s.status === 'running') Object.assign(s, { status: 'failed', finished_at: now });
      }
      return { ...r, status: 'cancelled', error: CANCELLED, finished_at: now } as const;
    };
    await this.save(id, end, () => [{ type: 'run_failed', status: 'cancelled', error: CANCELLED }]);
  }

  /** One step to its end under its error policy: 'next' (completed, or failed under continue), 'stop', 'closing'. */
  private async runStep(id: string, i: number): Promise<'next' | 'stop' | 'closing'> {
    const def = this.current(id).definition[i] as WorkflowStep;
    for (;;) {
      const step = this.current(id).steps[i] as StepRun;
      // A task of this step already exists (we are resuming): adopt it instead of starting another.
      const lastTaskId = step.task_ids.at(-1);
      let task: Task | null | undefined;
      if (step.status === 'running' && lastTaskId && step.errors.length < step.task_ids.length) {
        task = await this.host.waitForTask(lastTaskId);
      } else if (this.cancelled(id)) {
        return 'stop';
      } else {
        task = await this.startAttempt(id, i, def);
      }
      if (task === null) return 'closing';
      if (task === undefined) return 'stop';
      const verdict = await this.settle(id, i, def, task);
      if (verdict !== 'retry') return verdict;
    }
  }

  /** Starts the next attempt: the task and the step's record of it are durable in one batch. undefined: no agent. */
  private async startAttempt(id: string, i: number, def: WorkflowStep): Promise<Task | null | undefined> {
    const run = this.current(id);
    const resolved = this.agentOf(def, run.tenant);
    if ('problem' in resolved) {
      const error = `agent "${def.agent}" ${resolved.problem}`;
      const fail = (r: WorkflowRun) => {
        const s = r.steps[i] as StepRun;
        s.status = 'failed';
        s.errors.push(error);
        s.finished_at = new Date().toISOString();
        return r;
      };
      await this.save(id, fail, () => [{ type: 'step_failed', step: def.name, error }]);
      return undefined;
    }
    const outputs = new Map(run.steps.map((s) => [s.name, s.status === 'completed' ? s.output : null]));
    const prompt = renderTemplate(def.prompt, run.input, outputs);
    const step = run.steps[i] as StepRun;
    const agentId = resolved.agent.id;
    const attempt = step.attempts + 1;
    const origin = { kind: 'workflow' as const, workflow_id: run.workflow_id, run_id: id, step: def.name, attempt };
    const task = await this.host.submitInternal(agentId, { message: prompt, context: {} }, run.tenant, origin, {
      as: runItem(run),
      records: (t) => {
        const next = structuredClone(this.current(id));
        const s = next.steps[i] as StepRun;
        const started_at = s.started_at ?? t.created_at;
        Object.assign(s, { status: 'running', agent_id: agentId, prompt, attempts: s.attempts + 1, started_at });
        s.task_ids.push(t.task_id);
        const started = {
          type: 'step_started',
          step: def.name,
          attempt,
          task_id: t.task_id,
          agent_id: agentId,
        } as const;
        return [{ type: 'run.put', data: next }, workflowEvent(this.host.store, next, started)] as OrchestratorRecord[];
      },
    });
    // A cancel that came while this attempt was being made did not see its task: stop it now.
    if (this.cancelled(id)) await this.host.stop(task.task_id, run.tenant).catch(() => undefined);
    return this.host.waitForTask(task.task_id);
  }

  /** Records how an attempt ended and decides what follows under the step's policy. */
  private async settle(id: string, i: number, def: WorkflowStep, task: Task): Promise<Verdict> {
    const now = new Date().toISOString();
    const where = { step: def.name, task_id: task.task_id, agent_id: task.agent_id };
    if (task.status === 'completed') {
      const complete = (r: WorkflowRun) => {
        const s = r.steps[i] as StepRun;
        const usage = addUsage(s.usage, task.usage);
        Object.assign(s, { status: 'completed', output: task.result, usage, finished_at: now });
        return { ...r, usage: addUsage(r.usage, task.usage) };
      };
      await this.save(id, complete, () => [{ type: 'step_completed', ...where, output: task.result }]);
      return 'next';
    }
    const interrupted = task.stop_reason === INTERRUPTED;
    const errors = (this.current(id).steps[i] as StepRun).errors;
    const failures = errors.filter((e) => !e.startsWith(INTERRUPTED)).length + (interrupted ? 0 : 1);
    const attempt = `attempt ${task.origin?.kind === 'workflow' ? task.origin.attempt : '?'} (${task.task_id})`;
    const line = interrupted
      ? `${INTERRUPTED}: ${attempt} was cut off by a restart; the step starts again`
      : `${attempt} ${task.status}: ${task.error ?? 'no reason given'}`;
    // A stopped task is the user's decision: the run fails whatever the policy (a task past its timeout_s is a
    // failure like any other).
    const verdict: Verdict = interrupted
      ? 'retry'
      : task.status === 'stopped' && task.stop_reason !== 'timeout'
        ? 'stop'
        : def.error_policy === 'retry' && failures <= def.max_retries
          ? 'retry'
          : def.error_policy === 'continue'
            ? 'next'
            : 'stop';
    const record = (r: WorkflowRun) => {
      const s = r.steps[i] as StepRun;
      s.errors.push(line);
      s.usage = addUsage(s.usage, task.usage);
      if (verdict !== 'retry') Object.assign(s, { status: 'failed', finished_at: now });
      return { ...r, usage: addUsage(r.usage, task.usage) };
    };
    const failed = verdict === 'retry' ? [] : [{ type: 'step_failed', ...where, error: line } as const];
    await this.save(id, record, () => failed);
    if (verdict === 'retry' && !interrupted) await this.backoff(id, backoffMs(failures));
    return verdict;
  }

  /** The retry backoff, cut short by a cancel. */
  private async backoff(id: string, ms: number): Promise<void> {
    const flag = this.cancelling.get(id) ?? new AbortController();
    this.cancelling.set(id, flag);
    if (flag.signal.aborted) return;
    let onAbort = () => {};
    const cancelled = new Promise<void>((r) => (onAbort = r));
    flag.signal.addEventListener('abort', onAbort, { once: true });
    await Promise.race([this.sleep(ms), cancelled]);
    flag.signal.removeEventListener('abort', onAbort);
  }
}
