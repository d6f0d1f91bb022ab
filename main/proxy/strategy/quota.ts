// What an upstream's rate-limit headers say is left of its window, so a strategy routes ahead of a quota running out
// instead of after its 429 (docs/routing.md, "Routing strategies"). One QuotaState per provider, or per key of a key pool.
//
// Read from every reply of a tracked provider (a strategy rule names it, or it holds a key pool):
// - OpenAI, Groq, DeepSeek, Mistral, xAI, Together, OpenRouter: `x-ratelimit-remaining-requests` / `-tokens`, their
//   `x-ratelimit-limit-*` and `x-ratelimit-reset-*` ("1s", "6m0s", "59.5ms"; Groq's "2m59.56s"); OpenRouter's bare
//   `x-ratelimit-remaining` / `x-ratelimit-reset` (epoch milliseconds);
// - Anthropic: `anthropic-ratelimit-requests-remaining` / `-reset` (RFC 3339), `anthropic-ratelimit-tokens-*` and
//   `anthropic-ratelimit-input-tokens-*` (the tighter of the two counts);
// - `retry-after` (seconds, or an HTTP date) on a 429 or 529: spent until then.
// Between readings the requests and tokens sent since are counted down locally, so concurrent requests do not all
// take the last one. What was read holds until its reset time, or 60 s when none was given (OpenAI-style windows are a
// minute); then it is forgotten and the provider is tried again.
import type { IncomingHttpHeaders } from 'node:http';

/** How long a reading without a reset time is believed. */
export const UNDATED_READING_MS = 60_000;
/** A 429 with no retry-after and no reset header: spent this long. */
export const DEFAULT_429_MS = 60_000;

/** Why a quota refuses a request now: its requests or tokens are spent, or a 429 said to wait (null: it does not). */
export type Spent = 'requests' | 'tokens' | 'retry_after' | null;

/** One header value as a string (undici gives arrays for repeated headers). */
function one(v: string | string[] | undefined): string | undefined {
  return typeof v === 'string' ? v : v?.[0];
}

/** A whole number from a header, or -1 when absent or not a number. */
function count(v: string | undefined): number {
  if (v === undefined) return -1;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : -1;
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;

/**
 * When a reset header's value comes, as epoch ms (0: not understood): a Go-style duration ("1s", "6m0s", "250ms",
 * "2m59.56s"), a plain number of seconds (or epoch seconds / milliseconds, told apart by size), or a date (RFC 3339).
 */
export function resetAt(value: string | undefined, now: number): number {
  if (value === undefined || value === '') return 0;
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    if (n > 1e12) return n; // epoch milliseconds (OpenRouter)
    if (n > 1e9) return n * 1000; // epoch seconds
    return now + n * 1000; // seconds from now
  }
  if (/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(value)) {
    let ms = 0;
    for (const m of value.matchAll(DURATION_PART)) {
      const n = Number(m[1]);
      ms += m[2] === 'h' ? n * 3_600_000 : m[2] === 'm' ? n * 60_000 : m[2] === 's' ? n * 1000 : n;
    }
    return now + ms;
  }
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : 0;
}

/** The least of two counts where -1 means unknown. */
function least(a: number, b: number): number {
  if (a < 0) return b;
  if (b < 0) return a;
  return Math.min(a, b);
}

export class QuotaState {
  /** Requests left in the window when last read (-1: not said). */
  remainingRequests = -1;
  limitRequests = -1;
  /** Tokens left in the window when last read (-1: not said). */
  remainingTokens = -1;
  limitTokens = -1;
  /** Epoch ms the request and token windows start again (0: not said). */
  requestsResetAt = 0;
  tokensResetAt = 0;
  /** Epoch ms of the last reading (0: none). */
  readAt = 0;
  /** Requests and tokens sent since the last reading. */
  sentRequests = 0;
  sentTokens = 0;
  /** A 429's retry-after: spent until then (epoch ms). */
  blockedUntil = 0;

