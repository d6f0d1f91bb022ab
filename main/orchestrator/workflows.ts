// Workflows: named step lists run in order, each step a task of its agent; validation, runs, retries, and resuming
// a run at its step boundary after a restart (a finished step never runs again).
import {
  CreateWorkflowSchema, ERROR_POLICIES, MAX_RETRIES_LIMIT, RunWorkflowSchema,
  type Agent, type ErrorPolicy, type StepRun, type Task, type TokenUsage, type Workflow, type WorkflowRun, type WorkflowStep,
} from '../../shared/orchestrator.ts';
import { ApiError } from '../errors.ts';
import { runId, workflowId } from './ids.ts';
import type { Orchestrator } from './orchestrator.ts';
import { missingInputs, renderTemplate, templateRefs } from './workflows-templates.ts';

export type Problem = { field: string; message: string };

export const DEFAULT_MAX_RETRIES = 2;
/** Retry backoff: base · 2^(n-1), capped, then "equal jitter" (a random 50–100 % of it). */
export const RETRY_BACKOFF = { base_ms: 250, max_ms: 8_000 } as const;

export function backoffMs(failure: number, random = Math.random()): number {
  const exp = Math.min(RETRY_BACKOFF.max_ms, RETRY_BACKOFF.base_ms * 2 ** (failure - 1));
  return Math.round(exp * (0.5 + random / 2));
}

/** An agent by id, or by name when exactly one agent of the tenant has it. */
export function resolveAgentRef(o: Orchestrator, ref: string, tenant: string): { agent: Agent } | { problem: string } {
  const byId = o.store.agents.get(ref);
  if (byId && byId.tenant === tenant) return { agent: byId };
  const named = [...o.store.agents.values()].filter((a) => a.tenant === tenant && a.name === ref);
  if (named.length === 1) return { agent: named[0] as Agent };
  if (named.length > 1) return { problem: `"${ref}" is the name of ${named.length} agents (${named.map((a) => a.id).join(', ')}); use one's id or rename them` };
  return { problem: `names no agent; create it first (POST /api/v1/agents) or use an existing agent's name or id` };
}

const zeroUsage = (): TokenUsage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  prompt_tokens: a.prompt_tokens + b.prompt_tokens, completion_tokens: a.completion_tokens + b.completion_tokens, total_tokens: a.total_tokens + b.total_tokens,
});
const INTERRUPTED = 'interrupted';
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const invalidWorkflow = (problems: Problem[]) =>
  new ApiError('workflow_invalid', `The workflow definition is invalid: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}.`, 'Fix every problem listed in error.details, then send it again.', problems);

