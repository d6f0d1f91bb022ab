// Forwarding with failover: try each candidate provider in order until one answers, then stream its reply.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { AttemptLog } from '../../shared/admin.ts';
import { ApiError } from '../server/errors.ts';
import type { AttemptFailure, ProviderPool, ProviderRuntime } from './provider-pool.ts';
import type { ResolvedCandidate } from './routing.ts';

/** Request headers never sent upstream: hop-by-hop ones, the client's own credentials and our control headers. */
const DROP_REQUEST = new Set([
  'host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'content-length', 'authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'accept-encoding', 'cookie',
  'x-switchboard-app', 'x-switchboard-token', 'origin', 'referer',
]);
/** Response headers not copied back to the client. */
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'set-cookie', 'proxy-authenticate']);

export type ForwardRequest = {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path below the provider's base URL, e.g. "/chat/completions". */
  path: string;
  body: Buffer;
  stream: boolean;
  candidates: ResolvedCandidate[];
  model: string;
};

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

function upstreamHeaders(incoming: IncomingHttpHeaders, provider: ProviderRuntime, length: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in incoming) {
    if (DROP_REQUEST.has(name)) continue;
    const v = incoming[name];
    if (typeof v === 'string') out[name] = v;
    else if (Array.isArray(v)) out[name] = v.join(', ');
  }
  out['content-length'] = String(length);
  out['accept-encoding'] = 'identity';
  if (!out['content-type']) out['content-type'] = 'application/json';
  return Object.assign(out, provider.requestHeaders());
}

function clientHeaders(upstream: IncomingHttpHeaders, extra: Record<string, string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in upstream) {
    if (DROP_RESPONSE.has(name)) continue;
    const v = upstream[name];
    if (v !== undefined) out[name] = v;
  }
  return Object.assign(out, extra);
}

function classify(err: unknown, aborted: boolean): AttemptFailure {
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

async function readErrorText(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = '';
  try {
    for await (const chunk of body) {
      if (text.length < 2048) text += (chunk as Buffer).toString('utf8');
    }
  } catch {
    // the body of a failed attempt is only used for the message
  }
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const m = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (m) return m.slice(0, 300);
  } catch {
    // not JSON: use the text itself
  }
  return text.trim().slice(0, 300);
}

const TAIL_BYTES = 4096;
function readUsage(tail: Buffer[]): { prompt: number | null; completion: number | null } {
  const text = Buffer.concat(tail).toString('utf8');
  const last = (re: RegExp): number | null => {
    let m: RegExpExecArray | null;
    let v: number | null = null;
    while ((m = re.exec(text))) v = Number(m[1]);
    return v;
  };
  return { prompt: last(/"prompt_tokens"\s*:\s*(\d+)/g), completion: last(/"completion_tokens"\s*:\s*(\d+)/g) };
}

/** The error event a streaming OpenAI client understands (the openai SDKs raise it as an APIError). */
export function sseErrorEvent(code: string, message: string): string {
  return `data: ${JSON.stringify({ error: { code, message, type: 'upstream_error' } })}\n\n`;
}

/**
 * Sends the request to each candidate in turn. A candidate fails over (connect error, timeout, 408/429/5xx)
 * only while nothing has reached the client: the reply is committed at its first body byte. After that, an
 * upstream failure ends an SSE stream with an error event and cuts a plain body short: never a hang.
 */
export async function forwardWithFailover(f: ForwardRequest, pool: ProviderPool): Promise<ForwardOutcome> {
  const { res } = f;
  const attempts: AttemptLog[] = [];
  const controller = new AbortController();
  let clientGone = false;
  const onClose = () => {
    if (!res.writableFinished) {
      clientGone = true;
      controller.abort();
    }
  };
  res.once('close', onClose);
  const outcome: ForwardOutcome = {
    provider: null, route: null, attempts, status: 0, errorCode: null, ttfbMs: null, promptTokens: null, completionTokens: null, error: null,
  };
  const started = performance.now();
  let lastFailure: (AttemptFailure & { provider: string; retryAfter?: string }) | null = null;
  let tried = 0;

  for (let i = 0; i < f.candidates.length; i++) {
    const cand = f.candidates[i]!;
    const provider = pool.get(cand.provider);
    if (!provider) continue;
    if (!provider.breaker.allow()) {
      attempts.push({ provider: cand.provider, status: null, error: 'circuit open: skipped', latency_ms: 0 });
      continue;
    }
    tried++;
    const t0 = performance.now();
    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await provider.agent.request({
        origin: provider.origin,
        path: provider.basePath + f.path,
        method: 'POST',
        headers: upstreamHeaders(f.req.headers, provider, f.body.length),
        body: f.body,
        signal: controller.signal,
        headersTimeout: provider.timeouts.first_byte_ms,
        bodyTimeout: provider.timeouts.idle_ms,
      });
    } catch (err) {
      const failure = classify(err, clientGone);
      const latency = performance.now() - t0;
      provider.recordFailure(failure, latency);
      attempts.push({ provider: cand.provider, status: null, error: failure.message, latency_ms: Math.round(latency) });
      if (failure.kind === 'aborted') return finishAborted(outcome, res, onClose);
      lastFailure = { ...failure, provider: cand.provider };
      continue;
    }

    const status = upstream.statusCode;
    if (isRetryableStatus(status)) {
      const text = await readErrorText(upstream.body);
      const latency = performance.now() - t0;
      const failure: AttemptFailure = { retryable: true, status, kind: 'http', message: `HTTP ${status}${text ? `: ${text}` : ''}` };
      provider.recordFailure(failure, latency);
      attempts.push({ provider: cand.provider, status, error: failure.message, latency_ms: Math.round(latency) });
      const ra = upstream.headers['retry-after'];
      lastFailure = { ...failure, provider: cand.provider, ...(typeof ra === 'string' ? { retryAfter: ra } : {}) };
      if (clientGone) return finishAborted(outcome, res, onClose);
      continue;
    }

    // A reply the client should see (2xx, or the provider's own 4xx answer). Commit at its first body byte.
    const committed = await streamReply(f, upstream, provider, cand, attempts, outcome, t0, started, i + 1);
    if (committed === 'retry') {
      lastFailure = { ...lastAttemptFailure(attempts), provider: cand.provider };
      continue;
    }
    if (committed === 'aborted') return finishAborted(outcome, res, onClose);
    res.off('close', onClose);
    return outcome;
  }

  res.off('close', onClose);
  const error = allFailedError(f.model, attempts, lastFailure, tried);
  outcome.status = error.status;
  outcome.errorCode = error.code;
  outcome.error = error;
  return outcome;
}

