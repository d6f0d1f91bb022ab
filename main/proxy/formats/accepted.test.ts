// Every provider format's table of accepted fields (hub/accepted.ts, one `accepted.ts` per folder) against what its
// requestFromHub really does, for every field an OpenAI chat request can hold: a field said to be translated must
// change the provider's request, a dropped or moot one must leave it as it is, a refused one must be refused by the
// audit. A format (or a change to one) that forgets a field, or starts translating a field its table says it drops,
// fails here with the field's name.
import { describe, expect, it } from 'vitest';
import { auditRequest, classify } from './hub/accepted.ts';
import type { FormatName, HubRequest } from './hub/index.ts';
import { acceptedFields, providerFormat } from './index.ts';

const FORMATS: FormatName[] = ['openai', 'anthropic', 'gemini', 'ollama', 'responses'];

const TOOLS: HubRequest['tools'] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
];

/** A value for a field, and what else the request needs for the field to mean something (tools for tool_choice). */
type Sample = { field: string; value: unknown; with?: Partial<HubRequest> };

/** Every field of OpenAI's chat request (and the hub's own), with the values that take different paths. */
const SAMPLES: Sample[] = [
  { field: 'model', value: 'other-model' },
  { field: 'messages', value: [{ role: 'user', content: 'something else' }] },
  { field: 'stream', value: true },
  { field: 'stream_options', value: { include_usage: true } },
  { field: 'tools', value: TOOLS },
  ...[{ type: 'function', function: { name: 'get_time' } }, 'required', 'none', 'auto'].map((value) => ({
    field: 'tool_choice',
    value,
    with: { tools: TOOLS },
  })),
  { field: 'parallel_tool_calls', value: false, with: { tools: TOOLS } },
  { field: 'parallel_tool_calls', value: true, with: { tools: TOOLS } },
  { field: 'temperature', value: 0.5 },
  { field: 'top_p', value: 0.9 },
  { field: 'top_k', value: 40 },
  { field: 'max_tokens', value: 100 },
  { field: 'max_completion_tokens', value: 100 },
  { field: 'stop', value: ['END'] },
  { field: 'seed', value: 7 },
  { field: 'presence_penalty', value: 0.5 },
  { field: 'frequency_penalty', value: 0.5 },
  { field: 'n', value: 2 },
  { field: 'n', value: 1 },
  {
    field: 'response_format',
    value: { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object', properties: {} } } },
  },
  { field: 'response_format', value: { type: 'json_object' } },
  { field: 'response_format', value: { type: 'text' } },
  { field: 'user', value: 'user-1' },
  { field: 'reasoning_effort', value: 'high' },
  { field: 'reasoning_budget', value: 2048 },
  { field: 'logprobs', value: true },
  { field: 'logprobs', value: false },
  { field: 'top_logprobs', value: 3 },
  { field: 'logit_bias', value: { '1234': -100 } },
  { field: 'modalities', value: ['text', 'audio'] },
  { field: 'modalities', value: ['text'] },
  { field: 'audio', value: { voice: 'alloy', format: 'wav' } },
  { field: 'web_search_options', value: {} },
  { field: 'functions', value: [{ name: 'f', parameters: { type: 'object' } }] },
  { field: 'function_call', value: 'auto' },
  { field: 'prediction', value: { type: 'content', content: 'old code' } },
  { field: 'store', value: true },
  { field: 'metadata', value: { task: 't1' } },
  { field: 'service_tier', value: 'flex' },
  { field: 'prompt_cache_key', value: 'k1' },
  { field: 'prompt_cache_retention', value: '24h' },
  { field: 'safety_identifier', value: 'hash-1' },
  { field: 'verbosity', value: 'low' },
];

const base = (extra: Partial<HubRequest> = {}): HubRequest => ({
  model: 'gemini-2.0-flash',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'hi' },
  ],
  ...extra,
});

const show = (v: unknown) => JSON.stringify(v);

describe.each(FORMATS)('the %s provider format', (name) => {
  const table = acceptedFields(name);
  const pf = providerFormat(name);
  const wire = (req: HubRequest) => JSON.stringify(pf.requestFromHub(req));

  it('says what happens to every field an OpenAI chat request can hold', () => {
    const unknown = SAMPLES.filter((s) => classify(table, s.field, s.value) === 'unknown').map((s) => s.field);
    expect(unknown, `${name}/accepted.ts has no rule for these fields`).toEqual([]);
  });

  it('has a sample for every field of its table (no rule goes untested)', () => {
    const sampled = new Set(SAMPLES.map((s) => s.field));
    expect(Object.keys(table.fields).filter((f) => !sampled.has(f))).toEqual([]);
  });

  it.each(SAMPLES.map((s) => [`${s.field}: ${show(s.value)}`, s] as const))('%s', (_, s) => {
    const how = classify(table, s.field, s.value);
    const without = base(s.with);
    const req = { ...without, [s.field]: s.value };
    const audit = auditRequest(table, req);
    if (how === 'refused') {
      expect(audit.refusal?.field).toBe(s.field);
      return;
    }
    expect(audit.refusal).toBeNull();
    const listed = audit.dropped.some((d) => d.field === s.field);
    expect(listed, `x-switchboard-dropped lists ${s.field} iff the table drops it`).toBe(how === 'dropped');
    if (how === 'translated') {
      expect(wire(req), `${name} says it translates ${s.field}, but its request does not change`).not.toBe(
        wire(without),
      );
    } else {
      expect(wire(req), `${name} says ${s.field} is ${how}, but its request changes: move it to translated`).toBe(
        wire(without),
      );
    }
  });

  it('drops a field no OpenAI chat request has (e.g. OpenRouter’s transforms), unless it carries everything', () => {
    const req = { ...base(), transforms: ['middle-out'] };
    const audit = auditRequest(table, req);
    if (table.carriesUnknown) {
      expect(audit.dropped).toEqual([]);
      expect(wire(req)).toContain('middle-out');
    } else {
      expect(audit.dropped.map((d) => d.field)).toEqual(['transforms']);
      expect(wire(req)).toBe(wire(base()));
    }
  });
});
