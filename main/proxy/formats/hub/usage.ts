// Token usage, one mapper for every format and both directions: each format declares where its counters sit and
// whether its prompt count leaves out cached tokens (Anthropic) or its completion count leaves out reasoning tokens
// (Gemini); the mapper turns that into the hub's counts (OpenAI's: prompt includes cache reads and writes,
// completion includes reasoning) and back.
import { isObject, type Json, readPath, writePath } from './json.ts';
import type { HubUsage } from './types.ts';

/** Where a format keeps each counter (dotted paths in its usage object). */
export type UsageFields = {
  prompt: string;
  completion: string;
  total?: string;
  /** Prompt tokens read from the provider's cache. */
  cacheRead?: string;
  /** Prompt tokens written to the provider's cache. */
  cacheWrite?: string;
  /** Within cacheWrite, the writes kept 5 minutes and 1 hour (Anthropic's cache_creation); written only when not 0. */
  cacheWrite5m?: string;
  cacheWrite1h?: string;
  /** Completion tokens spent on reasoning. */
  reasoning?: string;
  /** The wire's prompt count leaves out cached tokens (read and written): the hub's includes them. */
  promptExcludesCache?: boolean;
  /** The wire's completion count leaves out reasoning tokens: the hub's includes them. */
  completionExcludesReasoning?: boolean;
  /** Write the detail counters even when they are 0 (the format's clients expect them). */
  writeZeroDetails?: boolean;
};

/** The counters every format has, in the hub's sense (prompt includes the cache, completion includes reasoning). */
export type TokenCounts = {
  prompt: number;
  completion: number;
  total: number;
  cacheRead: number;
  cacheWrite: number;
  /** Within cacheWrite: the 5-minute and 1-hour writes, when the provider tells them apart (else 0). */
  cacheWrite5m: number;
  cacheWrite1h: number;
  reasoning: number;
};

function numberAt(obj: Json, path: string | undefined): number | undefined {
  const v = path ? readPath(obj, path) : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The hub's usage from counts; details only where there is something to say. */
export function hubUsage(c: TokenCounts): HubUsage {
  const u: HubUsage = { prompt_tokens: c.prompt, completion_tokens: c.completion, total_tokens: c.total };
  if (c.cacheRead || c.cacheWrite) {
    u.prompt_tokens_details = {};
    if (c.cacheRead) u.prompt_tokens_details.cached_tokens = c.cacheRead;
    if (c.cacheWrite) u.prompt_tokens_details.cache_write_tokens = c.cacheWrite;
    if (c.cacheWrite5m) u.prompt_tokens_details.cache_write_5m_tokens = c.cacheWrite5m;
    if (c.cacheWrite1h) u.prompt_tokens_details.cache_write_1h_tokens = c.cacheWrite1h;
  }
  if (c.reasoning) u.completion_tokens_details = { reasoning_tokens: c.reasoning };
  return u;
}

/** The counts of a hub usage. */
export function countsOf(u: HubUsage): TokenCounts {
  return {
    prompt: u.prompt_tokens,
    completion: u.completion_tokens,
    total: u.total_tokens,
    cacheRead: u.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWrite: u.prompt_tokens_details?.cache_write_tokens ?? 0,
    cacheWrite5m: u.prompt_tokens_details?.cache_write_5m_tokens ?? 0,
    cacheWrite1h: u.prompt_tokens_details?.cache_write_1h_tokens ?? 0,
    reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

export class UsageMap {
  constructor(readonly fields: UsageFields) {}

  /** A format's usage object as the hub's; undefined when it carries neither a prompt nor a completion count. */
  toHub(wire: unknown): HubUsage | undefined {
    if (!isObject(wire)) return undefined;
    const f = this.fields;
    const prompt = numberAt(wire, f.prompt);
    const completion = numberAt(wire, f.completion);
    if (prompt === undefined && completion === undefined) return undefined;
    const cacheRead = numberAt(wire, f.cacheRead) ?? 0;
    const cacheWrite = numberAt(wire, f.cacheWrite) ?? 0;
    const cacheWrite5m = numberAt(wire, f.cacheWrite5m) ?? 0;
    const cacheWrite1h = numberAt(wire, f.cacheWrite1h) ?? 0;
    const reasoning = numberAt(wire, f.reasoning) ?? 0;
    const p = (prompt ?? 0) + (f.promptExcludesCache ? cacheRead + cacheWrite : 0);
    const c = (completion ?? 0) + (f.completionExcludesReasoning ? reasoning : 0);
    return hubUsage({
      prompt: p,
      completion: c,
      total: numberAt(wire, f.total) ?? p + c,
      cacheRead,
      cacheWrite,
      cacheWrite5m,
      cacheWrite1h,
      reasoning,
    });
  }

  /** The hub's usage as this format's usage object. */
  fromHub(u: HubUsage): Json {
    const f = this.fields;
    const c = countsOf(u);
    const out: Json = {};
    writePath(out, f.prompt, f.promptExcludesCache ? Math.max(0, c.prompt - c.cacheRead - c.cacheWrite) : c.prompt);
    writePath(
      out,
      f.completion,
      f.completionExcludesReasoning ? Math.max(0, c.completion - c.reasoning) : c.completion,
    );
    if (f.total) writePath(out, f.total, c.total);
    const detail = (path: string | undefined, value: number): void => {
      if (path && (value || f.writeZeroDetails)) writePath(out, path, value);
    };
    detail(f.cacheRead, c.cacheRead);
    detail(f.cacheWrite, c.cacheWrite);
    // The 5-minute / 1-hour split only when a provider gave one (never written as zeros).
    if (f.cacheWrite5m && c.cacheWrite5m) writePath(out, f.cacheWrite5m, c.cacheWrite5m);
    if (f.cacheWrite1h && c.cacheWrite1h) writePath(out, f.cacheWrite1h, c.cacheWrite1h);
    detail(f.reasoning, c.reasoning);
    return out;
  }
}

/** OpenAI chat's own usage fields: the hub's shape, read with the same rules as every other format. */
export const OPENAI_USAGE = new UsageMap({
  prompt: 'prompt_tokens',
  completion: 'completion_tokens',
  total: 'total_tokens',
  cacheRead: 'prompt_tokens_details.cached_tokens',
  cacheWrite: 'prompt_tokens_details.cache_write_tokens',
  cacheWrite5m: 'prompt_tokens_details.cache_write_5m_tokens',
  cacheWrite1h: 'prompt_tokens_details.cache_write_1h_tokens',
  reasoning: 'completion_tokens_details.reasoning_tokens',
});