function lastAttemptFailure(attempts: AttemptLog[]): AttemptFailure {
  const a = attempts[attempts.length - 1]!;
  return { retryable: true, status: a.status, kind: a.error?.includes('timeout') ? 'timeout' : 'connect', message: a.error ?? 'failed' };
}

function finishAborted(outcome: ForwardOutcome, res: ServerResponse, onClose: () => void): ForwardOutcome {
  res.off('close', onClose);
  outcome.status = 499;
  outcome.errorCode = 'client_closed_request';
  return outcome;
}

type StreamResult = 'done' | 'retry' | 'aborted';

function streamReply(
  f: ForwardRequest,
  upstream: Dispatcher.ResponseData,
  provider: ProviderRuntime,
  cand: ResolvedCandidate,
  attempts: AttemptLog[],
  outcome: ForwardOutcome,
  t0: number,
  started: number,
  attemptNo: number,
): Promise<StreamResult> {
  const { res } = f;
  const body = upstream.body;
  const status = upstream.statusCode;
  const contentType = String(upstream.headers['content-type'] ?? '');
  const isSse = contentType.includes('text/event-stream');
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let committed = false;
  /** Bytes of an SSE event not yet complete: held back so an error event never lands inside a half event. */
  let pending: Buffer | null = null;

  const commit = () => {
    committed = true;
    outcome.ttfbMs = Math.round(performance.now() - started);
    res.writeHead(
      status,
      clientHeaders(upstream.headers, {
        'x-switchboard-provider': cand.provider,
        'x-switchboard-route': cand.reason,
        'x-switchboard-attempts': String(attemptNo),
      }),
    );
    if (isSse) res.flushHeaders();
  };

  return new Promise<StreamResult>((resolve) => {
    const onDrain = () => body.resume();
    const cleanup = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      res.off('drain', onDrain);
    };
    const onData = (chunk: Buffer) => {
      if (!committed) commit();
      tail.push(chunk);
      tailBytes += chunk.length;
      while (tailBytes - tail[0]!.length >= TAIL_BYTES) tailBytes -= tail.shift()!.length;
      let out = chunk;
      if (isSse) {
        if (pending) out = Buffer.concat([pending, chunk]);
        const cut = out.lastIndexOf('\n\n');
        if (cut === -1) {
          pending = out;
          return;
        }
        if (cut + 2 < out.length) {
          pending = out.subarray(cut + 2);
          out = out.subarray(0, cut + 2);
        } else pending = null;
      }
      if (!res.write(out)) body.pause();
    };
    const onEnd = () => {
      cleanup();
      if (!committed) commit();
      if (pending) res.write(pending);
      res.end();
      const latency = performance.now() - t0;
      if (status < 400) provider.recordSuccess(latency);
      else if (status === 401 || status === 403) provider.recordRefusal(`HTTP ${status} (check this provider's api_key)`, latency);
      else provider.recordSuccess(latency);
      attempts.push({ provider: cand.provider, status, error: null, latency_ms: Math.round(latency) });
      const usage = readUsage(tail);
      Object.assign(outcome, {
        provider: cand.provider, route: cand.reason, status, promptTokens: usage.prompt, completionTokens: usage.completion,
      });
      resolve('done');
    };
    const onError = (err: unknown) => {
      cleanup();
      const latency = performance.now() - t0;
      if (res.destroyed && !res.writableFinished) {
        provider.breaker.release();
        attempts.push({ provider: cand.provider, status, error: 'client closed the request', latency_ms: Math.round(latency) });
        resolve('aborted');
        return;
      }
      const failure = classify(err, false);
      provider.recordFailure(failure, latency);
      attempts.push({ provider: cand.provider, status: null, error: failure.message, latency_ms: Math.round(latency) });
      if (!committed) {
        resolve('retry');
        return;
      }
      Object.assign(outcome, { provider: cand.provider, route: cand.reason, status: 502, errorCode: 'upstream_error' });
      if (isSse) {
        res.end(sseErrorEvent('upstream_error', `Provider "${cand.provider}" failed mid-stream: ${failure.message}.`));
      } else {
        res.destroy();
      }
      resolve('done');
    };
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
    res.on('drain', onDrain);
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
