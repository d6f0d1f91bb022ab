// The reply target of a client on an HTTP connection: the raw Node response, the client's wire format, and the
// sinks that write to it. Also the one writer of an ApiError in a client's own error shape.
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../../errors.ts';
import type { ClientFormat, ReplyContext } from '../formats/hub/index.ts';
import { PassthroughErrorSink, PassthroughSink, TranslatingStreamSink } from './http-sinks.ts';
import { translatingErrorSink, translatingJsonSink } from './http-sinks.ts';
import { ContinuableStreamSink, type StreamSeam } from './continuation.ts';
import type { AttemptPlan } from './plan.ts';
import type { ClientListener, ReplySink, ReplyTarget, SinkInit } from './target.ts';

/** A class, bound once per request: no per-request closures on the hot path (see docs/ARCHITECTURE.md). */
export class HttpReplyTarget implements ReplyTarget {
  private listener: ClientListener | null = null;
  /** Set for a route with continue_on_cut (continuation.ts): its translated streams can be continued after a cut. */
  seam: StreamSeam | null = null;
  private readonly onClose: () => void;
  private readonly onDrain: () => void;

  constructor(
    readonly res: ServerResponse,
    private readonly client: ClientFormat,
    private readonly ctx: ReplyContext,
    private readonly stream: boolean,
  ) {
    this.onClose = this.closed.bind(this);
    this.onDrain = this.drained.bind(this);
  }

  get continuing(): boolean {
    return this.seam?.cut === true;
  }

  get gone(): boolean {
    return this.res.destroyed;
  }

  listen(listener: ClientListener | null): void {
    if (listener && !this.listener) {
      this.res.on('close', this.onClose);
      this.res.on('drain', this.onDrain);
    } else if (!listener && this.listener) {
      this.res.off('close', this.onClose);
      this.res.off('drain', this.onDrain);
    }
    this.listener = listener;
  }

  private closed(): void {
    if (!this.res.writableFinished) this.listener?.clientGone();
  }

  private drained(): void {
    this.listener?.clientDrained();
  }

  sink(init: SinkInit, plan: AttemptPlan): ReplySink {
    const t = plan.translate;
    // The secret guard's restore sits between the sink and the client (only when it redacted this request).
    const res = plan.rewriteReply ? plan.rewriteReply(this.res) : this.res;
    if (!t)
      return init.status >= 400
        ? new PassthroughErrorSink(res, init)
        : new PassthroughSink(
            res,
            init,
            this.client,
            this.ctx,
            plan.ends ? { format: plan.ends, stream: this.stream } : undefined,
          );
    if (init.status >= 400) return translatingErrorSink(res, init, t.errorMessage, this.client);
    // A request the secret guard redacted is not continued on a cut: its answer must pass the guard's restore, which
    // the seam (writing to the client directly, across attempts) does not; it ends as a cut stream does without
    // continue_on_cut.
    if (this.stream && t.decoder && t.encoder && this.seam !== null && !plan.rewriteReply)
      return new ContinuableStreamSink(this.seam, init, t.decoder(), t.encoder);
    if (this.stream && t.decoder && t.encoder) return new TranslatingStreamSink(res, init, t.decoder(), t.encoder());
    return translatingJsonSink(res, init, t.json);
  }
}

/** Writes an ApiError in the client's own error shape (or cuts the reply when it has already started). */
export function sendFormatError(res: ServerResponse, format: ClientFormat, e: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(format.errorBody(e.toWire()));
  res.writeHead(e.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...e.headers,
  });
  res.end(body);
}
