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
    reasoning: c.reasoning,
  };
}

/**
 * The counters each format names, as found in a text (the last value of each wins: a stream's final counts):
 * OpenAI chat and Responses (cached_tokens and reasoning_tokens within prompt and completion), Anthropic (its cache
 * reads and writes apart from input_tokens), Gemini (thoughts apart from candidates), Ollama (no detail).
 */
const COUNTERS = {
  prompt: /"(?:prompt_tokens|input_tokens|promptTokenCount|prompt_eval_count)"\s*:\s*(\d+)/g,
  completion: /"(?:completion_tokens|output_tokens|candidatesTokenCount|eval_count)"\s*:\s*(\d+)/g,
  cached: /"(?:cached_tokens|cachedContentTokenCount)"\s*:\s*(\d+)/g,
  cacheWrite: /"cache_write_tokens"\s*:\s*(\d+)/g,
  anthropicRead: /"cache_read_input_tokens"\s*:\s*(\d+)/g,
  anthropicWrite: /"cache_creation_input_tokens"\s*:\s*(\d+)/g,
  reasoning: /"reasoning_tokens"\s*:\s*(\d+)/g,
  thoughts: /"thoughtsTokenCount"\s*:\s*(\d+)/g,
} as const;

type Counters = Record<keyof typeof COUNTERS, number | null>;

function last(re: RegExp, text: string): number | null {
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  let v: number | null = null;
  while ((m = re.exec(text))) v = Number(m[1]);
  return v;
}

function countersOf(text: string): Counters {
  const out = {} as Counters;
  for (const k of Object.keys(COUNTERS) as (keyof typeof COUNTERS)[]) out[k] = last(COUNTERS[k], text);
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
    reasoning: t.thoughts ?? t.reasoning,
  };
}
