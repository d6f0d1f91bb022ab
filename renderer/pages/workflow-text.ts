// The agent API's refusals of a workflow or a swarm in the form's words (issue 34: no raw field names): a problem's
// place (`steps.0.agent`, `config.max_rounds`) becomes the form's ("Step 1 (research): its agent"). Pure.
import type { StepDraft } from '../store/workflows.ts';

const STEP_FIELDS: Record<string, string> = {
  name: 'its name',
  agent: 'its agent',
  prompt: 'its prompt',
  error_policy: 'what to do if it fails',
  max_retries: 'how many times it tries again',
};

/** Each message with `steps.<i>.<field>` said as the form says it ("Step 1 (research): its agent"). */
export function workflowProblemsInWords(messages: string[], steps: StepDraft[]): string[] {
  return messages.map((m) =>
    m
      .replace(/\bsteps\.(\d+)\.(\w+)/g, (_all, i: string, field: string) => {
        const n = Number(i);
        const name = steps[n]?.name.trim();
        return `Step ${n + 1}${name ? ` (${name})` : ''}: ${STEP_FIELDS[field] ?? field}`;
      })
      .replace(/\bsteps\.(\d+)\b/g, (_all, i: string) => `Step ${Number(i) + 1}`)
      .replace(/\berror_policy\b/g, 'what to do if it fails')
      .replace(/\bmax_retries\b/g, 'tries again at most'),
  );
}

const SWARM_FIELDS: [RegExp, string][] = [
  [/\bconfig\.max_rounds\b|\bmax_rounds\b/g, 'Rounds at most'],
  [/\bconfig\.consensus_required\b|\bconsensus_required\b/g, 'the members vote (consensus)'],
  [/\bagents\.(\d+)\b/g, 'member $1'],
  [/\bagents\b(?=\s)/g, 'Members'],
  [/\bcoordinator\b(?=\s)/g, 'Coordinator'],
];

/** A swarm's refusal with its fields as the form labels them. */
export function swarmProblemsInWords(messages: string[]): string[] {
  return messages.map((m) => SWARM_FIELDS.reduce((text, [re, words]) => text.replace(re, words), m));
}
