// The failover loop: try each candidate provider in order until one answers, then stream its reply to the target.
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AttemptLog } from '../../../shared/admin.ts';
import { ApiError } from '../../errors.ts';
import type { AttemptFailure, ProviderPool, ProviderRuntime } from '../provider-pool.ts';
import type { ResolvedCandidate } from '../routing.ts';
import { type AttemptResult, type ForwardProgress, UpstreamAttempt } from './attempt.ts';
import type { StreamSeam } from './continuation.ts';
import { resetAt } from '../strategy/quota.ts';
import { type AttemptPlan, CandidateRefusal, type Planner, type PlanTarget } from './plan.ts';
import type { ReplyTypes } from './reply-type.ts';
import type { ReplyTarget } from './target.ts';

export type ForwardRequest = {
  /** The client's request headers (the header policy picks those that go upstream). */
  headers: IncomingHttpHeaders;
  /** Where the reply goes. */
  target: ReplyTarget;
  candidates: ResolvedCandidate[];
  /** The routed model. */
  model: string;
  /** The call for each candidate, or why a provider cannot serve the request (it is then skipped). */
  planner: Planner;
  /** The limiter's admission: its x-ratelimit-* headers go on the reply, read once the request has gone upstream. */
  admission?: { readonly headers: Record<string, string> };
  /** What the route's replies may be (reply-type.ts); default `api`: JSON or an event stream. */
  replies?: ReplyTypes;
  /**
   * The request's estimated tokens, given when its route has a strategy (strategy/choose.ts): a candidate whose
   * upstream rate-limit headers say its window is spent (strategy/quota.ts) is then skipped before it is called.
   */
  estimate?: number;
  /** The client asked for a stream: a provider's speed in tokens a second is measured only on streams. */
  stream?: boolean;
  /**
   * The request's session for a key pool's stickiness (strategy/key-pool.ts: a session header, a prompt_cache_key, or
   * the first message's hash), asked for only when a candidate has a pool; null: none.
   */
  session?: () => string | null;
  /**
   * A route with continue_on_cut (continuation.ts): the client's stream across attempts, and the planner of a request
   * continuing an answer cut after `prefix`.
   */
  continuation?: { seam: StreamSeam; planner: (prefix: string) => Planner };
  /** While serving offline: providers that could not be connected to, skipped without a call (../offline.ts). */
  unreachable?: ReadonlyMap<string, unknown> | null;
};

/** What the request log needs to know about how forwarding went. */
export type ForwardOutcome = ForwardProgress & {
  attempts: AttemptLog[];
  errorCode: string | null;
  /** Set when every candidate failed before anything reached the client: the caller sends it. */
  error: ApiError | null;
};

type LastFailure = AttemptFailure & { provider: string; retryAfter?: string };

/**
 * Sends the request to each candidate in turn. A candidate fails over (connect error, timeout, 408/429/5xx)
 * only while nothing has reached the client: the reply is committed at its first body byte. After that, an
 * upstream failure ends an SSE stream with an error event and cuts a plain body short: never a hang.
 */
