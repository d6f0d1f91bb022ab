// Workflows: named step lists run in order, each step a task of its agent; runs, retries, and resuming a run at its
// step boundary after a restart (a finished step never runs again). Definitions are checked in workflows-definition.
import { RunWorkflowSchema } from '../../shared/orchestrator.ts';
import type { StepRun, Task, Workflow, WorkflowRun, WorkflowStep } from '../../shared/orchestrator.ts';
import { ApiError, invalidRequest, issuesToProblems, type FieldProblem } from '../errors.ts';
import { Catalog } from './catalog.ts';
import { addUsage, invalidDefinition, queueFull, zeroUsage } from './common.ts';
import { runId, workflowId } from './ids.ts';
import type { TaskHost } from './task-host.ts';
import { validateWorkflow } from './workflows-definition.ts';
import { missingInputs, renderTemplate } from './workflows-templates.ts';

type Verdict = 'next' | 'stop' | 'retry';

/** Retry backoff: base · 2^(n-1), capped, then "equal jitter" (a random 50–100 % of it). */
export const RETRY_BACKOFF = { base_ms: 250, max_ms: 8_000 } as const;

export function backoffMs(failure: number, random = Math.random()): number {
  const exp = Math.min(RETRY_BACKOFF.max_ms, RETRY_BACKOFF.base_ms * 2 ** (failure - 1));
  return Math.round(exp * (0.5 + random / 2));
}

const INTERRUPTED = 'interrupted';