  /**
   * Reads a reply's headers (any status: a 429 carries them too). Returns true when they said anything. A 429 or 529
   * blocks until its retry-after (or the reset headers, or DEFAULT_429_MS).
   */
  read(h: IncomingHttpHeaders, status: number, now: number): boolean {
    const remReq = least(
      count(one(h['x-ratelimit-remaining-requests'])),
      least(count(one(h['anthropic-ratelimit-requests-remaining'])), count(one(h['x-ratelimit-remaining']))),
    );
    const remTok = least(
      count(one(h['x-ratelimit-remaining-tokens'])),
      least(
        count(one(h['anthropic-ratelimit-tokens-remaining'])),
        count(one(h['anthropic-ratelimit-input-tokens-remaining'])),
      ),
    );
    const said = remReq >= 0 || remTok >= 0;
    if (said) {
      this.readAt = now;
      this.sentRequests = 0;
      this.sentTokens = 0;
      this.remainingRequests = remReq;
      this.remainingTokens = remTok;
      this.limitRequests = least(
        count(one(h['x-ratelimit-limit-requests'])),
        least(count(one(h['anthropic-ratelimit-requests-limit'])), count(one(h['x-ratelimit-limit']))),
      );
      this.limitTokens = least(
        count(one(h['x-ratelimit-limit-tokens'])),
        count(one(h['anthropic-ratelimit-tokens-limit'])),
      );
      this.requestsResetAt = resetAt(
        one(h['x-ratelimit-reset-requests']) ??
          one(h['anthropic-ratelimit-requests-reset']) ??
          one(h['x-ratelimit-reset']),
        now,
      );
      this.tokensResetAt = resetAt(
        one(h['x-ratelimit-reset-tokens']) ??
          one(h['anthropic-ratelimit-tokens-reset']) ??
          one(h['anthropic-ratelimit-input-tokens-reset']),
        now,
      );
    }
    if (status === 429 || status === 529) {
      const after = resetAt(one(h['retry-after']), now);
      const windowEnd = Math.max(this.requestsResetAt, this.tokensResetAt);
      this.blockedUntil = after > now ? after : windowEnd > now ? windowEnd : now + DEFAULT_429_MS;
      return true;
    }
    return said;
  }

  /** A request of `tokens` (estimated) is about to go: counted against what was read. */
  sent(tokens: number): void {
    this.sentRequests++;
    this.sentTokens += tokens;
  }

  /** Whether the window would refuse a request of `tokens` now, and why (null when it would not, or nothing is known). */
  spent(tokens: number, now: number): Spent {
    if (this.blockedUntil > now) return 'retry_after';
    if (this.readAt === 0) return null;
    if (
      this.remainingRequests >= 0 &&
      this.remainingRequests - this.sentRequests <= 0 &&
      this.current(this.requestsResetAt, now)
    )
      return 'requests';
    if (
      this.remainingTokens >= 0 &&
      this.remainingTokens - this.sentTokens < tokens &&
      this.current(this.tokensResetAt, now)
    )
      return 'tokens';
    return null;
  }

  /** A reading still holds: before its reset time, or within UNDATED_READING_MS when it gave none. */
  private current(resetAt: number, now: number): boolean {
    return resetAt > 0 ? now < resetAt : now - this.readAt < UNDATED_READING_MS;
  }

  /** When the window refusing now opens again (epoch ms; 0 when not refusing). */
  reopensAt(why: Spent, now: number): number {
    if (why === 'retry_after') return this.blockedUntil;
    if (why === 'requests') return this.requestsResetAt || this.readAt + UNDATED_READING_MS;
    if (why === 'tokens') return this.tokensResetAt || this.readAt + UNDATED_READING_MS;
    return now;
  }

  /** Requests left, as far as is known (-1: unknown): for choosing the key with the most left. */
  requestsLeft(now: number): number {
    if (this.blockedUntil > now) return 0;
    if (this.readAt === 0 || this.remainingRequests < 0 || !this.current(this.requestsResetAt, now)) return -1;
    return Math.max(0, this.remainingRequests - this.sentRequests);
  }

  /** The sentence an attempt log or the route tester shows for a refusal. */
  describe(why: Spent, tokens: number, now: number): string {
    const until = new Date(this.reopensAt(why, now)).toISOString();
    if (why === 'retry_after') return `rate limited (its 429 said to retry after ${until})`;
    if (why === 'requests')
      return `quota spent: its rate-limit headers said ${this.remainingRequests} request${this.remainingRequests === 1 ? '' : 's'} left${this.limitRequests >= 0 ? ` of ${this.limitRequests}` : ''}${this.sentRequests ? ` and ${this.sentRequests} went since` : ''}, until ${until}`;
    if (why === 'tokens')
      return `quota spent: its rate-limit headers said ${Math.max(0, this.remainingTokens - this.sentTokens)} tokens left, fewer than this request's ~${tokens}, until ${until}`;
    return 'quota not spent';
  }

  /** What is known, for the route tester (null: nothing read yet). */
  snapshot(now: number): QuotaSnapshot | null {
    if (this.readAt === 0 && this.blockedUntil <= now) return null;
    return {
      requests_left: this.requestsLeft(now),
      requests_limit: this.limitRequests,
      tokens_left: this.remainingTokens < 0 ? -1 : Math.max(0, this.remainingTokens - this.sentTokens),
      read_at: this.readAt ? new Date(this.readAt).toISOString() : null,
      blocked_until: this.blockedUntil > now ? new Date(this.blockedUntil).toISOString() : null,
    };
  }
}

/** A quota as the route tester shows it (-1: not said). */
export type QuotaSnapshot = {
  requests_left: number;
  requests_limit: number;
  tokens_left: number;
  read_at: string | null;
  blocked_until: string | null;
};
