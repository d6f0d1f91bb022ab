// Forwarding with failover: try each candidate provider in order until one answers, then stream its reply.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { AttemptLog } from '../../shared/admin.ts';
import { ApiError } from '../server/errors.ts';
import type { ClientContext, ClientFormat, HubRequest, StreamDecoder, StreamEncoder, WireError } from './formats/hub.ts';
import { UpstreamStreamError } from './formats/hub.ts';
import { providerFormat } from './formats/index.ts';
import type { AttemptFailure, ProviderPool, ProviderRuntime } from './provider-pool.ts';
import type { ProviderKind } from './providers/index.ts';
import {
  passthroughSink,
  type ReplySink,
  type SinkContext,
  translatingErrorSink,
  translatingJsonSink,
  translatingStreamSink,
  type Usage,
} from './reply.ts';
import type { ResolvedCandidate } from './routing.ts';

/** Request headers never sent upstream: hop-by-hop ones, the client's own credentials and our control headers. */
const DROP_REQUEST = new Set([
  'host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'content-length', 'authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'accept-encoding', 'cookie',
  'x-switchboard-app', 'x-switchboard-token', 'origin', 'referer',
]);
/** How one candidate is called: its path and body, and how its reply becomes the client's (absent: passthrough). */
export type AttemptPlan = {
  path: string;
  body: Buffer;
  translate?: {
    /** A whole (non-stream) 2xx reply body → the client's body. */
    json(body: unknown): unknown;
    /** A streamed reply: provider decoder + client encoder. */
    stream?: () => { decoder: StreamDecoder; encoder: StreamEncoder };
    /** A provider's own 4xx body → the message for the client's error shape. */
    errorMessage(body: unknown): string | undefined;
  };
};

export type PlanTarget = { kind: ProviderKind; baseUrl: URL; name: string };

export type ForwardRequest = {
  req: IncomingMessage;
  res: ServerResponse;
  /** The client's wire format: its error shape and stream errors. */
  client: ClientFormat;
  ctx: ClientContext;
  stream: boolean;
  candidates: ResolvedCandidate[];
  /** The routed model. */
  model: string;
  /** The call for one candidate, or why this provider cannot serve the request (it is then skipped). */
  plan: (target: PlanTarget) => AttemptPlan | string;
  /** Headers added to the client's reply (the limiter's x-ratelimit-*); set with writeHead, not setHeader. */
  replyHeaders?: Record<string, string>;
};

/** The usual plan for a chat-like endpoint: the client's bytes when the provider speaks its format, else translated. */
export function chatPlan(
  target: PlanTarget,
  native: string | null,
  rawBody: Buffer,
  hub: HubRequest,
  client: ClientFormat,
  ctx: ClientContext & { model: string },
  stream: boolean,
): AttemptPlan {
  if (native !== null) return { path: native, body: rawBody };
  const pf = providerFormat(target.kind.format);
  return {
    path: target.kind.chatPath(hub.model, stream),
    body: Buffer.from(JSON.stringify(pf.fromHubRequest(hub))),
    translate: {
      json: (body) => client.fromHubResponse(pf.toHubResponse(body, hub.model), ctx),
      stream: () => ({ decoder: pf.streamDecoder(hub.model), encoder: client.streamEncoder(ctx) }),
      errorMessage: (body) => pf.errorMessage(body),
    },
  };
}

/** What the request log needs to know about how forwarding went. */
export type ForwardOutcome = {
  provider: string | null;
  route: string | null;
  attempts: AttemptLog[];
  status: number;
  errorCode: string | null;
  ttfbMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Set when every candidate failed before anything reached the client: the caller sends it. */
  error: ApiError | null;
};

/** Headers kept when the request is translated into another provider's format (the rest belong to the client's API). */
const KEEP_TRANSLATED = new Set(['user-agent', 'x-title', 'http-referer', 'x-request-id']);