export async function forwardWithFailover(f: ForwardRequest, pool: ProviderPool): Promise<ForwardOutcome> {
  const attempts: AttemptLog[] = [];
  const outcome: ForwardOutcome = {
    provider: null,
    route: null,
    attempts,
    status: 0,
    errorCode: null,
    ttfbMs: null,
    promptTokens: null,
    completionTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    cacheWrite5mTokens: null,
    cacheWrite1hTokens: null,
    reasoningTokens: null,
    error: null,
  };
  const ctx = {
    headers: f.headers,
    target: f.target,
    admission: f.admission,
    progress: outcome,
    started: performance.now(),
    replies: f.replies ?? 'api',
  };
  let lastFailure: LastFailure | null = null;
  let tried = 0;
  /** Why the first candidate that could not serve the request could not: a reason, or the client's error itself. */
  let unsupported: string | ApiError | null = null;
  /** The first candidate that failed or was skipped as open: a later one answering is failover (pool.watcher). */
  let failedFirst: { provider: string; why: string } | null = null;
  /** Candidates skipped because their quota was spent, and when the first of them opens again (epoch ms). */
  let spentCount = 0;
  let reopensFirst = Number.POSITIVE_INFINITY;
  /** Candidates skipped as unreachable while offline (f.unreachable). */
  let unreachableCount = 0;
  /** The request's session, asked for once when a key pool needs it (f.session). */
  let session: string | null | undefined;

  /** The candidates, and the planner: both change when a cut stream is continued (f.continuation). */
  let candidates = f.candidates;
  let planner = f.planner;
  const seam = f.continuation?.seam ?? null;

  for (let i = 0; i < candidates.length; i++) {
    const cand = candidates[i]!;
    const provider = pool.get(cand.provider);
    if (!provider) continue;
    const { kind, baseUrl, name } = provider;
    const plan = planOrRefusal(planner, { kind, baseUrl, name, nativeFormats: provider.config.native_formats });
    if (typeof plan === 'string' || plan instanceof ApiError) {
      const why = typeof plan === 'string' ? plan : plan.message;
      attempts.push({ provider: cand.provider, status: null, error: why, latency_ms: 0 });
      if (!(unsupported instanceof ApiError)) unsupported = plan; // the first refused field says the most
      continue;
    }
    if (f.unreachable?.has(cand.provider)) {
      // Offline (../offline.ts): it could not be connected to, and no background probe has connected since.
      const error = 'skipped: cannot connect (offline; probed in the background until it accepts connections)';
      attempts.push({ provider: cand.provider, status: null, error, latency_ms: 0 });
      failedFirst ??= { provider: cand.provider, why: error };
      lastFailure = { retryable: true, status: null, kind: 'connect', message: error, provider: cand.provider };
      unreachableCount++;
      continue;
    }
    const quota = provider.quota;
    if (quota !== null && f.estimate !== undefined) {
      const now = Date.now();
      const why = quota.spent(f.estimate, now);
      if (why !== null) {
        const error = `skipped before calling: ${quota.describe(why, f.estimate, now)}`;
        attempts.push({ provider: cand.provider, status: null, error, latency_ms: 0 });
        failedFirst ??= { provider: cand.provider, why: error };
        spentCount++;
        reopensFirst = Math.min(reopensFirst, quota.reopensAt(why, now));
        continue;
      }
    }
    if (!provider.breaker.allow()) {
      attempts.push({ provider: cand.provider, status: null, error: 'circuit open: skipped', latency_ms: 0 });
      failedFirst ??= { provider: cand.provider, why: 'its circuit is open after repeated failures' };
      continue;
    }
    const dropped = plan.dropped ? { dropped: plan.dropped } : null;
    // One attempt, or for a provider with a key pool (strategy/key-pool.ts) one per key until a key is not refused:
    // a key answering 401, 403 or 429 is benched and the request moves to the next key of the same provider.
    const keys = provider.keyPool;
    let keysTried: Set<number> | null = null;
    let result: AttemptResult | null = null;
    let t0 = 0;
    let latency = 0;
    for (;;) {
      const k = keys === null ? -1 : keys.pick((session ??= f.session?.() ?? null), Date.now(), keysTried ?? undefined);
      if (keys !== null && k < 0) break;
      const q = keys === null ? quota : keys.keys[k]!.quota;
      tried++;
      if (q !== null) q.sent(f.estimate ?? 0);
      t0 = performance.now();
      result = await new UpstreamAttempt(ctx, plan, provider, cand, i + 1, q, k < 0 ? null : keys!.value(k)).run();
      latency = performance.now() - t0;
      const status = result.kind === 'failed' ? result.failure.status : null;
      if (keys === null || (status !== 401 && status !== 403 && status !== 429)) break;
      const now = Date.now();
      const ra = result.kind === 'failed' ? result.retryAfter : undefined;
      keys.bench(k, status, Math.max(resetAt(ra, now), keys.keys[k]!.quota.blockedUntil), now);
      const failure = (result as Extract<AttemptResult, { kind: 'failed' }>).failure;
      const error = `key ${k + 1} of ${keys.keys.length}: ${failure.message}; benched until ${new Date(keys.keys[k]!.benchedUntil).toISOString()}`;
      attempts.push({ provider: cand.provider, status, error, latency_ms: Math.round(latency), ...dropped });
      lastFailure = { ...failure, provider: cand.provider, ...(ra ? { retryAfter: ra } : {}) };
      (keysTried ??= new Set()).add(k);
      result = null;
    }
    if (result === null) {
      // Every key of the pool is benched (or was refused just now): the next candidate.
      const why = `every key is benched (${keys!.keys.map((key, n) => `key ${n + 1}: ${key.benchedWhy || 'quota spent'}`).join('; ')})`;
      if (keysTried === null) {
        attempts.push({
          provider: cand.provider,
          status: null,
          error: `skipped before calling: ${why}`,
          latency_ms: 0,
        });
        spentCount++;
        reopensFirst = Math.min(reopensFirst, keys!.firstBack(Date.now()));
      }
      failedFirst ??= { provider: cand.provider, why };
      continue;
    }
    if (result.kind === 'done') {
      if (result.midStreamError && seam !== null && seam.cut) {
        // Cut after its text started, and held back: continued on the next candidate, else the same provider again.
        provider.recordFailure(
          { retryable: true, status: null, kind: 'other', message: result.midStreamError },
          latency,
        );
        seam.seams++;
        const at = seam.text.length;
        const next = candidates.slice(i + 1).find((c) => c.provider !== cand.provider)?.provider ?? cand.provider;
        seam.log.push({ at, from: cand.provider, to: next });
        attempts.push({
          provider: cand.provider,
          status: 200,
          error: `cut mid-stream: ${result.midStreamError}; continued after ${at} characters of text (seam ${seam.seams}, continue_on_cut)`,
          latency_ms: Math.round(latency),
          ...dropped,
        });
        failedFirst ??= { provider: cand.provider, why: `cut mid-stream: ${result.midStreamError}` };
        // No text yet (only its start, or reasoning): the request as it was, its answer stitched on.
        planner = seam.text === '' ? f.planner : f.continuation!.planner(seam.text);
        if (!candidates.slice(i + 1).some((c) => c.provider === cand.provider)) candidates = [...candidates, cand];
        continue;
      }
      attempts.push({
        provider: cand.provider,
        status: result.status,
        error: result.midStreamError ?? null,
        latency_ms: Math.round(latency),
        ...dropped,
      });
      if (result.midStreamError) {
        outcome.errorCode = 'upstream_error';
        provider.recordFailure(
          { retryable: true, status: null, kind: 'other', message: result.midStreamError },
          latency,
        );
      } else if (result.status === 401 || result.status === 403) {
        provider.recordRefusal(`HTTP ${result.status} (check this provider's api_key)`, latency);
      } else {
        provider.recordSuccess(latency);
        if (provider.latency !== null && result.status < 400)
          recordLatency(provider.latency, f, outcome, t0 - ctx.started, latency);
      }
      if (failedFirst && result.status < 400 && !result.midStreamError)
        pool.watcher?.failover(f.model, failedFirst.provider, cand.provider, failedFirst.why);
      return outcome;
    }
    provider.recordFailure(result.failure, latency);
    attempts.push({
      provider: cand.provider,
      status: result.failure.status,
      error: result.failure.message,
      latency_ms: Math.round(latency),
      ...dropped,
    });
    if (result.failure.kind === 'aborted') {
      outcome.status = 499;
      outcome.errorCode = 'client_closed_request';
      return outcome;
    }
    failedFirst ??= { provider: cand.provider, why: result.failure.message };
    lastFailure = {
      ...result.failure,
      provider: cand.provider,
      ...(result.retryAfter ? { retryAfter: result.retryAfter } : {}),
    };
  }

  const error =
    tried === 0 && spentCount > 0
      ? quotaSpentError(f.model, attempts, reopensFirst)
      : tried === 0 && unsupported && attempts.every((a) => a.error !== 'circuit open: skipped')
        ? unsupported instanceof ApiError
          ? unsupported
          : new ApiError('unsupported_endpoint', `${unsupported}.`)
        : tried === 0 && unreachableCount > 0
          ? new ApiError(
              'upstream_unreachable',
              `No provider for model "${f.model}" can be connected to (${attempts.map((a) => `${a.provider}: ${a.error ?? `HTTP ${a.status}`}`).join('; ')}).`,
            )
          : allFailedError(f.model, attempts, lastFailure, tried);
  if (seam !== null && seam.cut) {
    // A cut answer no candidate could continue: its stream ends with the format's error event (the headers are sent).
    seam.giveUp({
      status: 502,
      code: 'upstream_error',
      type: 'upstream_error',
      message: `The answer was cut mid-stream and could not be continued: ${error.message}`,
    });
    outcome.status = 502;
    outcome.errorCode = 'upstream_error';
    return outcome;
  }
  outcome.status = error.status;
  outcome.errorCode = error.code;
  outcome.error = error;
  return outcome;
}