export class WorkflowService {
  constructor(
    private readonly o: Orchestrator,
    // Unref'd: a backoff in progress never holds up shutdown (the run resumes from its record at the next start).
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms).unref()),
  ) {}

  byName(name: string, tenant: string): Workflow {
    for (const w of this.o.store.workflows.values()) if (w.tenant === tenant && w.name === name) return w;
    throw new ApiError('workflow_not_found', `No workflow "${name}".`, 'List workflows with GET /api/v1/workflows.');
  }

  list(tenant: string) {
    const data = [...this.o.store.workflows.values()].filter((w) => w.tenant === tenant).sort((a, b) => a.created_at.localeCompare(b.created_at));
    return { data, total: data.length };
  }

  /** Every problem of a definition at once: types, then meaning (agents, names, policies, bounds, templates). */
  validate(raw: unknown, tenant: string): { workflow?: Omit<Workflow, 'id' | 'tenant' | 'created_at'>; problems: Problem[] } {
    const problems: Problem[] = [];
    const parsed = CreateWorkflowSchema.safeParse(raw);
    if (!parsed.success) for (const i of parsed.error.issues) problems.push({ field: i.path.join('.') || '(body)', message: i.message });
    const steps = isObj(raw) && Array.isArray(raw.steps) ? raw.steps : [];
    if (isObj(raw) && Array.isArray(raw.steps) && steps.length === 0) problems.push({ field: 'steps', message: 'must list at least one step' });
    const firstIndex = new Map<string, number>();
    steps.forEach((s, i) => {
      if (isObj(s) && typeof s.name === 'string' && !firstIndex.has(s.name.trim())) firstIndex.set(s.name.trim(), i);
    });
    steps.forEach((s, i) => {
      if (!isObj(s)) return;
      const at = (f: string) => `steps.${i}.${f}`;
      if (typeof s.name === 'string') {
        const first = firstIndex.get(s.name.trim()) as number;
        if (first !== i) problems.push({ field: at('name'), message: `"${s.name}" is also the name of steps.${first}; step names must be unique` });
      }
      if (typeof s.agent === 'string' && s.agent) {
        const r = resolveAgentRef(this.o, s.agent, tenant);
        if ('problem' in r) problems.push({ field: at('agent'), message: `"${s.agent}" ${r.problem}` });
      }
      if (typeof s.error_policy === 'string' && !(ERROR_POLICIES as readonly string[]).includes(s.error_policy)) {
        problems.push({ field: at('error_policy'), message: `"${s.error_policy}" is not an error policy; use one of ${ERROR_POLICIES.join(', ')}` });
      }
      if (typeof s.max_retries === 'number' && (!Number.isInteger(s.max_retries) || s.max_retries < 0 || s.max_retries > MAX_RETRIES_LIMIT)) {
        problems.push({ field: at('max_retries'), message: `must be a whole number from 0 to ${MAX_RETRIES_LIMIT} (found ${s.max_retries})` });
      }
      if (typeof s.prompt === 'string') {
        for (const ref of templateRefs(s.prompt)) {
          if (ref.kind === 'unknown') {
            problems.push({ field: at('prompt'), message: `${ref.text} is not a template; use {{input.<key>}} or {{steps.<step_name>.output}}` });
          } else if (ref.kind === 'step') {
            const j = firstIndex.get(ref.step);
            if (j === undefined) problems.push({ field: at('prompt'), message: `${ref.text} names no step of this workflow` });
            else if (j >= i) problems.push({ field: at('prompt'), message: `${ref.text} names ${j === i ? 'this step itself' : `a later step (steps.${j})`}; a prompt may use only earlier steps' outputs` });
          }
        }
      }
    });
    if (problems.length || !parsed.success) return { problems };
    const d = parsed.data;
    return {
      problems,
      workflow: {
        name: d.name,
        description: d.description,
        steps: d.steps.map((s) => ({ name: s.name, agent: s.agent, prompt: s.prompt, error_policy: s.error_policy as ErrorPolicy, max_retries: s.max_retries ?? DEFAULT_MAX_RETRIES })),
      },
    };
  }

  async create(raw: unknown, tenant: string): Promise<Workflow> {
    const { workflow, problems } = this.validate(raw, tenant);
    if (!workflow) throw invalidWorkflow(problems);
    if ([...this.o.store.workflows.values()].some((w) => w.tenant === tenant && w.name === workflow.name)) {
      throw new ApiError('workflow_exists', `A workflow named "${workflow.name}" exists already.`, 'Choose another name.', { name: workflow.name });
    }
    const w: Workflow = { id: workflowId(), ...workflow, tenant, created_at: new Date().toISOString() };
    await this.o.store.commit({ type: 'workflow.put', data: w });
    return w;
  }

  run(runIdValue: string, name: string, tenant: string): WorkflowRun {
    const w = this.byName(name, tenant);
    const r = this.o.store.runs.get(runIdValue);
    if (!r || r.tenant !== tenant || r.workflow_id !== w.id) throw new ApiError('run_not_found', `Workflow "${name}" has no run "${runIdValue}".`, `List its runs with GET /api/v1/workflows/${name}/runs.`);
    return r;
  }

  runs(name: string, tenant: string) {
    const w = this.byName(name, tenant);
    const data = [...this.o.store.runs.values()].filter((r) => r.workflow_id === w.id).sort((a, b) => b.created_at.localeCompare(a.created_at));
    return { data, total: data.length };
  }

  /** POST /workflows/:name/run: checks the input and the agents, makes the run durable, starts it. */
  async start(name: string, raw: unknown, tenant: string): Promise<WorkflowRun> {
    const w = this.byName(name, tenant);
    const parsed = RunWorkflowSchema.safeParse(raw ?? {});
    if (!parsed.success) {
      const details = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
      throw new ApiError('invalid_request', `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, 'Send {"input": {...}}.', details);
    }
    const input = parsed.data.input;
    const missing = missingInputs(w.steps, input);
    if (missing.length) {
      const details = missing.map((m) => ({ field: `input.${m.key}`, message: `is used by step "${m.step}" ({{input.${m.key}}}) but was not given` }));
      throw new ApiError('invalid_request', `Missing input ${missing.map((m) => `"${m.key}"`).join(', ')}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, `Add ${missing.map((m) => `"${m.key}"`).join(', ')} to "input".`, details);
    }
    const agentProblems: Problem[] = [];
    w.steps.forEach((s, i) => {
      const r = resolveAgentRef(this.o, s.agent, tenant);
      if ('problem' in r) agentProblems.push({ field: `steps.${i}.agent`, message: `"${s.agent}" ${r.problem}` });
    });
    if (agentProblems.length) throw invalidWorkflow(agentProblems);
    if (this.o.queue.saturated) {
      const err = new ApiError('queue_full', 'The dispatch queue is 80 % full or more.', 'Retry in 5 seconds.');
      err.headers['retry-after'] = '5';
      throw err;
    }
    const now = new Date().toISOString();
    const run: WorkflowRun = {
      run_id: runId(), workflow_id: w.id, workflow: w.name, tenant, status: 'running', input, definition: w.steps,
      steps: w.steps.map((s): StepRun => ({ name: s.name, agent: s.agent, agent_id: null, status: 'pending', prompt: null, output: null, attempts: 0, task_ids: [], errors: [], usage: zeroUsage(), started_at: null, finished_at: null })),
      output: null, error: null, usage: zeroUsage(), created_at: now, started_at: now, finished_at: null,
    };
    await this.o.store.commit({ type: 'run.put', data: run });
    this.drive(run.run_id);
    return run;
  }

  /** At start: every run that was going on goes on from its step boundary. */
  async resume(): Promise<void> {
    for (const r of this.o.store.runs.values()) if (r.status === 'running') this.drive(r.run_id);
  }

  private drive(id: string): void {
    void this.driveSteps(id).catch(async (err) => {
      if (this.o.closed) return;
      // The WAL refused a record or a bug: the run ends failed (when even that cannot be written, a restart resumes it).
      await this.update(id, (r) => ({ ...r, status: 'failed', error: `internal: ${(err as Error).message}`, finished_at: new Date().toISOString() })).catch(() => undefined);
    });
  }

  private current(id: string): WorkflowRun {
    return this.o.store.runs.get(id) as WorkflowRun;
  }

  private async update(id: string, change: (r: WorkflowRun) => WorkflowRun): Promise<WorkflowRun> {
    const next = change(structuredClone(this.current(id)));
    await this.o.store.commit({ type: 'run.put', data: next });
    return next;
  }

  private async driveSteps(id: string): Promise<void> {
    const count = this.current(id).steps.length;
    for (let i = 0; i < count; i++) {
      if (this.o.closed) return;
      const step = this.current(id).steps[i] as StepRun;
      if (step.status !== 'pending' && step.status !== 'running') continue;
      const outcome = await this.runStep(id, i);
      if (outcome === 'closing') return;
      if (outcome === 'stop') {
        await this.update(id, (r) => {
          for (const s of r.steps) if (s.status === 'pending') s.status = 'skipped';
          const failed = r.steps[i] as StepRun;
          return { ...r, status: 'failed', error: `step "${failed.name}" failed: ${failed.errors.at(-1) ?? 'unknown error'}`, finished_at: new Date().toISOString() };
        });
        return;
      }
    }
    await this.update(id, (r) => {
      const last = [...r.steps].reverse().find((s) => s.status === 'completed');
      return { ...r, status: 'completed', output: last?.output ?? null, finished_at: new Date().toISOString() };
    });
  }

  /** Runs one step to its end under its error policy: 'next' (completed, or failed under continue), 'stop' or 'closing'. */
  private async runStep(id: string, i: number): Promise<'next' | 'stop' | 'closing'> {
    const def = this.current(id).definition[i] as WorkflowStep;
    for (;;) {
      const step = this.current(id).steps[i] as StepRun;
      // A task of this step already exists (we are resuming): adopt it instead of starting another.
      const lastTaskId = step.task_ids.at(-1);
      let task: Task | null | undefined;
      if (step.status === 'running' && lastTaskId && step.errors.length < step.task_ids.length) {
        task = await this.o.waitForTask(lastTaskId);
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
    const resolved = resolveAgentRef(this.o, def.agent, run.tenant);
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
    const origin = { kind: 'workflow' as const, workflow_id: run.workflow_id, run_id: id, step: def.name, attempt: step.attempts + 1 };
    const task = await this.o.submitInternal(resolved.agent.id, { message: prompt, context: {} }, run.tenant, origin, {
      records: (t) => {
        const next = structuredClone(this.current(id));
        const s = next.steps[i] as StepRun;
        Object.assign(s, { status: 'running', agent_id: resolved.agent.id, prompt, attempts: s.attempts + 1, started_at: s.started_at ?? t.created_at });
        s.task_ids.push(t.task_id);
        return [{ type: 'run.put', data: next }];
      },
    });
    return this.o.waitForTask(task.task_id);
  }

  /** Records how an attempt ended and decides what follows under the step's policy. */
  private async settle(id: string, i: number, def: WorkflowStep, task: Task): Promise<'next' | 'stop' | 'retry'> {
    const now = new Date().toISOString();
    if (task.status === 'completed') {
      await this.update(id, (r) => {
        const s = r.steps[i] as StepRun;
        Object.assign(s, { status: 'completed', output: task.result, usage: addUsage(s.usage, task.usage), finished_at: now });
        return { ...r, usage: addUsage(r.usage, task.usage) };
      });
      return 'next';
    }
    const interrupted = task.stop_reason === INTERRUPTED;
    const failures = (this.current(id).steps[i] as StepRun).errors.filter((e) => !e.startsWith(INTERRUPTED)).length + (interrupted ? 0 : 1);
    const line = interrupted
      ? `${INTERRUPTED}: attempt ${task.origin?.kind === 'workflow' ? task.origin.attempt : '?'} (${task.task_id}) was cut off by a restart; the step starts again`
      : `attempt ${task.origin?.kind === 'workflow' ? task.origin.attempt : '?'} (${task.task_id}) ${task.status}: ${task.error ?? 'no reason given'}`;
    // A stopped task is the user's decision: the run fails whatever the policy.
    const verdict: 'next' | 'stop' | 'retry' = interrupted
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
