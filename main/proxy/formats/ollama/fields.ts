// Every field of /api/chat and /api/generate (and their `options`) that the hub does not carry as it is, and what
// the translation does with it: refused (a 400 naming it: only Ollama can honour it, and leaving it out would change
// the answer) or dropped (the reason is given here and in DECISIONS.md). Fields these tables do not list are
// ignored, as Ollama itself ignores fields it does not know. None of this applies to an Ollama provider: it gets the
// client's bytes untranslated.
import { absent, invalid, noteDropped, noteUnknownFields, type Json } from '../hub/index.ts';
import type { ClientContext } from '../hub/index.ts';

export type FieldRule =
  | { fate: 'translated' }
  | { fate: 'dropped'; why: string }
  /** Refused when `applies` says so; `what` says what the field needs, `fix` what to do. */
  | { fate: 'refused'; what: string; fix: string; applies: (v: unknown) => boolean };

const translated: FieldRule = { fate: 'translated' };
const dropped = (why: string): FieldRule => ({ fate: 'dropped', why });

const KEEP_ALIVE = dropped('how long Ollama keeps the model in memory; it does not change the answer');
const LOGPROBS: FieldRule = {
  fate: 'refused',
  what: 'asks for log probabilities, which the translated reply cannot carry back',
  fix: 'Leave it out',
  applies: (v) => v === true || (typeof v === 'number' && v > 0),
};

/** /api/chat's fields. */
export const CHAT_FIELDS: Record<string, FieldRule> = {
  model: translated,
  messages: translated,
  tools: translated,
  format: translated,
  options: translated,
  stream: translated,
  think: translated,
  keep_alive: KEEP_ALIVE,
  logprobs: LOGPROBS,
  top_logprobs: LOGPROBS,
};

/** /api/generate's fields. */
export const GENERATE_FIELDS: Record<string, FieldRule> = {
  model: translated,
  prompt: translated,
  system: translated,
  images: translated,
  format: translated,
  options: translated,
  stream: translated,
  think: translated,
  /** With `raw`, sent to an OpenAI-type provider's /v1/completions (generate.ts, the door's plan). */
  suffix: translated,
  raw: translated,
  template: dropped(
    "Ollama's prompt template for this model; other providers apply their own chat template (a raw prompt needs none)",
  ),
  context: {
    fate: 'refused',
    what: 'holds Ollama token ids of an earlier exchange, which no other provider can read: the answer would lose that conversation',
    fix: 'Send the conversation as /api/chat messages instead',
    applies: (v) => !Array.isArray(v) || v.length > 0,
  },
  keep_alive: KEEP_ALIVE,
  logprobs: LOGPROBS,
  top_logprobs: LOGPROBS,
};

const RUNTIME = 'how Ollama loads and runs the model on this machine; other providers run their own';
const SAMPLER = 'a sampling control the OpenAI, Anthropic and Gemini APIs do not have';

/** `options`: Ollama's model parameters. The translated ones go through the parameter map (OLLAMA_PARAMS). */
export const OPTION_FIELDS: Record<string, FieldRule> = {
  temperature: translated,
  top_p: translated,
  top_k: translated,
  num_predict: translated,
  stop: translated,
  seed: translated,
  presence_penalty: translated,
  frequency_penalty: translated,
  num_ctx: dropped("the size of Ollama's context window; other providers have their model's own"),
  num_keep: dropped('the tokens Ollama keeps when it shifts a full context window; other providers do not shift'),
  mirostat: dropped(SAMPLER),
  mirostat_eta: dropped(SAMPLER),
  mirostat_tau: dropped(SAMPLER),
  tfs_z: dropped(SAMPLER),
  typical_p: dropped(SAMPLER),
  min_p: dropped(SAMPLER),
  repeat_penalty: dropped(SAMPLER),
  repeat_last_n: dropped(SAMPLER),
  penalize_newline: dropped(SAMPLER),
  num_batch: dropped(RUNTIME),
  num_gpu: dropped(RUNTIME),
  main_gpu: dropped(RUNTIME),
  num_thread: dropped(RUNTIME),
  numa: dropped(RUNTIME),
  low_vram: dropped(RUNTIME),
  f16_kv: dropped(RUNTIME),
  vocab_only: dropped(RUNTIME),
  use_mmap: dropped(RUNTIME),
  use_mlock: dropped(RUNTIME),
  num_gqa: dropped(RUNTIME),
};

/** The body's fields against a table: a refused one is a 400 naming it (an Ollama provider still takes it as is). */
export function checkFields(body: Json, table: Record<string, FieldRule>, ctx?: ClientContext, at = ''): void {
  noteUnknownFields(ctx, body, table, at);
  for (const [key, v] of Object.entries(body)) {
    const rule = table[key];
    if (!rule || absent(v)) continue;
    if (rule.fate === 'dropped') noteDropped(ctx, at ? `${at}.${key}` : key, rule.why);
    if (rule.fate !== 'refused' || !rule.applies(v)) continue;
    throw invalid(
      `"${key}" ${rule.what}.`,
      `${rule.fix}, or route this model to an Ollama provider, which gets the request untranslated.`,
    );
  }
}
