// One upstream call on undici's dispatch API: no intermediate stream objects, chunks go straight to a reply sink with
// backpressure (pause/resume), and the client going away aborts the call through its controller. A class rather
// than closures: the hot path allocates one object per attempt (and no per-request functions, which tsx's keepNames
// would also rename one by one).
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { redact } from '../../observability/redact.ts';
import { UpstreamStreamError, type WireError } from '../formats/hub/index.ts';
import type { AttemptFailure, ProviderRuntime } from '../provider-pool.ts';
import type { ResolvedCandidate } from '../routing.ts';
import type { QuotaState } from '../strategy/quota.ts';
import { classify, errorTextOf, isRetryableStatus } from './classify.ts';
import { upstreamHeaders } from './headers.ts';
import { type AttemptPlan, droppedHeader } from './plan.ts';
import { judgeReply, quoteStart, type ReplyTypes, sniffReply } from './reply-type.ts';
import type { ClientListener, ReplySink, ReplyTarget } from './target.ts';

/** What the request log needs to know about how forwarding went (filled in by the attempt that answered). */
export type ForwardProgress = {
  provider: string | null;
  route: string | null;
  status: number;
  ttfbMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** Within cacheWriteTokens: the 5-minute and 1-hour cache writes, when the provider says (Anthropic). */
  cacheWrite5mTokens: number | null;
  cacheWrite1hTokens: number | null;
  reasoningTokens: number | null;
};

export type AttemptResult =
  | { kind: 'done'; status: number; midStreamError?: string }
  | { kind: 'failed'; failure: AttemptFailure; retryAfter?: string };

/** What every attempt of one request shares: the client's headers and reply target, and our reply headers. */
export type AttemptContext = {
  headers: IncomingHttpHeaders;
  target: ReplyTarget;
  /** The limiter's admission: its headers go on the reply, read once the request has gone upstream (formatted then). */
  admission: { readonly headers: Record<string, string> } | undefined;
  progress: ForwardProgress;
  started: number;
  /** What the route's replies may be (reply-type.ts): a reply of another kind is a failure of its provider. */
  replies: ReplyTypes;
};

/** setImmediate's callback (a module function with the attempt as its argument: no closure per request). */
function prepareReply(attempt: UpstreamAttempt): void {
  attempt.prepareReply();
}

/** The first-byte or idle timeout of an attempt, with the code undici gives its own (classify.ts reads it). */
class AttemptTimeout extends Error {
  constructor(readonly code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT') {
    super(code === 'UND_ERR_HEADERS_TIMEOUT' ? 'first-byte timeout' : 'idle timeout');
  }
}

/** The timers' callbacks (module functions with the attempt as their argument: no closure per request). */
function firstByteTimedOut(attempt: UpstreamAttempt): void {
  attempt.timedOut('UND_ERR_HEADERS_TIMEOUT');
}
function idleTimedOut(attempt: UpstreamAttempt): void {
  attempt.idleTimedOut();
}

export class UpstreamAttempt implements Dispatcher.DispatchHandler, ClientListener {
  private controller: Dispatcher.DispatchController | null = null;
  private clientLeft: boolean;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private failing = false;
  private errorText = '';
  /** Why a 2xx or 3xx is not an answer of the provider's API (an HTML page, a redirect): it then fails like a 5xx. */
  private notAnswer: string | null = null;
  /** The reply's type is unusual: its first bytes are looked at before they go on (reply-type.ts). */
  private sniffing = false;
  private sink: ReplySink | null = null;
  /** Our headers on the reply, made while the provider works on the request (not after it answers). */
  private replyExtra: Record<string, string> | null = null;
  private settled = false;
  private bodyStream: Readable | null = null;
  private resolve!: (r: AttemptResult) => void;
  /**
   * The first-byte, then the idle timer, when the attempt keeps its own (a request body written at once): undici's
   * timers are then off. Node's timers, not undici's: undici 7 keeps a request's timer (for timeouts over a second) in
   * its list until a sweep every ~500 ms even once cleared, so every request's timer outlived two scavenges and was
   * promoted (about half of what a proxied request promoted; docs/PERFORMANCE.md). A cleared Node timer dies young.
   */
  private timer: NodeJS.Timeout | null = null;
  private readonly ownTimers: boolean;
  /** The upstream read is paused for the client (backpressure): the idle timeout waits, as undici's does. */
  private paused = false;

  constructor(
    private readonly a: AttemptContext,
    private readonly plan: AttemptPlan,
    private readonly provider: ProviderRuntime,
    private readonly cand: ResolvedCandidate,
    private readonly attemptNo: number,
    /** The rate-limit state its reply's headers update (a tracked provider's: strategy/quota.ts), or null. */
    private readonly quota: QuotaState | null = null,
    /** A key of the provider's pool for this attempt: a 401 or 403 then fails over to the next key instead of answering. */
    private readonly key: string | null = null,
  ) {
    this.clientLeft = a.target.gone;
    // An upload's body is streamed: undici's first-byte timer, which does not run out while the body is still being
    // written, is kept for it.
    this.ownTimers = plan.upload === undefined;
  }