/** The candidate's plan, a reason it cannot serve the request, or the field its format refuses. */
function planOrRefusal(planner: Planner, target: PlanTarget): AttemptPlan | string | CandidateRefusal {
  try {
    return planner.plan(target);
  } catch (err) {
    if (err instanceof CandidateRefusal) return err;
    throw err;
  }
}

/** A reply that ended well teaches the provider's speed for the model (strategy/latency.ts). */
function recordLatency(
  book: NonNullable<ProviderRuntime['latency']>,
  f: ForwardRequest,
  outcome: ForwardOutcome,
  startedAfter: number,
  durationMs: number,
): void {
  const ttfb = outcome.ttfbMs === null ? durationMs : Math.max(0, outcome.ttfbMs - startedAfter);
  book.record(f.model, ttfb, durationMs, outcome.completionTokens, f.stream === true, Date.now());
}

/** 429 when no candidate was called because every one left had spent its rate-limit window: retry when one opens. */
function quotaSpentError(model: string, attempts: AttemptLog[], reopensAt: number): ApiError {
  const list = attempts.map((a) => `${a.provider}: ${a.error?.replace(/\.$/, '') ?? `HTTP ${a.status}`}`).join('; ');
  const e = new ApiError(
    'upstream_rate_limited',
    `No provider for model "${model}" was called: their rate-limit windows are spent (${list}).`,
    'Wait for the time in Retry-After, or add a provider with quota left to the rule.',
  );
  e.headers['retry-after'] = String(Math.max(1, Math.ceil((reopensAt - Date.now()) / 1000)));
  return e;
}

function allFailedError(model: string, attempts: AttemptLog[], last: LastFailure | null, tried: number): ApiError {
  const list = attempts.map((a) => `${a.provider}: ${a.error?.replace(/\.$/, '') ?? `HTTP ${a.status}`}`).join('; ');
  if (tried === 0) {
    return new ApiError(
      'no_healthy_provider',
      `Every provider for model "${model}" is paused by its circuit breaker after repeated failures (${list}).`,
      "Wait for the cool-down (circuit_breaker.cooldown_ms) or fix the provider; GET /admin/v1/status shows each provider's last error.",
    );
  }
  const n = attempts.length;
  const message = `${n === 1 ? 'The provider' : `All ${n} providers`} for model "${model}" failed: ${list}.`;
  if (last?.status === 429) {
    const e = new ApiError('upstream_rate_limited', message);
    if (last.retryAfter) e.headers['retry-after'] = last.retryAfter;
    return e;
  }
  if (last?.kind === 'timeout') return new ApiError('upstream_timeout', message);
  if (last?.kind === 'connect') return new ApiError('upstream_unreachable', message);
  return new ApiError('upstream_error', message);
}
