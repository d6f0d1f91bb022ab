// Rate limits per scope (an app in local mode, a credential in gateway mode): requests and tokens per window, and
// requests in flight. resolveLimits says which limits are in force for a scope and where each is set: in local mode
// only what config.json sets, in gateway mode GATEWAY_LIMIT_DEFAULTS under it. Fixed windows that start at a
// scope's first request; tokens are estimated at admission and settled with the provider's reported usage. The table
// of scopes is bounded (scope names can be client-chosen app names): a scope whose window has run out with nothing in
// flight is dropped (it would start afresh anyway), and past MAX_SCOPES the idle ones whose windows started first go.
import type { LimitInForce, ScopeLimits } from '../../shared/admin.ts';
import { GATEWAY_LIMIT_DEFAULTS, type LimitName, type LimitsConfig, type LimitValues } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';

export type LimitMode = 'local' | 'gateway';

/** Who a request counts against: an app (local mode), or a credential with its own limits (gateway mode). */
export type LimitSubject =
  | { kind: 'app'; name: string }
  /** scope: "key:<name>", "pat:<name>", "jwt:<sub>"; name: what limits.per_key is keyed by. */
  | { kind: 'credential'; scope: string; name: string; own: LimitValues };

/** Where the files a refusal names are: absolute paths on this machine, bare names for a remote caller. */
export type LimitFiles = { config: string; keys: string };

/** The limits in force for one scope, with what a refusal needs to say where they are set. */
export type EffectiveLimits = ScopeLimits & {
  kind: 'app' | 'credential';
  /** The app's name, or the credential's per_key name. */
  name: string;
  windowMs: number;
  files: LimitFiles;
};

type ScopeState = { windowStart: number; windowMs: number; requests: number; tokens: number; inFlight: number };

/** The most scopes the limiter keeps; past it, idle scopes are dropped, oldest window first (never one in flight). */
export const MAX_SCOPES = 10_000;
/** How often admission looks for scopes whose window has run out (lazily: no timer). */
const SWEEP_EVERY_MS = 60_000;

/**
 * An admitted request: the x-ratelimit-* headers of its reply, and settle() once it is over (exactly once; later calls
 * do nothing).
 */
export type Admission = { readonly headers: Record<string, string>; settle: (actualTokens: number | null) => void };