  run(): Promise<AttemptResult> {
    return new Promise<AttemptResult>((resolve) => {
      this.resolve = resolve;
      if (this.clientLeft) {
        this.settle({ kind: 'failed', failure: classify(null, true) });
        return;
      }
      this.a.target.listen(this);
      const { provider, plan } = this;
      const upload = plan.upload;
      // An upload keeps the client's headers (its multipart content type) even when the reply is translated.
      if (upload) this.bodyStream = upload.open();
      const length = upload ? upload.length : plan.body.length;
      provider.agent.dispatch(
        {
          origin: provider.origin,
          path: provider.basePath + plan.path,
          method: 'POST',
          headers: upstreamHeaders(
            this.a.headers,
            provider,
            length,
            !upload && plan.translate !== undefined,
            this.key ?? undefined,
          ),
          body: this.bodyStream ?? plan.body,
          headersTimeout: this.ownTimers ? 0 : provider.timeouts.first_byte_ms,
          bodyTimeout: this.ownTimers ? 0 : provider.timeouts.idle_ms,
        },
        this,
      );
      // undici writes a reused keep-alive socket's request in the check phase (after polling the socket, so a
      // provider's stray bytes are seen first: GHSA-35p6-xmwp-9g52); this immediate runs right after that write.
      setImmediate(prepareReply, this);
    });
  }

