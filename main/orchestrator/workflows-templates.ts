// Workflow prompt templates: {{input.<key>}} and {{steps.<step_name>.output}}; what a prompt refers to, and rendering.
const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;

export type TemplateRef = { text: string } & (
  { kind: 'input'; key: string } | { kind: 'step'; step: string } | { kind: 'unknown' }
);

/** Every {{...}} of a prompt, classified. */
export function templateRefs(prompt: string): TemplateRef[] {
  const refs: TemplateRef[] = [];
  for (const m of prompt.matchAll(TEMPLATE)) {
    const inner = m[1] ?? '';
    const input = /^input\.(.+)$/.exec(inner);
    const step = /^steps\.(.+)\.output$/.exec(inner);
    if (input) refs.push({ text: m[0], kind: 'input', key: input[1] as string });
    else if (step) refs.push({ text: m[0], kind: 'step', step: step[1] as string });
    else refs.push({ text: m[0], kind: 'unknown' });
  }
  return refs;
}

/** Input keys the prompts use that `input` does not have, each once, in order of first use, with a step using it. */
export function missingInputs(
  steps: { name: string; prompt: string }[],
  input: Record<string, unknown>,
): { key: string; step: string }[] {
  const missing = new Map<string, string>();
  for (const s of steps) {
    for (const r of templateRefs(s.prompt)) {
      if (r.kind === 'input' && !Object.hasOwn(input, r.key) && !missing.has(r.key)) missing.set(r.key, s.name);
    }
  }
  return [...missing].map(([key, step]) => ({ key, step }));
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);

/** Fills a prompt in one pass (a value containing "{{...}}" is inserted as is, never expanded again). */
export function renderTemplate(
  prompt: string,
  input: Record<string, unknown>,
  outputs: ReadonlyMap<string, string | null>,
): string {
  return prompt.replace(TEMPLATE, (whole: string) => {
    const ref = templateRefs(whole)[0];
    if (!ref || ref.kind === 'unknown') return whole;
    return ref.kind === 'input' ? text(input[ref.key]) : (outputs.get(ref.step) ?? '');
  });
}