function upstreamHeaders(incoming: IncomingHttpHeaders, provider: ProviderRuntime, length: number, translated: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in incoming) {
    if (DROP_REQUEST.has(name) || (translated && !KEEP_TRANSLATED.has(name))) continue;
    const v = incoming[name];
    if (typeof v === 'string') out[name] = v;
    else if (Array.isArray(v)) out[name] = v.join(', ');
  }
  out['content-length'] = String(length);
  out['accept-encoding'] = 'identity';
  if (!out['content-type']) out['content-type'] = 'application/json';
  return Object.assign(out, provider.requestHeaders());
}

export function classify(err: unknown, aborted: boolean): AttemptFailure {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code ?? '';
  if (aborted) return { retryable: false, status: null, kind: 'aborted', message: 'client closed the request' };
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { retryable: true, status: null, kind: 'timeout', message: 'no response before the first-byte timeout' };
  if (code === 'UND_ERR_BODY_TIMEOUT') return { retryable: true, status: null, kind: 'timeout', message: 'no data before the idle timeout' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { retryable: true, status: null, kind: 'timeout', message: 'connect timeout' };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return { retryable: true, status: null, kind: 'connect', message: `cannot connect (${code})` };
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED') {
    return { retryable: true, status: null, kind: 'connect', message: `connection lost (${code})` };
  }
  return { retryable: true, status: null, kind: 'other', message: e?.message ?? String(err) };
}

/** 408, 429 and 5xx mean "try the next provider"; other statuses are the provider's answer to this request. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The message inside a failed attempt's body (OpenAI-style JSON, else the text itself). */
export function errorTextOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const m = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (m) return m.slice(0, 300);
  } catch {
    // not JSON: use the text itself
  }
  return text.trim().slice(0, 300);
}

/**
 * Sends the request to each candidate in turn. A candidate fails over (connect error, timeout, 408/429/5xx)
 * only while nothing has reached the client: the reply is committed at its first body byte. After that, an
 * upstream failure ends an SSE stream with an error event and cuts a plain body short: never a hang.
 */
export async function forwardWithFailover(f: ForwardRequest, pool: ProviderPool): Promise<ForwardOutcome> {
  const attempts: AttemptLog[] = [];
  const outcome: ForwardOutcome = {
    provider: null, route: null, attempts, status: 0, errorCode: null, ttfbMs: null, promptTokens: null, completionTokens: null, error: null,
  };
  const started = performance.now();
  let lastFailure: (AttemptFailure & { provider: string; retryAfter?: string }) | null = null;
  let tried = 0;
  let unsupported: string | null = null;

  for (let i = 0; i < f.candidates.length; i++) {
    const cand = f.candidates[i]!;
    const provider = pool.get(cand.provider);
    if (!provider) continue;
    const plan = f.plan({ kind: provider.kind, baseUrl: provider.baseUrl, name: provider.name });
    if (typeof plan === 'string') {
      attempts.push({ provider: cand.provider, status: null, error: plan, latency_ms: 0 });
      unsupported = plan;
      continue;
    }
    if (!provider.breaker.allow()) {
      attempts.push({ provider: cand.provider, status: null, error: 'circuit open: skipped', latency_ms: 0 });
      continue;
    }
    tried++;
    const t0 = performance.now();
    const result = await attempt(f, plan, provider, cand, outcome, started, i + 1);
    const latency = performance.now() - t0;
    if (result.kind === 'done') {
      attempts.push({ provider: cand.provider, status: result.status, error: result.midStreamError ?? null, latency_ms: Math.round(latency) });
      if (result.midStreamError) {
        provider.recordFailure({ retryable: true, status: null, kind: 'other', message: result.midStreamError }, latency);
      } else if (result.status === 401 || result.status === 403) {
        provider.recordRefusal(`HTTP ${result.status} (check this provider's api_key)`, latency);
      } else provider.recordSuccess(latency);
      return outcome;
    }
    provider.recordFailure(result.failure, latency);
    attempts.push({ provider: cand.provider, status: result.failure.status, error: result.failure.message, latency_ms: Math.round(latency) });
    if (result.failure.kind === 'aborted') {
      outcome.status = 499;
      outcome.errorCode = 'client_closed_request';
      return outcome;
    }
    lastFailure = { ...result.failure, provider: cand.provider, ...(result.retryAfter ? { retryAfter: result.retryAfter } : {}) };
  }

  const error =
    tried === 0 && unsupported && attempts.every((a) => a.error !== 'circuit open: skipped')
      ? new ApiError('unsupported_endpoint', `${unsupported}.`, 'Route this model to a provider that offers this endpoint (see the README\'s endpoint table).')
      : allFailedError(f.model, attempts, lastFailure, tried);
  outcome.status = error.status;
  outcome.errorCode = error.code;
  outcome.error = error;
  return outcome;
}

