// What forwarding writes a reply to: a small reply-target interface (undici's dispatcher/handler split), with one
// implementation for a client on an HTTP connection (http-target.ts) and one for the agents' in-process model calls.
import type { IncomingHttpHeaders } from 'node:http';
import type { StringDecoder } from 'node:string_decoder';
import { type HubChunk, type StreamDecoder, UpstreamStreamError, type WireError } from '../formats/hub/index.ts';
import type { AttemptPlan } from './plan.ts';

/** A reply's token counts in the hub's sense (prompt includes cache reads and writes, completion reasoning); null: not said. */
export type Usage = {
  prompt: number | null;
  completion: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  /** Within cacheWrite, the 5-minute and 1-hour writes (Anthropic's cache_creation); null: not said. */
  cacheWrite5m: number | null;
  cacheWrite1h: number | null;
  reasoning: number | null;
};

export const NO_USAGE: Usage = {
  prompt: null,
  completion: null,
  cacheRead: null,
  cacheWrite: null,
  cacheWrite5m: null,
  cacheWrite1h: null,
  reasoning: null,
};

/** Receives one upstream reply (a 2xx, or a 4xx that is the provider's answer) and writes the client's reply. */
export interface ReplySink {
  /** Bytes from upstream. Returns false when the client wants a pause. Throws UpstreamStreamError. */
  data(chunk: Buffer): boolean;
  /** Upstream ended normally. */
  end(): void;
  /** Upstream failed after the sink was committed: end the client's reply in a way it notices. */
  fail(e: WireError): void;
  /** True once the first byte went to the client: from then on there is no failover. */
  readonly committed: boolean;
  usage(): Usage;
}

/** What a sink is made with: the provider's status and headers, headers for the client, and who to tell at commit. */
export type SinkInit = {
  status: number;
  headers: IncomingHttpHeaders;
  /** x-switchboard-* (and the limiter's x-ratelimit-*) headers for the client. */
  extraHeaders: Record<string, string>;
  /** Told once, when the first byte is about to reach the client. */
  committer: { commit(): void };
};

/** The attempt in progress, told when the client goes away or can take more after a paused write. */
export interface ClientListener {
  clientGone(): void;
  clientDrained(): void;
}

export interface ReplyTarget {
  /** The client is gone (hung up, or stopped reading): no attempt starts, the running one is aborted. */
  readonly gone: boolean;
  /** The attempt in progress (null when none): the one listener at a time. */
  listen(listener: ClientListener | null): void;
  /** The sink that turns this attempt's reply into the client's, as the plan says. */
  sink(init: SinkInit, plan: AttemptPlan): ReplySink;
  /** A cut stream is being continued (continuation.ts): any status of 400 or more fails the attempt over. */
  readonly continuing?: boolean;
}

/**
 * A translating sink's end of the upstream body: the decoder's last chunks are given to `write`; when the stream was
 * cut (the decoder raises UpstreamStreamError), the chunks decoded before the cut are given first, then it is raised.
 * One way for every sink that decodes a provider's stream (http-sinks.ts, continuation.ts, the in-process target).
 */
export function finishDecoding(
  decoder: StreamDecoder,
  text: StringDecoder,
  write: (chunks: HubChunk[]) => unknown,
): void {
  const rest = decoder.push(text.end());
  let last: HubChunk[];
  try {
    last = decoder.end();
  } catch (err) {
    if (err instanceof UpstreamStreamError) write([...rest, ...err.chunks]);
    throw err;
  }
  write([...rest, ...last]);
}
