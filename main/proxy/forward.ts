// Forwarding with failover: try each candidate provider in order until one answers, then stream its reply.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { AttemptLog } from '../../shared/admin.ts';
import { ApiError } from '../errors.ts';
import type { ClientContext, ClientFormat, HubRequest, StreamDecoder, StreamEncoder, WireError } from './formats/hub/index.ts';
import { UpstreamStreamError } from './formats/hub/index.ts';
import { providerFormat } from './formats/index.ts';
import type { AttemptFailure, ProviderPool, ProviderRuntime } from './provider-pool.ts';
import type { ProviderKind } from './providers/index.ts';
import {
  PassthroughSink,
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
  /** A streamed body (a spooled multipart upload) sent instead of `body`: re-opened for each attempt. */
  upload?: UploadBody;
  translate?: {
    /** A whole (non-stream) 2xx reply body → the client's body. */
    json(body: unknown): unknown;
    /** A streamed reply: provider decoder + client encoder. */
    stream?: () => { decoder: StreamDecoder; encoder: StreamEncoder };
    /** A provider's own 4xx body → the message for the client's error shape. */
    errorMessage(body: unknown): string | undefined;
  };
};

/** A body streamed from disk: its exact length, and a fresh stream of it per attempt (so failover can resend it). */
export type UploadBody = { length: number; open(): Readable };

export type PlanTarget = { kind: ProviderKind; baseUrl: URL; name: string };