  private settle(r: AttemptResult): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.bodyStream) this.bodyStream.destroy();
    this.a.target.listen(null);
    this.resolve(r);
  }

  clientGone(): void {
    this.clientLeft = true;
    this.controller?.abort(new Error('client closed the request'));
  }

  clientDrained(): void {
    if (this.paused) {
      this.paused = false;
      this.timer?.refresh(); // the idle clock starts again with the read
    }
    this.controller?.resume();
  }

  /** A timer ran out: the call is aborted, and onResponseError classifies the error as a timeout. */
  timedOut(code: AttemptTimeout['code']): void {
    this.timer = null;
    this.controller?.abort(new AttemptTimeout(code));
  }

  /** The idle timer ran out: a timeout unless the read is paused for the client (then it waits a whole idle again). */
  idleTimedOut(): void {
    if (this.paused && this.timer !== null) this.timer.refresh();
    else this.timedOut('UND_ERR_BODY_TIMEOUT');
  }

  /** Called by the sink when the first byte is about to reach the client. */
  commit(): void {
    this.a.progress.ttfbMs = Math.round(performance.now() - this.a.started);
  }

  private finishProgress(finalStatus: number): void {
    const usage = this.sink?.usage();
    const p = this.a.progress;
    p.provider = this.cand.provider;
    p.route = this.cand.label ?? this.cand.reason;
    p.status = finalStatus;
    p.promptTokens = usage?.prompt ?? null;
    p.completionTokens = usage?.completion ?? null;
    p.cacheReadTokens = usage?.cacheRead ?? null;
    p.cacheWriteTokens = usage?.cacheWrite ?? null;
    p.cacheWrite5mTokens = usage?.cacheWrite5m ?? null;
    p.cacheWrite1hTokens = usage?.cacheWrite1h ?? null;
    p.reasoningTokens = usage?.reasoning ?? null;
  }

  /** After commit: no failover; the client's reply ends with its format's error (`message` is scrubbed already). */
  private failCommitted(message: string): void {
    this.finishProgress(502);
    const e: WireError = {
      status: 502,
      code: 'upstream_error',
      type: 'upstream_error',
      message: `Provider "${this.cand.provider}" failed mid-stream: ${message}.`,
    };
    this.sink!.fail(e);
    this.settle({ kind: 'done', status: 502, midStreamError: message });
  }

  /** A failure inside the sink (a bad upstream stream, which may quote the provider): fail over if nothing was sent. */
  private sinkFailed(err: unknown): void {
    const message = redact(err instanceof UpstreamStreamError ? err.message : (err as Error).message);
    if (this.sink?.committed) this.failCommitted(message);
    else this.settle({ kind: 'failed', failure: { retryable: true, status: null, kind: 'other', message } });
    // Aborted once settled: undici may call onResponseError from inside abort(), which must then not end the reply
    // a second time (a write after end, which took the process down).
    this.controller?.abort(err as Error);
  }

  onRequestStart(ctrl: Dispatcher.DispatchController): void {
    this.controller = ctrl;
    if (this.clientLeft) return void ctrl.abort(new Error('client closed the request'));
    // The first-byte clock starts when undici writes the request on its connection, as undici's own did.
    const ms = this.provider.timeouts.first_byte_ms;
    if (this.ownTimers && ms > 0) this.timer = setTimeout(firstByteTimedOut, ms, this);
  }

  onResponseStart(
    _ctrl: Dispatcher.DispatchController,
    statusCode: number,
    responseHeaders: IncomingHttpHeaders,
  ): void {
    this.status = statusCode;
    this.headers = responseHeaders;
    if (this.quota !== null) this.quota.read(responseHeaders, statusCode, Date.now());
    if (this.ownTimers) {
      if (this.timer !== null) clearTimeout(this.timer);
      const ms = this.provider.timeouts.idle_ms;
      this.timer = ms > 0 ? setTimeout(idleTimedOut, ms, this) : null;
    }
    this.failing =
      isRetryableStatus(statusCode) ||
      (this.key !== null && (statusCode === 401 || statusCode === 403)) ||
      (statusCode >= 400 && this.a.target.continuing === true);
    if (this.failing) return;
    if (statusCode >= 200 && statusCode < 400) {
      const verdict = judgeReply(statusCode, responseHeaders, this.a.replies, this.plan.translate === undefined);
      if (verdict === 'sniff') this.sniffing = true;
      else if (verdict !== null) {
        this.notAnswer = verdict;
        this.failing = true;
        return;
      }
    }
    this.sink = this.a.target.sink(
      {
        status: statusCode,
        headers: responseHeaders,
        extraHeaders: this.replyExtra ?? this.extraHeaders(),
        committer: this,
      },
      this.plan,
    );
  }

  /** Makes our reply headers ahead of the answer (prepareReply, after the request is written). */
  prepareReply(): void {
    if (!this.settled) this.replyExtra ??= this.extraHeaders();
  }

  /** The limiter's x-ratelimit-* headers and ours (provider, route, attempts, dropped fields). */
  private extraHeaders(): Record<string, string> {
    // Copied key by key, not spread: spreading the limiter's headers object cost ~2.7 µs a request (V8 leaves its
    // fast clone path for it), 2 % of the proxy's CPU at c=64; the loop costs ~0.15 µs (docs/PERFORMANCE.md).
    const extra: Record<string, string> = {};
    const admitted = this.a.admission?.headers;
    if (admitted) for (const name in admitted) extra[name] = admitted[name]!;
    extra['x-switchboard-provider'] = this.cand.provider;
    extra['x-switchboard-route'] = this.cand.label ?? this.cand.reason;
    extra['x-switchboard-attempts'] = String(this.attemptNo);
    if (this.plan.dropped) extra['x-switchboard-dropped'] = droppedHeader(this.plan.dropped);
    return extra;
  }

  onResponseData(ctrl: Dispatcher.DispatchController, chunk: Buffer): void {
    this.timer?.refresh();
    if (this.sniffing) {
      this.sniffing = false;
      this.notAnswer = sniffReply(this.status, String(this.headers['content-type']), chunk);
      this.failing = this.notAnswer !== null;
    }
    if (this.failing) {
      if (this.settled) return; // cut short already (below): what still arrives is not read
      if (this.errorText.length < 4096) this.errorText += chunk.toString('utf8');
      // Not an answer: its start is enough to quote, and the rest (a page, a stream) is not waited for.
      if (this.notAnswer !== null && this.errorText.length >= 1024) {
        this.onResponseEnd();
        ctrl.abort(new Error('not an answer of the API'));
      }
      return;
    }
    if (this.settled) return;
    try {
      if (!this.sink!.data(chunk)) {
        this.paused = true;
        ctrl.pause();
      }
    } catch (err) {
      this.sinkFailed(err);
    }
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.failing) {
      const status = this.status;
      let message: string;
      if (this.notAnswer !== null) {
        const quoted = quoteStart(this.errorText);
        message = `${this.notAnswer}${quoted ? `: ${quoted}` : ''}`;
      } else {
        const text = errorTextOf(this.errorText);
        message = `HTTP ${status}${text ? `: ${text}` : ''}`;
      }
      const ra = this.headers['retry-after'];
      this.settle({
        kind: 'failed',
        failure: { retryable: true, status, kind: 'http', message },
        ...(typeof ra === 'string' ? { retryAfter: ra } : {}),
      });
      return;
    }
    try {
      this.sink!.end();
    } catch (err) {
      this.sinkFailed(err);
      return;
    }
    this.finishProgress(this.status);
    this.settle({ kind: 'done', status: this.status });
  }

  onResponseError(_ctrl: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    const failure = classify(err, this.clientLeft);
    if (!this.sink?.committed || failure.kind === 'aborted') {
      this.settle({ kind: 'failed', failure });
      return;
    }
    this.failCommitted(failure.message);
  }
}