type AttemptResult =
  | { kind: 'done'; status: number; midStreamError?: string }
  | { kind: 'failed'; failure: AttemptFailure; retryAfter?: string };

/**
 * One upstream call on undici's dispatch API: no intermediate stream objects, chunks go straight to a reply sink
 * with backpressure (pause/resume), and the client hanging up aborts the call through its controller.
 */
function attempt(
  f: ForwardRequest,
  plan: AttemptPlan,
  provider: ProviderRuntime,
  cand: ResolvedCandidate,
  outcome: ForwardOutcome,
  started: number,
  attemptNo: number,
): Promise<AttemptResult> {
  const { res } = f;
  const { path, body, translate } = plan;
  const translated = translate !== undefined;

  return new Promise<AttemptResult>((resolve) => {
    let controller: Dispatcher.DispatchController | null = null;
    let clientGone = res.destroyed;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let failing = false;
    let errorText = '';
    let sink: ReplySink | null = null;
    let settled = false;

    const settle = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      res.off('close', onClose);
      res.off('drain', onDrain);
      resolve(r);
    };
    const onClose = () => {
      if (res.writableFinished) return;
      clientGone = true;
      controller?.abort(new Error('client closed the request'));
    };
    const onDrain = () => controller?.resume();
    res.on('close', onClose);
    res.on('drain', onDrain);

    const finishOutcome = (finalStatus: number) => {
      const usage = sink?.usage();
      outcome.provider = cand.provider;
      outcome.route = cand.reason;
      outcome.status = finalStatus;
      outcome.promptTokens = usage?.prompt ?? null;
      outcome.completionTokens = usage?.completion ?? null;
    };
    /** After commit: no failover; the client's reply ends with its format's error. */
    const failCommitted = (message: string) => {
      finishOutcome(502);
      outcome.errorCode = 'upstream_error';
      const e: WireError = { status: 502, code: 'upstream_error', type: 'upstream_error', message: `Provider "${cand.provider}" failed mid-stream: ${message}.` };
      sink!.fail(e);
      settle({ kind: 'done', status: 502, midStreamError: message });
    };
    /** A failure inside the sink (a bad upstream stream): fail over if nothing was sent yet. */
    const sinkFailed = (err: unknown) => {
      const message = err instanceof UpstreamStreamError ? err.message : (err as Error).message;
      controller?.abort(err as Error);
      if (sink?.committed) failCommitted(message);
      else settle({ kind: 'failed', failure: { retryable: true, status: null, kind: 'other', message } });
    };

    if (clientGone) {
      settle({ kind: 'failed', failure: classify(null, true) });
      return;
    }

    provider.agent.dispatch(
      {
        origin: provider.origin,
        path: provider.basePath + path,
        method: 'POST',
        headers: upstreamHeaders(f.req.headers, provider, body.length, translated),
        body,
        headersTimeout: provider.timeouts.first_byte_ms,
        bodyTimeout: provider.timeouts.idle_ms,
      },
      {
        onRequestStart(ctrl) {
          controller = ctrl;
          if (clientGone) ctrl.abort(new Error('client closed the request'));
        },
        onResponseStart(_ctrl, statusCode, responseHeaders) {
          status = statusCode;
          headers = responseHeaders;
          failing = isRetryableStatus(statusCode);
          if (failing) return;
          const s: SinkContext = {
            res,
            status,
            headers,
            extraHeaders: {
              ...f.replyHeaders,
              'x-switchboard-provider': cand.provider,
              'x-switchboard-route': cand.reason,
              'x-switchboard-attempts': String(attemptNo),
            },
            onCommit: () => {
              outcome.ttfbMs = Math.round(performance.now() - started);
            },
          };
          if (!translate) sink = passthroughSink(s, f.client.streamEncoder({ ...f.ctx, model: f.model }));
          else if (statusCode >= 400) sink = translatingErrorSink(s, translate.errorMessage, f.client);
          else if (f.stream && translate.stream) {
            const { decoder, encoder } = translate.stream();
            sink = translatingStreamSink(s, decoder, encoder);
          } else sink = translatingJsonSink(s, translate.json);
        },
        onResponseData(ctrl, chunk) {
          if (failing) {
            if (errorText.length < 4096) errorText += chunk.toString('utf8');
            return;
          }
          if (settled) return;
          try {
            if (!sink!.data(chunk)) ctrl.pause();
          } catch (err) {
            sinkFailed(err);
          }
        },
        onResponseEnd() {
          if (failing) {
            const text = errorTextOf(errorText);
            const ra = headers['retry-after'];
            settle({
              kind: 'failed',
              failure: { retryable: true, status, kind: 'http', message: `HTTP ${status}${text ? `: ${text}` : ''}` },
              ...(typeof ra === 'string' ? { retryAfter: ra } : {}),
            });
            return;
          }
          if (settled) return;
          try {
            sink!.end();
          } catch (err) {
            sinkFailed(err);
            return;
          }
          finishOutcome(status);
          settle({ kind: 'done', status });
        },
        onResponseError(_ctrl, err) {
          if (settled) return;
          const failure = classify(err, clientGone);
          if (!sink?.committed || failure.kind === 'aborted') {
            settle({ kind: 'failed', failure });
            return;
          }
          failCommitted(failure.message);
        },
      },
    );
  });
}