export interface Planner {
  plan(target: PlanTarget): AttemptPlan | string;
}

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
  /** The call for each candidate, or why a provider cannot serve the request (it is then skipped). */
  planner: Planner;
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
    body: Buffer.from(JSON.stringify(pf.requestFromHub(hub))),
    translate: {
      json: (body) => client.responseFromHub(pf.responseToHub(body, hub.model), ctx),
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
    const plan = f.planner.plan({ kind: provider.kind, baseUrl: provider.baseUrl, name: provider.name });
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
    const result = await new UpstreamAttempt(f, plan, provider, cand, outcome, started, i + 1).run();
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
 * A class rather than closures: the hot path allocates one object per attempt (and no per-request functions,
 * which tsx's keepNames would also rename one by one).
 */
class UpstreamAttempt implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private clientGone: boolean;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private failing = false;
  private errorText = '';
  private sink: ReplySink | null = null;
  private settled = false;
  private bodyStream: Readable | null = null;
  private resolve!: (r: AttemptResult) => void;
  private readonly onClose: () => void;
  private readonly onDrain: () => void;

  constructor(
    private readonly f: ForwardRequest,
    private readonly plan: AttemptPlan,
    private readonly provider: ProviderRuntime,
    private readonly cand: ResolvedCandidate,
    private readonly outcome: ForwardOutcome,
    private readonly started: number,
    private readonly attemptNo: number,
  ) {
    this.clientGone = f.res.destroyed;
    this.onClose = this.clientClosed.bind(this);
    this.onDrain = this.clientDrained.bind(this);
  }

  run(): Promise<AttemptResult> {
    return new Promise<AttemptResult>((resolve) => {
      this.resolve = resolve;
      if (this.clientGone) {
        this.settle({ kind: 'failed', failure: classify(null, true) });
        return;
      }
      const { res } = this.f;
      res.on('close', this.onClose);
      res.on('drain', this.onDrain);
      const { provider, plan } = this;
      const upload = plan.upload;
      // An upload keeps the client's headers (its multipart content type) even when the reply is translated.
      if (upload) this.bodyStream = upload.open();
      provider.agent.dispatch(
        {
          origin: provider.origin,
          path: provider.basePath + plan.path,
          method: 'POST',
          headers: upstreamHeaders(this.f.req.headers, provider, upload ? upload.length : plan.body.length, !upload && plan.translate !== undefined),
          body: this.bodyStream ?? plan.body,
          headersTimeout: provider.timeouts.first_byte_ms,
          bodyTimeout: provider.timeouts.idle_ms,
        },
        this,
      );
    });
  }

  private settle(r: AttemptResult): void {
    if (this.settled) return;
    this.settled = true;
    if (this.bodyStream) this.bodyStream.destroy();
    this.f.res.off('close', this.onClose);
    this.f.res.off('drain', this.onDrain);
    this.resolve(r);
  }

  private clientClosed(): void {
    if (this.f.res.writableFinished) return;
    this.clientGone = true;
    this.controller?.abort(new Error('client closed the request'));
  }

  private clientDrained(): void {
    this.controller?.resume();
  }

  /** Called by the sink when the first byte is about to reach the client. */
  commit(): void {
    this.outcome.ttfbMs = Math.round(performance.now() - this.started);
  }

  private finishOutcome(finalStatus: number): void {
    const usage = this.sink?.usage();
    const o = this.outcome;
    o.provider = this.cand.provider;
    o.route = this.cand.reason;
    o.status = finalStatus;
    o.promptTokens = usage?.prompt ?? null;
    o.completionTokens = usage?.completion ?? null;
  }

  /** After commit: no failover; the client's reply ends with its format's error. */
  private failCommitted(message: string): void {
    this.finishOutcome(502);
    this.outcome.errorCode = 'upstream_error';
    const e: WireError = { status: 502, code: 'upstream_error', type: 'upstream_error', message: `Provider "${this.cand.provider}" failed mid-stream: ${message}.` };
    this.sink!.fail(e);
    this.settle({ kind: 'done', status: 502, midStreamError: message });
  }

  /** A failure inside the sink (a bad upstream stream): fail over if nothing was sent yet. */
  private sinkFailed(err: unknown): void {
    const message = err instanceof UpstreamStreamError ? err.message : (err as Error).message;
    this.controller?.abort(err as Error);
    if (this.sink?.committed) this.failCommitted(message);
    else this.settle({ kind: 'failed', failure: { retryable: true, status: null, kind: 'other', message } });
  }

  onRequestStart(ctrl: Dispatcher.DispatchController): void {
    this.controller = ctrl;
    if (this.clientGone) ctrl.abort(new Error('client closed the request'));
  }

  onResponseStart(_ctrl: Dispatcher.DispatchController, statusCode: number, responseHeaders: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = responseHeaders;
    this.failing = isRetryableStatus(statusCode);
    if (this.failing) return;
    const { f, cand } = this;
    const s: SinkContext = {
      res: f.res,
      status: statusCode,
      headers: responseHeaders,
      extraHeaders: {
        ...f.replyHeaders,
        'x-switchboard-provider': cand.provider,
        'x-switchboard-route': cand.reason,
        'x-switchboard-attempts': String(this.attemptNo),
      },
      committer: this,
    };
    const translate = this.plan.translate;
    if (!translate) this.sink = new PassthroughSink(s, f.client, f.ctx, f.model);
    else if (statusCode >= 400) this.sink = translatingErrorSink(s, translate.errorMessage, f.client);
    else if (f.stream && translate.stream) {
      const { decoder, encoder } = translate.stream();
      this.sink = translatingStreamSink(s, decoder, encoder);
    } else this.sink = translatingJsonSink(s, translate.json);
  }

  onResponseData(ctrl: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.failing) {
      if (this.errorText.length < 4096) this.errorText += chunk.toString('utf8');
      return;
    }
    if (this.settled) return;
    try {
      if (!this.sink!.data(chunk)) ctrl.pause();
    } catch (err) {
      this.sinkFailed(err);
    }
  }

  onResponseEnd(): void {
    if (this.failing) {
      const text = errorTextOf(this.errorText);
      const ra = this.headers['retry-after'];
      const status = this.status;
      this.settle({
        kind: 'failed',
        failure: { retryable: true, status, kind: 'http', message: `HTTP ${status}${text ? `: ${text}` : ''}` },
        ...(typeof ra === 'string' ? { retryAfter: ra } : {}),
      });
      return;
    }
    if (this.settled) return;
    try {
      this.sink!.end();
    } catch (err) {
      this.sinkFailed(err);
      return;
    }
    this.finishOutcome(this.status);
    this.settle({ kind: 'done', status: this.status });
  }

  onResponseError(_ctrl: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    const failure = classify(err, this.clientGone);
    if (!this.sink?.committed || failure.kind === 'aborted') {
      this.settle({ kind: 'failed', failure });
      return;
    }
    this.failCommitted(failure.message);
  }
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