/** A map key as a config path segment: `per_app.claude-cli`, `per_app["my app"]`. */
const segment = (name: string): string => (/^[\w-]+$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`);

/** The config.json field that sets `limit` for this subject's own entry (per_app or per_key). */
export function ownField(subject: { kind: 'app' | 'credential'; name: string }, limit: LimitName): string {
  return `limits.${subject.kind === 'app' ? 'per_app' : 'per_key'}${segment(subject.name)}.${limit}`;
}

function pick(cfg: LimitsConfig, mode: LimitMode, subject: LimitSubject, limit: LimitName): LimitInForce {
  if (!cfg.enabled) return { value: 0, source: 'disabled', field: 'limits.enabled' };
  const entry = subject.kind === 'app' ? cfg.per_app[subject.name] : cfg.per_key[subject.name];
  const mine = entry?.[limit];
  if (mine !== undefined) return { value: mine, source: 'config', field: ownField(subject, limit) };
  const own = subject.kind === 'credential' ? subject.own[limit] : undefined;
  if (own !== undefined) return { value: own, source: 'key', field: `limits.${limit}` };
  const global = cfg[limit];
  if (global !== undefined) return { value: global, source: 'config', field: `limits.${limit}` };
  return mode === 'gateway'
    ? { value: GATEWAY_LIMIT_DEFAULTS[limit], source: 'gateway_default', field: `limits.${limit}` }
    : { value: 0, source: 'unset', field: `limits.${limit}` };
}

/**
 * The limits in force for a subject. Local mode: limits.per_app.<app>, then limits.<name>, else none. Gateway mode:
 * limits.per_key.<name>, then the key's own limits, then limits.<name>, then GATEWAY_LIMIT_DEFAULTS.
 */
export function resolveLimits(cfg: LimitsConfig, mode: LimitMode, subject: LimitSubject): ScopeLimits {
  return {
    scope: subject.kind === 'app' ? `app:${subject.name}` : subject.scope,
    rpm: pick(cfg, mode, subject, 'rpm'),
    tpm: pick(cfg, mode, subject, 'tpm'),
    concurrency: pick(cfg, mode, subject, 'concurrency'),
  };
}

/** The limits of every scope without an entry of its own (scope "*"): global values, else the mode's default. */
export function defaultLimits(cfg: LimitsConfig, mode: LimitMode): ScopeLimits {
  const bare = { ...cfg, per_app: {}, per_key: {} };
  const subject: LimitSubject =
    mode === 'local' ? { kind: 'app', name: '*' } : { kind: 'credential', scope: '*', name: '*', own: {} };
  return { ...resolveLimits(bare, mode, subject), scope: '*' };
}

/** What admission needs for a subject, or null when no limit is in force (nothing counted, no headers). */
export function effectiveLimits(
  cfg: LimitsConfig,
  mode: LimitMode,
  subject: LimitSubject,
  files: LimitFiles,
): EffectiveLimits | null {
  if (!cfg.enabled) return null;
  const s = resolveLimits(cfg, mode, subject);
  if (s.rpm.value === 0 && s.tpm.value === 0 && s.concurrency.value === 0) return null;
  return { ...s, kind: subject.kind, name: subject.name, windowMs: cfg.window_ms, files };
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

/**
 * An admitted request's hold on its scope: settle() once when it ends (later calls do nothing). Its headers say the
 * counts at admission, formatted when first read: after the request has gone upstream (~10 µs off the first byte).
 */
class Lease implements Admission {
  private settled = false;
  private readonly windowStart: number;
  private readonly counts: LimitCounts;
  private formatted: Record<string, string> | null = null;

  constructor(
    private readonly st: ScopeState,
    private readonly lim: EffectiveLimits,
    private readonly resetMs: number,
    private readonly estimatedTokens: number,
  ) {
    this.windowStart = st.windowStart;
    this.counts = { requests: st.requests, tokens: st.tokens, inFlight: st.inFlight };
  }

  get headers(): Record<string, string> {
    return (this.formatted ??= limitHeaders(this.counts, this.lim, this.resetMs));
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
  /** In the order their current windows started, oldest first. */
  private readonly scopes = new Map<string, ScopeState>();
  private lastSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  /** How many scopes are held. */
  get size(): number {
    return this.scopes.size;
  }

  private state(scope: string, windowMs: number): ScopeState {
    const t = this.now();
    if (t - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(t, false);
    let st = this.scopes.get(scope);
    if (!st) {
      if (this.scopes.size >= MAX_SCOPES) this.sweep(t, true);
      st = { windowStart: t, windowMs, requests: 0, tokens: 0, inFlight: 0 };
      this.scopes.set(scope, st);
    } else if (t - st.windowStart >= windowMs) {
      st.windowStart = t;
      st.requests = 0;
      st.tokens = 0;
      this.scopes.delete(scope); // to the end: the map stays in window-start order
      this.scopes.set(scope, st);
    }
    st.windowMs = windowMs;
    return st;
  }

  /**
   * Drops the scopes whose window has run out with nothing in flight: their next request starts a fresh window,
   * as it would have. When the table is full, also the idle scopes whose windows started first, down to 90%.
   */
  private sweep(t: number, full: boolean): void {
    this.lastSweep = t;
    for (const [name, st] of this.scopes)
      if (st.inFlight === 0 && t - st.windowStart >= st.windowMs) this.scopes.delete(name);
    if (!full || this.scopes.size < MAX_SCOPES) return;
    const target = Math.floor(MAX_SCOPES * 0.9);
    for (const [name, st] of this.scopes) {
      if (this.scopes.size <= target) break;
      if (st.inFlight === 0) this.scopes.delete(name);
    }
  }

  /**
   * Admits a request, or throws: 429 request_over_tpm_limit when its estimate alone exceeds the TPM (it can never
   * fit: x-should-retry false, no Retry-After), else 429 rate_limit_exceeded with Retry-After and the x-ratelimit-*
   * headers.
   */
  admit(lim: EffectiveLimits, estimatedTokens: number): Admission {
    const st = this.state(lim.scope, lim.windowMs);
    const resetMs = st.windowStart + lim.windowMs - this.now();
    const tpm = lim.tpm.value;
    if (tpm > 0 && estimatedTokens > tpm) {
      const e = neverFits(lim, estimatedTokens);
      Object.assign(e.headers, this.headers(st, lim, resetMs), { 'x-should-retry': 'false' });
      throw e;
    }
    const over: LimitName | null =
      lim.rpm.value > 0 && st.requests + 1 > lim.rpm.value
        ? 'rpm'
        : tpm > 0 && st.tokens + estimatedTokens > tpm
          ? 'tpm'
          : lim.concurrency.value > 0 && st.inFlight + 1 > lim.concurrency.value
            ? 'concurrency'
            : null;
    if (over) {
      const headers = this.headers(st, lim, resetMs);
      // A concurrency refusal clears as soon as a request ends: retry after a second.
      const retryS = Math.max(1, Math.ceil((over === 'concurrency' ? 1000 : resetMs) / 1000));
      headers['retry-after'] = String(retryS);
      const e = overLimit(lim, over, retryS, st, estimatedTokens);
      Object.assign(e.headers, headers);
      throw e;
    }
    st.requests++;
    st.tokens += estimatedTokens;
    st.inFlight++;
    return new Lease(st, lim, resetMs, estimatedTokens);
  }

  private headers(st: ScopeState, lim: EffectiveLimits, resetMs: number): Record<string, string> {
    return limitHeaders(st, lim, resetMs);
  }
}

/** A scope's counts as a refusal or the x-ratelimit-* headers say them. */
export type LimitCounts = { requests: number; tokens: number; inFlight: number };

/** The x-ratelimit-* headers of a scope's counts (also the shared store's limiter, main/gateway/shared-limiter.ts). */
export function limitHeaders(st: LimitCounts, lim: EffectiveLimits, resetMs: number): Record<string, string> {
  const reset = formatReset(resetMs);
  const h: Record<string, string> = {};
  const rpm = lim.rpm.value;
  const tpm = lim.tpm.value;
  if (rpm > 0) {
    h['x-ratelimit-limit-requests'] = String(rpm);
    h['x-ratelimit-remaining-requests'] = String(Math.max(0, rpm - st.requests));
    h['x-ratelimit-reset-requests'] = reset;
  }
  if (tpm > 0) {
    h['x-ratelimit-limit-tokens'] = String(tpm);
    h['x-ratelimit-remaining-tokens'] = String(Math.max(0, tpm - st.tokens));
    h['x-ratelimit-reset-tokens'] = reset;
  }
  return h;
}

// --- Refusals in words: which limit, its value, the scope, where it is set and how to change it ---

const per = (windowMs: number): string => (windowMs === 60_000 ? 'per minute' : `per ${windowMs} ms`);

function amount(limit: LimitName, value: number, windowMs: number): string {
  if (limit === 'rpm') return `${value} requests ${per(windowMs)}`;
  if (limit === 'tpm') return `${value} tokens ${per(windowMs)}`;
  return `${value} requests in flight at once`;
}

function scopeWords(lim: EffectiveLimits): string {
  if (lim.kind === 'app') return `app "${lim.name}"`;
  const [kind] = lim.scope.split(':');
  const what = kind === 'key' ? 'gateway key' : kind === 'pat' ? 'personal access token' : 'JWT subject';
  return `credential ${lim.scope} (${what} "${lim.name}")`;
}

/** Where a limit is set, in words. */
function setWhere(lim: EffectiveLimits, s: LimitInForce): string {
  if (s.source === 'key')
    return `the key's own limit (${s.field} in ${lim.files.keys}, from switchboard keys create --${s.field.slice(7)})`;
  if (s.source === 'gateway_default') return `the gateway-mode default: ${s.field} is not set in ${lim.files.config}`;
  return `${s.field} in ${lim.files.config}`;
}

