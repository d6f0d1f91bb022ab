// Offline and outage fallback (routing.offline, docs/routing.md "Offline fallback"): when every provider of a route failed as
// unreachable (no network, DNS, connect refused or timed out, circuit open, 5xx or 529) and nothing reached the client,
// the request goes to the local providers of routing.offline, its model renamed by the first glob of model_map that
// matches it, in the client's own format. The reply says so (x-switchboard-route: offline, x-switchboard-offline).
// Recovery needs nothing: every request tries the route's providers first (a refused connection fails in
// milliseconds), and a provider whose circuit opened is probed again by its breaker's half-open call and the health
// checks; the first request a cloud provider answers is served by it again.
import net from 'node:net';
import micromatch from 'micromatch';
import { ApiError, type ErrorCode } from '../errors.ts';
import type { AttemptPlan, Planner, PlanTarget } from './forward/index.ts';
import { logger } from '../observability/logger.ts';
import type { Engine } from './engine.ts';
import type { ForwardOutcome } from './forward/index.ts';
import type { ResolvedCandidate, ResolvedRoute } from './routing.ts';

/** The errors that mean "the cloud is out of reach", after which the local providers serve. */
const OUTAGE: ReadonlySet<string> = new Set<ErrorCode>([
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_error',
  'no_healthy_provider',
]);

export type OfflinePlan = {
  candidates: ResolvedCandidate[];
  model: string;
  header: string;
  /** The context an Ollama provider is told to use (options.num_ctx) for this request. */
  numCtx: number;
  /** The request does not fit the local model's context window: this error is answered instead (nothing is sent). */
  refusal: ApiError | null;
};

/** The least num_ctx sent (Ollama's default, 4,096 in most builds, is what truncates agents' prompts silently). */
export const MIN_NUM_CTX = 8192;

/** The local model for `model` (null: no glob of the map matches it). */
export function mapModel(map: Record<string, string>, model: string): string | null {
  for (const [glob, local] of Object.entries(map))
    if (micromatch.isMatch(model, glob, { bash: true, nocase: true })) return local;
  return null;
}

/**
 * Where a failed request goes offline (null: not enabled, not an outage, the route already was the local providers,
 * or no glob maps its model).
 */
export function offlinePlan(
  engine: Engine,
  route: ResolvedRoute,
  outcome: ForwardOutcome,
  size: { promptTokens: number; outputTokens: number },
): OfflinePlan | null {
  const off = engine.config.routing.offline;
  if (!off?.enabled || off.providers.length === 0) return null;
  if (outcome.error === null || !OUTAGE.has(outcome.error.code)) return null;
  const model = mapModel(off.model_map, route.model);
  if (model === null) return null;
  const tried = new Set(outcome.attempts.map((a) => a.provider));
  const candidates: ResolvedCandidate[] = [];
  for (const name of off.providers) {
    const config = engine.config.providers.find((p) => p.name === name);
    if (!config?.enabled) continue;
    // A local provider the route already tried with this very model failed like the others.
    if (tried.has(name) && model === route.model) continue;
    candidates.push({ provider: name, reason: 'offline', config, label: 'offline' });
  }
  if (candidates.length === 0) return null;
  const needed = size.promptTokens + size.outputTokens;
  const window = off.context_windows?.[model];
  const refusal =
    window !== undefined && needed > window
      ? new ApiError(
          'invalid_request',
          `Every provider for model "${route.model}" is out of reach, and the request does not fit the local model "${model}" (routing.offline): about ${size.promptTokens.toLocaleString('en-US')} tokens of prompt and ${size.outputTokens.toLocaleString('en-US')} of expected output make ${needed.toLocaleString('en-US')}, over its context window of ${window.toLocaleString('en-US')} tokens (routing.offline.context_windows). Nothing was truncated or sent.`,
          'Shorten the conversation (or lower max_tokens), map this model to a local model with a larger context window, or retry when the cloud is back.',
        )
      : null;
  const wanted = Math.max(MIN_NUM_CTX, Math.ceil(needed / 1024) * 1024);
  return {
    candidates,
    model,
    header: `serving locally: ${ascii(route.model)} -> ${ascii(model)}`,
    numCtx: window !== undefined ? Math.min(window, wanted) : wanted,
    refusal,
  };
}

/**
 * The outcome of a request served offline: the cloud's attempts first, then the local providers'; when the local
 * providers failed too, the cloud's error, saying so. Notes the switch to serving locally when they answered.
 */
export function offlineOutcome(
  engine: Engine,
  plan: OfflinePlan,
  cloud: ForwardOutcome,
  local: ForwardOutcome,
): ForwardOutcome {
  local.attempts = [...cloud.attempts, ...local.attempts];
  if (local.error === null) {
    noteOffline(engine, true, plan.header, cloud.attempts);
    return local;
  }
  const first = cloud.error!;
  const e = new ApiError(
    first.code,
    `${first.message} Offline fallback (routing.offline, model "${plan.model}") failed too: ${local.error.message}`,
    first.action,
  );
  Object.assign(e.headers, first.headers);
  local.error = e;
  local.status = e.status;
  local.errorCode = e.code;
  return local;
}

