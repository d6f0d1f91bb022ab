// Chat through the engine from inside the process (the orchestrator's agents): the same routing, failover and
// translation as an HTTP client gets, read back as hub chunks. No socket: the reply lands in an in-memory response.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { ApiError } from '../errors.ts';
import type { Engine } from './engine.ts';
import type { HubChunk, HubRequest } from './formats/hub/index.ts';
import { openaiFormat } from './formats/openai/index.ts';
import { chatPlan, forwardWithFailover } from './forward.ts';

/** A ServerResponse stand-in that hands what is written to a reader. */
class InProcessResponse extends Writable {
  statusCode = 0;
  headersSent = false;
  private readonly queue: string[] = [];
  private wake: (() => void) | null = null;

  writeHead(status: number): this {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.queue.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    this.wake?.();
    cb();
  }

  override _final(cb: () => void): void {
    this.wake?.();
    cb();
  }

  /** Text written so far (drained), or null once the response is over and drained. */
  async next(): Promise<string | null> {
    for (;;) {
      if (this.queue.length) return this.queue.splice(0).join('');
      if (this.writableFinished || this.destroyed) return null;
      await new Promise<void>((r) => {
        this.wake = r;
        this.once('close', r);
      });
      this.wake = null;
    }
  }
}

export type InProcessOptions = { app: string; signal?: AbortSignal };

/**
 * Streams a chat completion for `req` (hub form) through routing as app `opts.app`. Throws ApiError when no
 * provider can take it or all fail before the first byte; throws UpstreamStreamError on a mid-stream failure.
 * Aborting `opts.signal` cancels the upstream call at once.
 */
export async function* chatInProcess(engine: Engine, req: HubRequest, opts: InProcessOptions): AsyncGenerator<HubChunk> {
  const started = performance.now();
  const route = engine.router.resolve(req.model, opts.app);
  const entry: RequestLogEntry = {
    id: randomUUID(), time: new Date().toISOString(), method: 'POST', path: '(in-process) /v1/chat/completions', app: opts.app, app_source: 'header',
    requested_model: req.model, routed_model: route.model, provider: null, route: null, attempts: [], status: 0, error_code: null, stream: true,
    latency_ms: 0, ttfb_ms: null, prompt_tokens: null, completion_tokens: null,
  };
  try {
    if (engine.paused) throw new ApiError('routing_paused', 'Routing is paused in Switchboard.', 'Resume routing from the tray menu or the Switchboard window.');
    if (route.candidates.length === 0) {
      const { message, action } = engine.router.noRouteMessage(route);
      throw new ApiError('no_route', message, action, { steps: route.steps, skipped: route.skipped });
    }
    const hub: HubRequest = { ...req, model: route.model, stream: true, stream_options: { include_usage: true } };
    const raw = Buffer.from(JSON.stringify(hub));
    const res = new InProcessResponse();
    const fakeReq = { headers: { 'content-type': 'application/json', 'user-agent': `switchboard-agent (${opts.app})` } } as unknown as IncomingMessage;
    const onAbort = () => res.destroy();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const ctx = { model: req.model };
    const done = forwardWithFailover(
      {
        req: fakeReq,
        res: res as unknown as ServerResponse,
        client: openaiFormat,
        ctx: {},
        stream: true,
        candidates: route.candidates,
        model: route.model,
        planner: {
          plan: (t) => chatPlan(t, t.kind.format === 'openai' ? t.kind.chatPath(route.model, true) : null, raw, hub, openaiFormat, ctx, true),
        },
      },
      engine.pool,
    );
    // When every candidate failed, nothing was written: end the response so the reader stops and sees the error.
    void done.then(() => {
      if (!res.writableEnded && !res.destroyed) res.end();
    });
    const decoder = openaiFormat.streamDecoder(route.model);
    try {
      for (;;) {
        const text = await res.next();
        if (text === null) break;
        if (res.statusCode >= 400) continue; // an error body: reported below from the outcome
        for (const chunk of decoder.push(text)) yield chunk;
      }
      for (const chunk of decoder.end()) yield chunk;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      if (!res.writableFinished) res.destroy();
      const outcome = await done;
      Object.assign(entry, {
        provider: outcome.provider, route: outcome.route, attempts: outcome.attempts, status: outcome.status, error_code: outcome.errorCode,
        ttfb_ms: outcome.ttfbMs, prompt_tokens: outcome.promptTokens, completion_tokens: outcome.completionTokens,
      });
      if (outcome.error) throw outcome.error;
      if (outcome.status >= 400 && outcome.status !== 499 && !outcome.errorCode) {
        throw new ApiError('upstream_error', `The provider answered HTTP ${outcome.status}.`, 'See the request log for the provider\'s answer.');
      }
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
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