/** How to raise a limit for this scope, in words. */
function howToRaise(lim: EffectiveLimits, limit: LimitName, s: LimitInForce): string {
  const mine = ownField(lim, limit);
  const file = lim.files.config;
  if (s.field === mine) return `raise ${mine} in ${file} (0 means no limit)`;
  if (s.source === 'key') return `set ${mine} in ${file}, which overrides the key's own limit (0 means no limit)`;
  const every = lim.kind === 'app' ? 'every app' : 'every credential';
  const self = lim.kind === 'app' ? 'this app' : 'this credential';
  return `set ${mine} (${self}) or limits.${limit} (${every}) in ${file} (0 means no limit)`;
}

function details(lim: EffectiveLimits, limit: LimitName, extra: Record<string, unknown>): Record<string, unknown> {
  const s = lim[limit];
  const fileOf = s.source === 'key' ? lim.files.keys : lim.files.config;
  return {
    limit,
    value: s.value,
    scope: lim.scope,
    scope_kind: lim.kind,
    source: s.source,
    field: s.field,
    file: fileOf,
    window_ms: lim.windowMs,
    ...extra,
  };
}

export function overLimit(
  lim: EffectiveLimits,
  limit: LimitName,
  retryS: number,
  st: LimitCounts,
  estimatedTokens: number,
): ApiError {
  const s = lim[limit];
  const used =
    limit === 'rpm'
      ? `${st.requests} sent in this window`
      : limit === 'tpm'
        ? `${st.tokens} used in this window, this request about ${estimatedTokens}`
        : `${st.inFlight} in flight`;
  const wait =
    limit === 'concurrency' ? 'Retry when one of its requests ends (Retry-After: 1 s)' : `Retry after ${retryS} s`;
  return new ApiError(
    'rate_limit_exceeded',
    `Rate limit reached for ${scopeWords(lim)}: ${amount(limit, s.value, lim.windowMs)} (${used}); ` +
      `set by ${setWhere(lim, s)}.`,
    `${wait}, or ${howToRaise(lim, limit, s)}.`,
    details(lim, limit, { retry_after_s: retryS }),
  );
}

export function neverFits(lim: EffectiveLimits, estimatedTokens: number): ApiError {
  const s = lim.tpm;
  return new ApiError(
    'request_over_tpm_limit',
    `This request can never be admitted: it is about ${estimatedTokens} tokens (1 token per 4 bytes of its JSON), ` +
      `more than the whole limit of ${amount('tpm', s.value, lim.windowMs)} for ${scopeWords(lim)}; ` +
      `set by ${setWhere(lim, s)}.`,
    `Retrying will not help: send a smaller request, or ${howToRaise(lim, 'tpm', s)}.`,
    details(lim, 'tpm', { estimated_tokens: estimatedTokens }),
  );
}