function allFailedError(
  model: string,
  attempts: AttemptLog[],
  last: (AttemptFailure & { provider: string; retryAfter?: string }) | null,
  tried: number,
): ApiError {
  const list = attempts.map((a) => `${a.provider}: ${a.error ?? `HTTP ${a.status}`}`).join('; ');
  if (tried === 0) {
    return new ApiError(
      'no_healthy_provider',
      `Every provider for model "${model}" is paused by its circuit breaker after repeated failures (${list}).`,
      'Wait for the cool-down (circuit_breaker.cooldown_ms) or fix the provider; GET /admin/v1/status shows each provider\'s last error.',
    );
  }
  const n = attempts.length;
  const message = `${n === 1 ? 'The provider' : `All ${n} providers`} for model "${model}" failed: ${list}.`;
  if (last?.status === 429) {
    const e = new ApiError('upstream_rate_limited', message, 'Wait and retry, or add a backup provider with a routing rule for this model.');
    if (last.retryAfter) e.headers['retry-after'] = last.retryAfter;
    return e;
  }
  if (last?.kind === 'timeout') {
    return new ApiError('upstream_timeout', message, 'Retry, raise timeouts in config.json, or add a backup provider for this model.');
  }
  if (last?.kind === 'connect') {
    return new ApiError('upstream_unreachable', message, 'Check that the provider is running and its base_url is right, or add a backup provider.');
  }
  return new ApiError('upstream_error', message, 'Retry, or add a backup provider with a routing rule for this model.');
}
