// Structured output for agent tasks: `context.response_format` (OpenAI's shape) goes to the model call through the
// router, which translates it per provider, and the final answer is checked here before the task completes: JSON for
// `json_object`, JSON valid against the schema for `json_schema` (ajv; draft 2020-12 unless the schema's `$schema`
// names draft-07 or earlier).
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ResponseFormat } from '../../shared/orchestrator.ts';
import type { FieldProblem } from '../errors.ts';

/**
 * An answer checked: `text` is the answer as the task's result (without a Markdown code fence around the JSON, which
 * models without native structured output often add), `problems` one line each (empty when it fits).
 */
export type OutputCheck = (answer: string) => { text: string; problems: string[] };

const FENCE = /^\s*```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```\s*$/;

const OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const;
let modern: Ajv2020 | undefined;
let draft7: Ajv | undefined;

// ajv (~0.3 MB with its dependencies) is required on the first schema, not at start (issue 17: load what is used).
const requireHere = createRequire(import.meta.url);

function compilerFor(schema: Record<string, unknown>): Ajv | Ajv2020 {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(dialect)) {
    const { Ajv: Draft7 } = requireHere('ajv') as typeof import('ajv');
    return (draft7 ??= new Draft7(OPTIONS));
  }
  const { Ajv2020: Modern } = requireHere('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  return (modern ??= new Modern(OPTIONS));
}

/** A compiled schema per response_format object (a task's context is kept as it came, so this hits on retries). */
const compiled = new WeakMap<object, ValidateFunction>();

function compile(schema: Record<string, unknown>): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    // A schema's $id would clash with the same schema compiled again for another task: compile it without.
    const { $id: _id, ...rest } = schema;
    v = compilerFor(schema).compile(rest);
    compiled.set(schema, v);
  }
  return v;
}

function errorLine(e: ErrorObject): string {
  const where = e.instancePath || '(the answer)';
  const extra = e.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[] };
  const detail = extra.additionalProperty
    ? ` ("${extra.additionalProperty}")`
    : extra.allowedValues
      ? ` (${JSON.stringify(extra.allowedValues)})`
      : '';
  return `${where} ${e.message ?? 'is invalid'}${detail}`;
}

/** 400-ready problems of a response_format's schema (one that ajv cannot compile), or none. */
export function schemaProblems(format: ResponseFormat | undefined): FieldProblem[] {
  if (format?.type !== 'json_schema') return [];
  try {
    compile(format.json_schema.schema);
    return [];
  } catch (err) {
    const message = `is not a JSON Schema Switchboard can check answers against: ${(err as Error).message}`;
    return [{ field: 'context.response_format.json_schema.schema', message }];
  }
}

/** The check of a task's final answer, or null when its response_format asks for none (absent or `text`). */
export function outputCheck(format: ResponseFormat | undefined): OutputCheck | null {
  if (!format || format.type === 'text') return null;
  const validate = format.type === 'json_schema' ? compile(format.json_schema.schema) : null;
  return (answer) => {
    const text = FENCE.exec(answer)?.[1] ?? answer;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { text, problems: [`the answer is not JSON (${(err as Error).message})`] };
    }
    if (!validate) {
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      return { text, problems: isObject ? [] : ['the answer is JSON but not an object (response_format json_object)'] };
    }
    if (validate(value)) return { text, problems: [] };
    return { text, problems: (validate.errors ?? []).slice(0, 20).map(errorLine) };
  };
}

/** What the model is told when its answer does not fit: the problems, and to answer again with JSON only. */
export function retryPrompt(problems: string[]): string {
  return [
    'Your answer does not match the required JSON schema:',
    ...problems.map((p) => `- ${p}`),
    'Answer again with only the JSON value, matching the schema exactly, and nothing else.',
  ].join('\n');
}