/** Workflows and their runs (byName, list, execution, executionsOf: see Catalog). */
export class WorkflowService extends Catalog<Workflow, WorkflowRun> {
  constructor(
    private readonly host: TaskHost,
    // Unref'd: a backoff in progress never holds up shutdown (the run resumes from its record at the next start).
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms).unref()),
  ) {
    super('workflow', host.store.workflows, host.store.runs, (r) => r.workflow_id);
  }

  async create(raw: unknown, tenant: string): Promise<Workflow> {
    const { workflow, problems } = validateWorkflow(raw, (ref) => this.host.resolveAgent(ref, tenant));
    if (!workflow) throw invalidDefinition('workflow_invalid', problems);
    this.assertNameFree(workflow.name, tenant);
    const w: Workflow = { id: workflowId(), ...workflow, tenant, created_at: new Date().toISOString() };
    await this.host.store.commit({ type: 'workflow.put', data: w });
    return w;
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
      const r = this.host.resolveAgent(s.agent, tenant);
      if ('problem' in r) agentProblems.push({ field: `steps.${i}.agent`, message: `"${s.agent}" ${r.problem}` });
    });
    if (agentProblems.length) throw invalidDefinition('workflow_invalid', agentProblems);
    if (this.host.saturated) throw queueFull();
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
    await this.host.store.commit({ type: 'run.put', data: run });
    this.drive(run.run_id);
    return run;
  }

  /** At start: every run that was going on goes on from its step boundary. */
  async resume(): Promise<void> {
    for (const r of this.host.store.runs.values()) if (r.status === 'running') this.drive(r.run_id);
  }

  private drive(id: string): void {
    void this.driveSteps(id).catch(async (err) => {
      if (this.host.closed) return;
      // The WAL refused a record, or a bug: the run ends failed; if even that is not written, a restart resumes it.
      const error = `internal: ${(err as Error).message}`;
      const finished_at = new Date().toISOString();
      await this.update(id, (r) => ({ ...r, status: 'failed', error, finished_at })).catch(() => undefined);
    });
  }

  private current(id: string): WorkflowRun {
    return this.host.store.runs.get(id) as WorkflowRun;
  }

  private async update(id: string, change: (r: WorkflowRun) => WorkflowRun): Promise<WorkflowRun> {
    const next = change(structuredClone(this.current(id)));
    await this.host.store.commit({ type: 'run.put', data: next });
    return next;
  }

  private async driveSteps(id: string): Promise<void> {
    const count = this.current(id).steps.length;
    for (let i = 0; i < count; i++) {
      if (this.host.closed) return;
      const step = this.current(id).steps[i] as StepRun;
      if (step.status !== 'pending' && step.status !== 'running') continue;
      const outcome = await this.runStep(id, i);
      if (outcome === 'closing') return;
      if (outcome === 'stop') {
        await this.update(id, (r) => {
          for (const s of r.steps) if (s.status === 'pending') s.status = 'skipped';
          const failed = r.steps[i] as StepRun;
          const error = `step "${failed.name}" failed: ${failed.errors.at(-1) ?? 'unknown error'}`;
          return { ...r, status: 'failed', error, finished_at: new Date().toISOString() };
        });
        return;
      }
    }
    await this.update(id, (r) => {
      const last = [...r.steps].reverse().find((s) => s.status === 'completed');
      return { ...r, status: 'completed', output: last?.output ?? null, finished_at: new Date().toISOString() };
    });
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
    const resolved = this.host.resolveAgent(def.agent, run.tenant);
    if ('problem' in resolved) {
      await this.update(id, (r) => {
        const s = r.steps[i] as StepRun;
        s.status = 'failed';
        s.errors.push(`agent "${def.agent}" ${resolved.problem}`);
        s.finished_at = new Date().toISOString();
        return r;
      });
      return undefined;
    }
    const outputs = new Map(run.steps.map((s) => [s.name, s.status === 'completed' ? s.output : null]));
    const prompt = renderTemplate(def.prompt, run.input, outputs);
    const step = run.steps[i] as StepRun;
    const agentId = resolved.agent.id;
    const attempt = step.attempts + 1;
    const origin = { kind: 'workflow' as const, workflow_id: run.workflow_id, run_id: id, step: def.name, attempt };
    const task = await this.host.submitInternal(agentId, { message: prompt, context: {} }, run.tenant, origin, {
      records: (t) => {
        const next = structuredClone(this.current(id));
        const s = next.steps[i] as StepRun;
        const started_at = s.started_at ?? t.created_at;
        Object.assign(s, { status: 'running', agent_id: agentId, prompt, attempts: s.attempts + 1, started_at });
        s.task_ids.push(t.task_id);
        return [{ type: 'run.put', data: next }];
      },
    });
    return this.host.waitForTask(task.task_id);
  }

  /** Records how an attempt ended and decides what follows under the step's policy. */
  private async settle(id: string, i: number, def: WorkflowStep, task: Task): Promise<Verdict> {
    const now = new Date().toISOString();
    if (task.status === 'completed') {
      await this.update(id, (r) => {
        const s = r.steps[i] as StepRun;
        const usage = addUsage(s.usage, task.usage);
        Object.assign(s, { status: 'completed', output: task.result, usage, finished_at: now });
        return { ...r, usage: addUsage(r.usage, task.usage) };
      });
      return 'next';
    }
    const interrupted = task.stop_reason === INTERRUPTED;
    const errors = (this.current(id).steps[i] as StepRun).errors;
    const failures = errors.filter((e) => !e.startsWith(INTERRUPTED)).length + (interrupted ? 0 : 1);
    const attempt = `attempt ${task.origin?.kind === 'workflow' ? task.origin.attempt : '?'} (${task.task_id})`;
    const line = interrupted
      ? `${INTERRUPTED}: ${attempt} was cut off by a restart; the step starts again`
      : `${attempt} ${task.status}: ${task.error ?? 'no reason given'}`;
    // A stopped task is the user's decision: the run fails whatever the policy.
    const verdict: Verdict = interrupted
      ? 'retry'
      : task.status === 'stopped'
        ? 'stop'
        : def.error_policy === 'retry' && failures <= def.max_retries
          ? 'retry'
          : def.error_policy === 'continue'
            ? 'next'
            : 'stop';
    await this.update(id, (r) => {
      const s = r.steps[i] as StepRun;
      s.errors.push(line);
      s.usage = addUsage(s.usage, task.usage);
      if (verdict !== 'retry') Object.assign(s, { status: 'failed', finished_at: now });
      return { ...r, usage: addUsage(r.usage, task.usage) };
    });
    if (verdict === 'retry' && !interrupted) await this.sleep(backoffMs(failures));
    return verdict;
  }
}
