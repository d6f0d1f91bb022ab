// Rate limits per scope (an app on loopback, a key in gateway mode): requests and tokens per window, and requests
// in flight. Fixed windows that start at a scope's first request; tokens are estimated at admission and settled
// with the provider's reported usage.
import type { LimitsConfig, LimitValues } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';

export type EffectiveLimits = { rpm: number; tpm: number; concurrency: number; windowMs: number };

type ScopeState = { windowStart: number; requests: number; tokens: number; inFlight: number };

/** An admitted request: headers to send, and settle() once it is over (exactly once; later calls do nothing). */
export type Admission = { headers: Record<string, string>; settle: (actualTokens: number | null) => void };

/** 0 means "no limit" for each value. */
export function limitsFor(cfg: LimitsConfig, override?: LimitValues): EffectiveLimits {
  return {
    rpm: override?.rpm ?? cfg.rpm,
    tpm: override?.tpm ?? cfg.tpm,
    concurrency: override?.concurrency ?? cfg.concurrency,
    windowMs: cfg.window_ms,
  };
}

/**
 * The documented token estimate: one token per 4 bytes of the request's text (the JSON body, or a multipart
 * body's non-file fields), rounded up. A tokenizer would cost more CPU than the whole hot path for long prompts.
 */
export function estimateTokens(textBytes: number): number {
  return Math.ceil(textBytes / 4);
}

/** "1s", "6m0s", "250ms": the reset format OpenAI's x-ratelimit-reset-* headers use. */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/** An admitted request's hold on its scope: settle() once when it ends (later calls do nothing). */
class Lease implements Admission {
  private settled = false;
  private readonly windowStart: number;

  constructor(
    readonly headers: Record<string, string>,
    private readonly st: ScopeState,
    private readonly estimatedTokens: number,
  ) {
    this.windowStart = st.windowStart;
  }

  settle(actual: number | null): void {
    if (this.settled) return;
    this.settled = true;
    const st = this.st;
    st.inFlight--;
    // The reported usage replaces the estimate, in the window it was admitted in.
    if (actual !== null && st.windowStart === this.windowStart)
      st.tokens = Math.max(0, st.tokens - this.estimatedTokens + actual);
  }
}

export class Limiter {
  private readonly scopes = new Map<string, ScopeState>();

  constructor(private readonly now: () => number = Date.now) {}

  private state(scope: string, windowMs: number): ScopeState {
    const t = this.now();
    let st = this.scopes.get(scope);
    if (!st) {
      st = { windowStart: t, requests: 0, tokens: 0, inFlight: 0 };
      this.scopes.set(scope, st);
    } else if (t - st.windowStart >= windowMs) {
      st.windowStart = t;
      st.requests = 0;
      st.tokens = 0;
    }
    return st;
  }

  /** Admits a request or throws a 429 ApiError that carries Retry-After and the x-ratelimit-* headers. */
  admit(scope: string, lim: EffectiveLimits, estimatedTokens: number): Admission {
    const st = this.state(scope, lim.windowMs);
    const resetMs = st.windowStart + lim.windowMs - this.now();
    const over =
      lim.rpm > 0 && st.requests + 1 > lim.rpm
        ? 'requests per minute'
        : lim.tpm > 0 && st.tokens + estimatedTokens > lim.tpm
          ? 'tokens per minute'
          : lim.concurrency > 0 && st.inFlight + 1 > lim.concurrency
            ? 'concurrent requests'
            : null;
    if (over) {
      const headers = this.headers(st, lim, resetMs);
      // A concurrency refusal clears as soon as a request ends: retry after a second.
      const retryMs = over === 'concurrent requests' ? 1000 : resetMs;
      headers['retry-after'] = String(Math.max(1, Math.ceil(retryMs / 1000)));
      const limit = over === 'requests per minute' ? lim.rpm : over === 'tokens per minute' ? lim.tpm : lim.concurrency;
      const tooBig = over === 'tokens per minute' && estimatedTokens > lim.tpm;
      const e = new ApiError(
        'rate_limit_exceeded',
        tooBig
          ? `This request (about ${estimatedTokens} tokens) is larger than the limit of ${lim.tpm} tokens per minute for ${scope}.`
          : `Rate limit of ${limit} ${over} reached for ${scope}.`,
        tooBig
          ? "Send a smaller request, or raise limits.tpm (or this scope's per_app/per_key entry) in config.json."
          : `Retry after ${headers['retry-after']} s, or raise limits in config.json (limits.rpm, limits.tpm, limits.concurrency, or per_app/per_key).`,
      );
      Object.assign(e.headers, headers);
      throw e;
    }
    st.requests++;
    st.tokens += estimatedTokens;
    st.inFlight++;
    return new Lease(this.headers(st, lim, resetMs), st, estimatedTokens);
  }

  private headers(st: ScopeState, lim: EffectiveLimits, resetMs: number): Record<string, string> {
    const reset = formatReset(resetMs);
    const h: Record<string, string> = {};
    if (lim.rpm > 0) {
      h['x-ratelimit-limit-requests'] = String(lim.rpm);
      h['x-ratelimit-remaining-requests'] = String(Math.max(0, lim.rpm - st.requests));
      h['x-ratelimit-reset-requests'] = reset;
    }
    if (lim.tpm > 0) {
      h['x-ratelimit-limit-tokens'] = String(lim.tpm);
      h['x-ratelimit-remaining-tokens'] = String(Math.max(0, lim.tpm - st.tokens));
      h['x-ratelimit-reset-tokens'] = reset;
    }
    return h;
  }
}
