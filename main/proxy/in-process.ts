// Chat through the engine from inside the process (the orchestrator's agents): the same routing, failover and
// translation as an HTTP client gets, delivered as hub chunks. No socket and no HTTP objects: forwarding writes to
// an in-process reply target, and every provider's stream is decoded straight to hub chunks (nothing is re-encoded).
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { ApiError } from '../errors.ts';
import { redact } from '../observability/redact.ts';
import type { Engine } from './engine.ts';
import { UpstreamStreamError } from './formats/hub/index.ts';
import type { HubChunk, HubRequest, StreamDecoder, WireError } from './formats/hub/index.ts';
import { providerFormat } from './formats/index.ts';
import { type ForwardOutcome, type ForwardRequest, forwardWithFailover, hubForProvider } from './forward/index.ts';
import type { AttemptPlan, ClientListener, Planner, PlanTarget, ReplySink, ReplyTarget } from './forward/index.ts';
import { finishDecoding, NO_USAGE, type SinkInit, type Usage, usageOfHub } from './forward/index.ts';
import { estimateTokens } from './limits.ts';
import { noteOffline, offlineOutcome, OfflinePlanner, offlinePlan, unreachableNow } from './offline.ts';
import { type QuirkTable, quirkTableFor } from './quirks.ts';
import { expectedOutput } from './strategy/choose.ts';
import { stickyKeyOf } from './strategy/sticky.ts';
import { checkBudget, chooseCandidates, newLogEntry, recordOutcome, requestSize, routeRequest } from './request.ts';

/** Chunks queued for the reader past which the upstream read pauses until the reader catches up. */
const HIGH_WATER = 256;

/**
 * Every candidate gets the hub request in its own format, after the quirks table (as a translated HTTP request does),
 * and its stream is decoded to hub chunks.
 */
class InProcessPlanner implements Planner {
  constructor(
    private readonly hub: HubRequest,
    private readonly quirks: QuirkTable,
  ) {}

  plan(t: PlanTarget): AttemptPlan {
    const pf = providerFormat(t.kind.format);
    const model = this.hub.model;
    const sent = hubForProvider(t, this.hub, this.quirks);
    return {
      path: t.kind.chatPath(model, true),
      body: Buffer.from(JSON.stringify(pf.requestFromHub(sent.hub))),
      ...(sent.dropped ? { dropped: sent.dropped } : {}),
      translate: {
        json: (body) => pf.responseToHub(body, model),
        decoder: () => pf.streamDecoder(model),
        errorMessage: (body) => pf.errorMessage(body),
      },
    };
  }
}

