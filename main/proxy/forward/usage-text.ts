// A reply's token counts, in the hub's sense (prompt includes cache reads and writes, completion includes reasoning):
// from the hub usage of a translated reply, or read from the text of a reply that passed through untouched (the
// passthrough path parses nothing else), whatever its format.
import type { HubUsage } from '../formats/hub/index.ts';
import { countsOf } from '../formats/hub/index.ts';
import type { Usage } from './target.ts';

export function usageOfHub(u: HubUsage): Usage {
  const c = countsOf(u);
  return {
    prompt: c.prompt ?? null,
    completion: c.completion ?? null,
    cacheRead: c.cacheRead,
    cacheWrite: c.cacheWrite,
    cacheWrite5m: u.prompt_tokens_details?.cache_write_5m_tokens ?? null,
    cacheWrite1h: u.prompt_tokens_details?.cache_write_1h_tokens ?? null,
    reasoning: c.reasoning,
  };
}

/**
 * The counters each format names, as found in a text (the last value of each wins: a stream's final counts):
 * OpenAI chat and Responses (cached_tokens and reasoning_tokens within prompt and completion), Anthropic (its cache
 * reads and writes apart from input_tokens, and the writes' 5-minute / 1-hour split in cache_creation), Gemini (thoughts
 * apart from candidates), Ollama (no detail).
 */
const COUNTER_OF: Record<string, keyof Counters> = {
  prompt_tokens: 'prompt',
  input_tokens: 'prompt',
  promptTokenCount: 'prompt',
  prompt_eval_count: 'prompt',
  completion_tokens: 'completion',
  output_tokens: 'completion',
  candidatesTokenCount: 'completion',
  eval_count: 'completion',
  cached_tokens: 'cached',
  cachedContentTokenCount: 'cached',
  cache_write_tokens: 'cacheWrite',
  cache_read_input_tokens: 'anthropicRead',
  cache_creation_input_tokens: 'anthropicWrite',
  ephemeral_5m_input_tokens: 'write5m',
  ephemeral_1h_input_tokens: 'write1h',
  cache_write_5m_tokens: 'write5m',
  cache_write_1h_tokens: 'write1h',
  reasoning_tokens: 'reasoning',
  thoughtsTokenCount: 'thoughts',
};

/** Every counter name in one pattern: the text is scanned once (it was once per counter, on every reply). */
const COUNTERS = new RegExp(`"(${Object.keys(COUNTER_OF).join('|')})"\\s*:\\s*(\\d+)`, 'g');

type Counters = {
  prompt: number | null;
  completion: number | null;
  cached: number | null;
  cacheWrite: number | null;
  anthropicRead: number | null;
  anthropicWrite: number | null;
  write5m: number | null;
  write1h: number | null;
  reasoning: number | null;
  thoughts: number | null;
};

function countersOf(text: string): Counters {
  const out: Counters = {
    prompt: null,
    completion: null,
    cached: null,
    cacheWrite: null,
    anthropicRead: null,
    anthropicWrite: null,
    write5m: null,
    write1h: null,
    reasoning: null,
    thoughts: null,
  };
  COUNTERS.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = COUNTERS.exec(text))) out[COUNTER_OF[m[1]!]!] = Number(m[2]);
  return out;
}

/**
 * Token counts read from a reply's text in any format: `tail` (the last few KB, where a reply's final counts are) and,
 * for a long stream, `head` (its first few KB: Anthropic's message_start has the prompt's counts), each counter taken
 * from the tail when it is there.
 */
export function usageFromText(tail: string, head = ''): Usage {
  const t = countersOf(tail);
  if (head) {
    const h = countersOf(head);
    for (const k of Object.keys(t) as (keyof Counters)[]) t[k] ??= h[k];
  }
  const anthropic = t.anthropicRead !== null || t.anthropicWrite !== null;
  const cacheRead = t.anthropicRead ?? t.cached;
  const cacheWrite = t.anthropicWrite ?? t.cacheWrite;
  return {
    prompt: t.prompt === null ? null : t.prompt + (anthropic ? (t.anthropicRead ?? 0) + (t.anthropicWrite ?? 0) : 0),
    completion: t.completion === null ? null : t.completion + (t.thoughts ?? 0),
    cacheRead,
    cacheWrite,
    cacheWrite5m: t.write5m,
    cacheWrite1h: t.write1h,
    reasoning: t.thoughts ?? t.reasoning,
  };
}
