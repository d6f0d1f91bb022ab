// A workflow definition checked all at once: its types (zod), then its meaning (agents, step names, error policies,
// retry bounds, prompt templates); every problem is reported together.
import { CreateWorkflowSchema, ERROR_POLICIES, MAX_RETRIES_LIMIT } from '../../shared/orchestrator.ts';
import type { ErrorPolicy, Workflow } from '../../shared/orchestrator.ts';
import { issuesToProblems, type FieldProblem } from '../errors.ts';
import { isObject } from '../proxy/formats/hub/index.ts';
import type { AgentRef } from './agents.ts';
import { templateRefs } from './workflows-templates.ts';

export const DEFAULT_MAX_RETRIES = 2;

export type WorkflowDefinition = Omit<Workflow, 'id' | 'tenant' | 'created_at'>;

/** The problems of one step's prompt: unknown templates, and outputs of steps that are not earlier ones. */
function promptProblems(prompt: string, i: number, firstIndex: Map<string, number>): FieldProblem[] {
  const field = `steps.${i}.prompt`;
  const problems: FieldProblem[] = [];
  for (const ref of templateRefs(prompt)) {
    if (ref.kind === 'unknown') {
      const message = `${ref.text} is not a template; use {{input.<key>}} or {{steps.<step_name>.output}}`;
      problems.push({ field, message });
    } else if (ref.kind === 'step') {
      const j = firstIndex.get(ref.step);
      if (j === undefined) problems.push({ field, message: `${ref.text} names no step of this workflow` });
      else if (j >= i) {
        const which = j === i ? 'this step itself' : `a later step (steps.${j})`;
        problems.push({ field, message: `${ref.text} names ${which}; a prompt may use only earlier steps' outputs` });
      }
    }
  }
  return problems;
}

/** Every problem of a definition at once: types, then meaning (agents, names, policies, bounds, templates). */
export function validateWorkflow(
  raw: unknown,
  resolve: (ref: string) => AgentRef,
): { workflow?: WorkflowDefinition; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const parsed = CreateWorkflowSchema.safeParse(raw);
  if (!parsed.success) problems.push(...issuesToProblems(parsed.error.issues));
  const steps = isObject(raw) && Array.isArray(raw.steps) ? raw.steps : [];
  if (isObject(raw) && Array.isArray(raw.steps) && steps.length === 0) {
    problems.push({ field: 'steps', message: 'must list at least one step' });
  }
  const firstIndex = new Map<string, number>();
  steps.forEach((s, i) => {
    if (isObject(s) && typeof s.name === 'string' && !firstIndex.has(s.name.trim())) firstIndex.set(s.name.trim(), i);
  });
  steps.forEach((s, i) => {
    if (!isObject(s)) return;
    const at = (f: string) => `steps.${i}.${f}`;
    if (typeof s.name === 'string') {
      const first = firstIndex.get(s.name.trim()) as number;
      const message = `"${s.name}" is also the name of steps.${first}; step names must be unique`;
      if (first !== i) problems.push({ field: at('name'), message });
    }
    if (typeof s.agent === 'string' && s.agent) {
      const r = resolve(s.agent);
      if ('problem' in r) problems.push({ field: at('agent'), message: `"${s.agent}" ${r.problem}` });
    }
    if (typeof s.error_policy === 'string' && !(ERROR_POLICIES as readonly string[]).includes(s.error_policy)) {
      const message = `"${s.error_policy}" is not an error policy; use one of ${ERROR_POLICIES.join(', ')}`;
      problems.push({ field: at('error_policy'), message });
    }
    const retries = s.max_retries;
    if (typeof retries === 'number' && (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES_LIMIT)) {
      const message = `must be a whole number from 0 to ${MAX_RETRIES_LIMIT} (found ${retries})`;
      problems.push({ field: at('max_retries'), message });
    }
    if (typeof s.prompt === 'string') problems.push(...promptProblems(s.prompt, i, firstIndex));
  });
  if (problems.length || !parsed.success) return { problems };
  const d = parsed.data;
  const workflowSteps = d.steps.map((s) => ({
    name: s.name,
    agent: s.agent,
    prompt: s.prompt,
    error_policy: s.error_policy as ErrorPolicy,
    max_retries: s.max_retries ?? DEFAULT_MAX_RETRIES,
  }));
  return { problems, workflow: { name: d.name, description: d.description, steps: workflowSteps } };
}
