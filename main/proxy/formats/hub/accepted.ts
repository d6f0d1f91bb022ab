// What a provider format does with each field of a hub request (an OpenAI chat request, as the OpenAI front door
// takes it): translated into the provider's request, honoured elsewhere (the URL, the reply), dropped with a reason
// (the client hears of it: x-switchboard-dropped and the request log), or refused with a 400 when dropping it would
// change the answer in a way the client relies on. Each provider format declares its table in `accepted.ts` beside
// its request-from-hub; the rules every translating format shares are here. `accepted.test.ts` (formats/) checks each
// table against its requestFromHub: a field said to be translated must change the provider's request, a dropped one
// must not.
import { absent, isObject } from './json.ts';
import { shapeRefusal } from './shape.ts';
import type { HubRequest } from './types.ts';

/** One way a field is treated; `when` narrows a rule to some values (the first rule that fits applies). */
export type FieldRule = { when?: (v: unknown) => boolean } & (
  | { how: 'translated' }
  | { how: 'elsewhere'; where: string }
  | { how: 'dropped'; why: string }
  | { how: 'refused'; why: string; fix: string }
);

/**
 * A field's rules, tried in order; a value no rule fits asks for nothing the provider would not do anyway (n: 1,
 * logprobs: false, modalities: ["text"]) and is neither translated nor listed.
 */
export type FieldRules = FieldRule | readonly FieldRule[];

export type AcceptedFields = {
  /** The format as a provider, for messages: "an Anthropic provider". */
  label: string;
  /** The request goes out as the client sent it (OpenAI-compatible): fields not in the table are carried. */
  carriesUnknown?: boolean;
  /** Every top-level field the format knows; another field is dropped as unknown (unless carriesUnknown). */
  fields: Readonly<Record<string, FieldRules>>;
  /** What `tools[].function.strict: true` becomes: translated, or the reason it is dropped. */
  strictTools: 'translated' | string;
  /**
   * What an earlier assistant turn's reasoning (`messages[].reasoning_content`: a Gemini client's thought parts, an
   * Ollama client's thinking, a reasoning item) becomes: translated, or the reason it is dropped.
   */
  reasoningHistory: 'translated' | string;
};