/** A header value keeps printable ASCII only. */
function ascii(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}

/** The reply's extra headers for an offline attempt: the limiter's (read when the reply goes) and x-switchboard-offline. */
export function offlineAdmission(
  admission: { readonly headers: Record<string, string> } | null,
  header: string,
): { readonly headers: Record<string, string> } {
  return {
    get headers() {
      return { ...admission?.headers, 'x-switchboard-offline': header };
    },
  };
}

/** How often a provider that could not be connected to is probed while serving offline (a TCP connect). */
export const PROBE_INTERVAL_MS = 2000;
/** A probe's connect gives up after this long. */
export const PROBE_TIMEOUT_MS = 1500;
/** The attempt errors that say a provider cannot be connected to (forward/classify.ts). */
const UNREACHABLE = /^(cannot connect|connect timeout)/;

type OfflineState = {
  since: number;
  detail: string;
  /** Providers that could not be connected to, by name, with their address: skipped until a probe connects. */
  unreachable: Map<string, URL>;
  timer: NodeJS.Timeout | null;
};

/** Each engine's offline state (absent: it is not serving offline). */
const servingOffline = new WeakMap<Engine, OfflineState>();

/**
 * A request was served offline (true, with the route's failed attempts) or by its route (false): the log says when
 * that changes. While offline, the route providers that could not be connected to (no network, DNS, refused, connect
 * timeout) are skipped without waiting on them, and probed in the background every PROBE_INTERVAL_MS; each that
 * accepts a connection is tried again by the next request.
 */
export function noteOffline(
  engine: Engine,
  offline: boolean,
  header: string,
  attempts: readonly { provider: string; error: string | null }[] = [],
): void {
  let state = servingOffline.get(engine);
  if (offline) {
    if (state === undefined) {
      state = { since: Date.now(), detail: header, unreachable: new Map(), timer: null };
      servingOffline.set(engine, state);
      logger.warn(`offline: every provider of a route is out of reach, ${header} (routing.offline)`);
    }
    state.detail = header;
    for (const a of attempts) {
      const url = engine.pool.get(a.provider)?.baseUrl;
      if (url && a.error !== null && UNREACHABLE.test(a.error)) state.unreachable.set(a.provider, url);
    }
    if (state.unreachable.size > 0 && state.timer === null) {
      const s = state;
      s.timer = setInterval(() => probe(s), PROBE_INTERVAL_MS);
      s.timer.unref();
    }
  } else if (state !== undefined) {
    if (state.timer !== null) clearInterval(state.timer);
    servingOffline.delete(engine);
    logger.info(
      `back online: a route's provider answered again after ${Math.round((Date.now() - state.since) / 1000)} s offline`,
    );
  }
}

/** One round of probes: each unreachable provider that accepts a TCP connection is no longer skipped. */
function probe(state: OfflineState): void {
  for (const [name, url] of state.unreachable) {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port, timeout: PROBE_TIMEOUT_MS });
    socket.once('connect', () => {
      state.unreachable.delete(name);
      logger.info(`offline: provider "${name}" accepts connections again; the next request tries it`);
      socket.destroy();
      if (state.unreachable.size === 0 && state.timer !== null) {
        clearInterval(state.timer);
        state.timer = null;
      }
    });
    socket.once('timeout', () => socket.destroy());
    socket.once('error', () => socket.destroy());
  }
}

/** The providers skipped while offline (null: none): they could not be connected to, and no probe has connected since. */
export function unreachableNow(engine: Engine): ReadonlyMap<string, URL> | null {
  const state = servingOffline.get(engine);
  return state && state.unreachable.size > 0 ? state.unreachable : null;
}

/** Whether requests are being served locally now, since when and the last one's mapping (GET /admin/v1/status). */
export function offlineStatus(engine: Engine): { since: string; detail: string } | null {
  const state = servingOffline.get(engine);
  return state ? { since: new Date(state.since).toISOString(), detail: state.detail } : null;
}

/**
 * The local providers' plans: an Ollama provider's /api/chat body gets `options.num_ctx` for the request's size (unless
 * the client set one), so Ollama's small default context does not truncate the conversation silently.
 */
export class OfflinePlanner implements Planner {
  constructor(
    private readonly inner: Planner,
    private readonly numCtx: number,
  ) {}

  plan(t: PlanTarget): AttemptPlan | string {
    const p = this.inner.plan(t);
    if (typeof p === 'string' || t.kind.format !== 'ollama' || p.upload !== undefined) return p;
    try {
      const body = JSON.parse(p.body.toString('utf8')) as { options?: Record<string, unknown> };
      if (body.options?.num_ctx !== undefined) return p;
      body.options = { ...body.options, num_ctx: this.numCtx };
      return { ...p, body: Buffer.from(JSON.stringify(body)) };
    } catch {
      return p;
    }
  }
}