/** The reader's end: a queue of hub chunks, the failure that ended them, and the provider's own error answer. */
class InProcessTarget implements ReplyTarget {
  private listener: ClientListener | null = null;
  private queue: HubChunk[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private stopped = false;
  failure: UpstreamStreamError | null = null;
  refusal: { status: number; message: string } | null = null;

  get gone(): boolean {
    return this.stopped;
  }

  listen(listener: ClientListener | null): void {
    this.listener = listener;
  }

  sink(init: SinkInit, plan: AttemptPlan): ReplySink {
    const t = plan.translate;
    if (!t?.decoder) throw new UpstreamStreamError('an in-process call needs a translated stream');
    return init.status >= 400
      ? new RefusalSink(this, init, t.errorMessage)
      : new HubStreamSink(this, init, t.decoder());
  }

  push(chunks: HubChunk[]): boolean {
    this.queue.push(...chunks);
    this.wake?.();
    return this.queue.length < HIGH_WATER;
  }

  /** No more chunks: the reply ended, failed, or forwarding gave up. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  /** The reader stopped (aborted, or left the loop): the running attempt is aborted. */
  stop(): void {
    this.stopped = true;
    this.listener?.clientGone();
    this.end();
  }

  /** The next chunks, or null at the end; throws the mid-stream failure once the chunks before it are read. */
  async next(): Promise<HubChunk[] | null> {
    for (;;) {
      if (this.queue.length) {
        const batch = this.queue;
        this.queue = [];
        this.listener?.clientDrained();
        return batch;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}

/** A 2xx stream: provider bytes → hub chunks → the reader's queue. Commits at the first chunk. */
class HubStreamSink implements ReplySink {
  committed = false;
  private readonly text = new StringDecoder('utf8');
  private counted: Usage = NO_USAGE;

  constructor(
    private readonly target: InProcessTarget,
    private readonly init: SinkInit,
    private readonly decoder: StreamDecoder,
  ) {}

  private deliver(chunks: HubChunk[]): boolean {
    if (chunks.length === 0) return true;
    if (!this.committed) {
      this.committed = true;
      this.init.committer.commit();
    }
    for (const c of chunks) if (c.usage) this.counted = usageOfHub(c.usage);
    return this.target.push(chunks);
  }

  data(chunk: Buffer): boolean {
    return this.deliver(this.decoder.push(this.text.write(chunk)));
  }

  end(): void {
    finishDecoding(this.decoder, this.text, (chunks) => this.deliver(chunks));
    this.target.end();
  }

  fail(e: WireError): void {
    this.target.failure = new UpstreamStreamError(e.message, e.code, e.status);
    this.target.end();
  }

  usage(): Usage {
    return this.counted;
  }
}

/** The provider's own error answer (a 4xx that is not worth a failover): its message, for the caller's error. */
class RefusalSink implements ReplySink {
  committed = false;
  private readonly parts: Buffer[] = [];

  constructor(
    private readonly target: InProcessTarget,
    private readonly init: SinkInit,
    private readonly errorMessage: (body: unknown) => string | undefined,
  ) {}

  data(chunk: Buffer): boolean {
    this.parts.push(chunk);
    return true;
  }

  end(): void {
    const text = Buffer.concat(this.parts).toString('utf8');
    let message: string | undefined;
    try {
      message = redact(this.errorMessage(JSON.parse(text)) ?? '');
    } catch {
      message = redact(text.trim()).slice(0, 500);
    }
    this.committed = true;
    this.init.committer.commit();
    this.target.refusal = { status: this.init.status, message: message || `HTTP ${this.init.status}` };
    this.target.end();
  }

  fail(): void {
    this.target.end();
  }

  usage(): Usage {
    return NO_USAGE;
  }
}

export type InProcessOptions = { app: string; signal?: AbortSignal };

/** One forwarding of the call into `target`, the caller's abort wired to it before the first attempt starts. */
function forwardInto(
  engine: Engine,
  target: InProcessTarget,
  f: Omit<ForwardRequest, 'headers' | 'target'>,
  opts: InProcessOptions,
): { done: Promise<ForwardOutcome>; unwire: () => void } {
  const onAbort = () => target.stop();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) target.stop();
  const headers = { 'content-type': 'application/json', 'user-agent': `switchboard-agent (${opts.app})` };
  const done = forwardWithFailover({ ...f, headers, target }, engine.pool);
  // When every candidate failed, nothing was delivered: end the queue so the reader stops and sees the error.
  void done.then(() => target.end());
  return { done, unwire: () => opts.signal?.removeEventListener('abort', onAbort) };
}

/**
 * The chunks of one forwarding as they come; its outcome is put in `out` once it is over, whether the reader read to
 * the end, left early or met a mid-stream failure.
 */
async function* relay(
  target: InProcessTarget,
  run: { done: Promise<ForwardOutcome>; unwire: () => void },
  out: { outcome: ForwardOutcome | null },
): AsyncGenerator<HubChunk> {
  try {
    for (;;) {
      const batch = await target.next();
      if (batch === null) break;
      for (const chunk of batch) yield chunk;
    }
  } finally {
    run.unwire();
    target.stop(); // a reader that left the loop early stops the upstream call (no-op once it has ended)
    out.outcome = await run.done;
  }
}

/**
 * Streams a chat completion for `req` (hub form) through routing as app `opts.app`. Throws ApiError when no
 * provider can take it, all fail before the first byte, or the provider refuses the request; throws
 * UpstreamStreamError on a mid-stream failure. Aborting `opts.signal` cancels the upstream call at once. When every
 * provider of the route is out of reach, routing.offline's local providers serve it, as they do an HTTP client's.
 */
export async function* chatInProcess(
  engine: Engine,
  req: HubRequest,
  opts: InProcessOptions,
): AsyncGenerator<HubChunk> {
  const started = performance.now();
  const entry = newLogEntry('(in-process) /v1/chat/completions');
  Object.assign(entry, { app: opts.app, app_source: 'header', requested_model: req.model, stream: true });
  const out: { outcome: ForwardOutcome | null } = { outcome: null };
  try {
    const route = routeRequest(engine, req.model, opts.app, entry);
    checkBudget(engine, opts.app);
    const hub: HubRequest = { ...req, model: route.model, stream: true, stream_options: { include_usage: true } };
    const quirks = quirkTableFor(engine.config);
    const bytes = Buffer.byteLength(JSON.stringify(hub.messages));
    const maxTokens = hub.max_completion_tokens ?? hub.max_tokens;
    const size = route.choice ? requestSize(route, bytes, maxTokens) : null;
    let target = new InProcessTarget();
    try {
      yield* relay(
        target,
        forwardInto(
          engine,
          target,
          {
            candidates: chooseCandidates(engine, route, size),
            model: route.model,
            ...(size ? { estimate: size.promptTokens, stream: true } : {}),
            ...(route.keyPools ? { session: () => stickyKeyOf({}, null, hub.messages[0]) } : {}),
            unreachable: unreachableNow(engine),
            planner: new InProcessPlanner(hub, quirks),
          },
          opts,
        ),
        out,
      );
      // Every provider of the route out of reach, nothing delivered: the local providers of routing.offline.
      const cloud = out.outcome!;
      const offline = opts.signal?.aborted
        ? null
        : offlinePlan(engine, route, cloud, {
            promptTokens: estimateTokens(bytes),
            outputTokens: expectedOutput(maxTokens),
          });
      if (offline?.refusal) throw offline.refusal;
      if (offline) {
        target = new InProcessTarget();
        const local = { outcome: null as ForwardOutcome | null };
        try {
          yield* relay(
            target,
            forwardInto(
              engine,
              target,
              {
                candidates: offline.candidates,
                model: offline.model,
                planner: new OfflinePlanner(
                  new InProcessPlanner({ ...hub, model: offline.model }, quirks),
                  offline.numCtx,
                ),
              },
              opts,
            ),
            local,
          );
        } finally {
          out.outcome = offlineOutcome(engine, offline, cloud, local.outcome!);
        }
      } else if (cloud.error === null) noteOffline(engine, false, '');
    } finally {
      if (out.outcome) recordOutcome(entry, out.outcome);
    }
    const outcome = out.outcome!;
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    if (outcome.error) throw outcome.error;
    if (target.refusal) {
      const { status, message } = target.refusal;
      throw new ApiError(
        'upstream_error',
        `The provider refused the request (HTTP ${status}): ${message}`,
        "See the request log for the provider's answer.",
      );
    }
  } catch (err) {
    if (err instanceof ApiError) {
      entry.status ||= err.status;
      entry.error_code ||= err.code;
    }
    throw err;
  } finally {
    entry.latency_ms = Math.round(performance.now() - started);
    engine.requestLog.add(entry);
  }
}