/** Where the hub request's content can hold what only OpenAI-compatible providers read (checked when translating). */
const MESSAGE_KEYS = new Set(['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'reasoning_content']);
const PART_KEYS = new Set(['type', 'text', 'image_url']);
const PART_TYPES = new Set(['text', 'image_url']);

export const translated: FieldRule = { how: 'translated' };
/** Translated for the values `when` picks; other values ask for nothing (e.g. Ollama's tool_choice "auto"). */
export const translatedWhen = (when: (v: unknown) => boolean): FieldRule => ({ how: 'translated', when });
export const elsewhere = (where: string): FieldRule => ({ how: 'elsewhere', where });
export const dropped = (why: string, when?: (v: unknown) => boolean): FieldRule =>
  when ? { how: 'dropped', why, when } : { how: 'dropped', why };
export const refused = (why: string, fix: string, when?: (v: unknown) => boolean): FieldRule =>
  when ? { how: 'refused', why, fix, when } : { how: 'refused', why, fix };

/** The rules of every format that translates (not OpenAI-compatible), for the fields none of them can carry. */
/** A response_format asking for JSON (`json_object` or `json_schema`), the `when` several providers' rules share. */
export const jsonFormat = (v: unknown): boolean => /^json_/.test(String((v as { type?: unknown } | null)?.type));

export const TRANSLATING_DEFAULTS: Readonly<Record<string, FieldRules>> = {
  model: translated,
  messages: translated,
  stream_options: elsewhere('the reply: usage always comes with the last chunk'),
  logprobs: refused(
    'it returns no log probabilities',
    'Leave logprobs out, or route this model to an OpenAI-compatible provider.',
    (v) => v === true,
  ),
  top_logprobs: dropped('it returns no log probabilities'),
  logit_bias: dropped("its keys are token ids of OpenAI's tokenizer, which mean nothing to another model"),
  modalities: refused(
    'it answers in text only',
    'Ask for ["text"] only, or route this model to an OpenAI provider with audio.',
    (v) => Array.isArray(v) && v.some((m) => m !== 'text'),
  ),
  audio: refused('it answers in text only', 'Leave audio out, or route this model to an OpenAI provider with audio.'),
  web_search_options: refused(
    'it would answer without searching the web',
    'Leave web_search_options out, or route this model to an OpenAI provider with web search.',
  ),
  functions: refused('the deprecated functions field is not translated', 'Send the functions as tools.'),
  function_call: refused('the deprecated function_call field is not translated', 'Send tool_choice instead.'),
  prediction: dropped('a latency hint: the answer is the same without it'),
  store: dropped('stored completions are OpenAI’s; nothing is stored'),
  metadata: dropped('tags for stored completions, which are OpenAI’s'),
  service_tier: dropped('the provider’s own tier applies'),
  prompt_cache_key: dropped('a cache-routing hint for OpenAI'),
  prompt_cache_retention: dropped('a cache setting of OpenAI'),
  safety_identifier: dropped('an end-user id for OpenAI’s abuse checks'),
  verbosity: dropped('a GPT-5 setting with no equivalent'),
};

/** A refusal: the field, its value, why the provider cannot take it and what to do. */
export type Refusal = { field: string; value: unknown; why: string; fix: string };

/** A field left out of the provider's request: its name (a path for keys inside messages and tools) and why. */
export type DroppedField = { field: string; why: string };

/** What a provider format makes of one hub request: the fields it drops (in order, once each), or a refusal. */
export type Audit = { dropped: DroppedField[]; refusal: Refusal | null };

const UNKNOWN =
  'not an OpenAI chat field: only an OpenAI-compatible provider gets the fields Switchboard does not know';
const ONLY_OPENAI = 'only an OpenAI-compatible provider reads it';

const NOTHING_DROPPED: Audit = { dropped: [], refusal: null };

function ruleFor(rules: FieldRules, value: unknown): FieldRule | null {
  const list: readonly FieldRule[] = Array.isArray(rules) ? rules : [rules as FieldRule];
  for (const r of list) if (!r.when || r.when(value)) return r;
  return null;
}

/** Empty lists and objects, like null, ask for nothing (an echoed assistant turn carries `annotations: []`). */
const empty = (v: unknown): boolean =>
  absent(v) || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

function drop(out: Audit, field: string, why = ONLY_OPENAI): void {
  if (!out.dropped.some((d) => d.field === field)) out.dropped.push({ field, why });
}

/**
 * Messages and tools: parts and tools the format cannot write are refused, keys it does not read are dropped. Plain
 * loops and no per-request closures: this runs on the hot path (docs/ARCHITECTURE.md).
 */
function auditContent(table: AcceptedFields, req: HubRequest, out: Audit): void {
  const messages = req.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as unknown as Record<string, unknown>;
    for (const key in message) if (!MESSAGE_KEYS.has(key) && !empty(message[key])) drop(out, `messages[].${key}`);
    const reasoning = message.reasoning_content;
    if (table.reasoningHistory !== 'translated' && typeof reasoning === 'string' && reasoning !== '') {
      drop(out, 'messages[].reasoning_content', table.reasoningHistory);
    }
    const content = message.content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const part = content[j] as Record<string, unknown>;
      if (!PART_TYPES.has(String(part.type))) {
        out.refusal = {
          field: `messages[${i}].content[${j}].type`,
          value: part.type,
          why: 'it takes text and image parts only',
          fix: 'Send the content as text or images, or route this model to an OpenAI-compatible provider.',
        };
        return;
      }
      for (const key in part) if (!PART_KEYS.has(key) && !empty(part[key])) drop(out, `messages[].content[].${key}`);
    }
  }
  const tools = req.tools ?? [];
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i]!;
    if (t.type !== 'function' || !isObject(t.function)) {
      out.refusal = {
        field: `tools[${i}].type`,
        value: t.type,
        why: 'it takes function tools only',
        fix: 'Send the tool as {"type": "function", "function": {...}}, or route this model to an OpenAI provider.',
      };
      return;
    }
    if (t.function.strict === true && table.strictTools !== 'translated') {
      drop(out, 'tools[].function.strict', table.strictTools);
    }
  }
}

/** How `table`'s format treats `value` in `field`: a rule's kind, "moot" (asks for nothing), or "unknown". */
export function classify(table: AcceptedFields, field: string, value: unknown): FieldRule['how'] | 'moot' | 'unknown' {
  const rules = table.fields[field];
  if (rules === undefined) return table.carriesUnknown ? 'translated' : 'unknown';
  return ruleFor(rules, value)?.how ?? 'moot';
}

/** What `table`'s format makes of `req`: the fields it drops, or the first field it refuses. */
export function auditRequest(table: AcceptedFields, req: HubRequest): Audit {
  let out: Audit | null = null;
  for (const field of Object.keys(req)) {
    const value = req[field];
    if (absent(value)) continue;
    const rules = table.fields[field];
    if (rules === undefined) {
      if (table.carriesUnknown) continue;
      out ??= { dropped: [], refusal: null };
      out.dropped.push({ field, why: UNKNOWN });
      continue;
    }
    const rule = ruleFor(rules, value);
    if (rule?.how === 'refused')
      return { dropped: out?.dropped ?? [], refusal: { field, value, why: rule.why, fix: rule.fix } };
    if (rule?.how === 'dropped') (out ??= { dropped: [], refusal: null }).dropped.push({ field, why: rule.why });
  }
  if (table.carriesUnknown) return out ?? NOTHING_DROPPED;
  out ??= { dropped: [], refusal: null };
  // A field of the wrong type (an OpenAI client's request is not checked further on its way in): refused by name.
  out.refusal = shapeRefusal(req);
  if (out.refusal) return out;
  auditContent(table, req, out);
  return out.dropped.length || out.refusal ? out : NOTHING_DROPPED;
}
