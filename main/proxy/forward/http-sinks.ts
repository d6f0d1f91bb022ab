// How an upstream reply becomes an HTTP client's reply: bytes passed through untouched when both sides speak the
// same format, or decoded to the hub and encoded in the client's format. Each commits at its first output byte.
import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { redact } from '../../observability/redact.ts';
import { type FormatName, UpstreamStreamError, wireErrorForStatus } from '../formats/hub/index.ts';
import { END_EVENT, isWholeJson, StreamEndWatch } from '../formats/stream-end.ts';
import type { ClientFormat, HubChunk, ReplyContext, StreamDecoder, StreamEncoder } from '../formats/hub/index.ts';
import type { WireError } from '../formats/hub/index.ts';
import { replyHeaders } from './headers.ts';
import { finishDecoding, NO_USAGE, type ReplySink, type SinkInit, type Usage } from './target.ts';
import { usageFromText, usageOfHub } from './usage-text.ts';

const TAIL_BYTES = 4096;
/**
 * The most chunks the tail keeps as they came: past it the tail moves into one window of its own. A stream of small
 * events (a token a second, held for minutes) would otherwise pin one small allocation per event, up to 8 KB of them,
 * for as long as it stays open: with a thousand open streams, tens of thousands of malloc'd fragments.
 */
const KEPT_CHUNKS = 4;
/**
 * The window: one fixed allocation per long stream that the tail's bytes are copied into, its oldest bytes dropped
 * when a chunk does not fit (a 4 KB move at most once per KB). A copy of the newest bytes per merge (one malloc of a
 * new size every few events, each freed only at the next GC) left the C heap fragmented after a burst of streams.
 */
const WINDOW_BYTES = TAIL_BYTES + 1024;

/** Bytes [from, to) of the parts, in one exact-size buffer of its own (never a slice of Node's shared 8 KB pool). */
function ownCopy(parts: Buffer[], from: number, to: number): Buffer {
  const out = Buffer.allocUnsafeSlow(to - from);
  let pos = 0;
  let at = 0;
  for (const part of parts) {
    const start = Math.max(from - pos, 0);
    const end = Math.min(to - pos, part.length);
    if (start < end) at += part.copy(out, at, start, end);
    pos += part.length;
  }
  return out;
}

/** `extra` added to `headers` key by key (a spread of it leaves V8's fast path: see UpstreamAttempt.onResponseStart). */
function withExtra(headers: Record<string, string>, extra: Record<string, string>): Record<string, string> {
  for (const name in extra) headers[name] = extra[name]!;
  return headers;
}

/** The largest whole reply held to check it is complete before it goes out (a chat reply is a few KB). */
const HOLD_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Where the last whole event of `b` ends (just past its blank line), or -1: an SSE blank line is `\n\n` or
 * `\r\n\r\n` (Gemini's), an NDJSON line ends at `\n`.
 */
function eventsEnd(b: Buffer, sse: boolean): number {
  let i = b.lastIndexOf(0x0a);
  if (!sse) return i === -1 ? -1 : i + 1;
  while (i > 0) {
    if (b[i - 1] === 0x0a || (b[i - 1] === 0x0d && i >= 2 && b[i - 2] === 0x0a)) return i + 1;
    i = b.lastIndexOf(0x0a, i - 1);
  }
  return -1;
}

/**
 * What a passthrough reply of a chat-like route must reach (plan.ends): a stream its format's terminal event, a whole
 * JSON reply to a non-stream request complete JSON. Absent for routes whose streams have no such end (images, audio).
 */
export type PassthroughEnds = { format: FormatName; stream: boolean };

/**
 * Same format on both sides: upstream bytes go to the client as they come. Streams are cut only at event
 * boundaries (SSE blank line, NDJSON newline) so that an error written after a failure never lands inside a half
 * event; usage is read from the last few KB (and the first few, once they have left the tail), kept in a few
 * buffers. A class, as it sits on the hot path (no per-request closures).
 *
 * With `ends` (chat-like routes), a reply cut by a clean close is not passed on as finished: a stream whose bytes end
 * before its format's terminal event (../formats/stream-end.ts) raises UpstreamStreamError, so the client's stream
 * ends with its format's error event; a whole JSON reply without a content-length (chunked or close-delimited) is
 * held (up to HOLD_MAX_BYTES) until it is complete, and one that ends before its JSON does is failed over or
 * answered with the client's own error status.
 */
export class PassthroughSink implements ReplySink {
  committed = false;
  private readonly boundary: 'sse' | 'ndjson' | null;
  /** The stream's end, watched event by event (streams with `ends`). */
  private readonly watch: StreamEndWatch | null = null;
  /** A whole reply held until its end (non-stream JSON with `ends`); null once passed on as it comes. */
  private holding: Buffer[] | null = null;
  private holdingBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Past KEPT_CHUNKS chunks: the newest bytes, window[0, windowLen) (WINDOW_BYTES). */
  private window: Buffer | null = null;
  private windowLen = 0;
  /** The first few KB, kept apart once they leave the tail (a stream's opening event may carry the prompt's counts). */
  private head: Buffer | null = null;
  private pending: Buffer | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly s: SinkInit,
    private readonly client: ClientFormat,
    private readonly ctx: ReplyContext,
    ends?: PassthroughEnds,
  ) {
    const contentType = String(s.headers['content-type'] ?? '');
    this.boundary = contentType.includes('text/event-stream')
      ? 'sse'
      : contentType.includes('ndjson')
        ? 'ndjson'
        : null;
    if (!ends) return;
    if (this.boundary) this.watch = new StreamEndWatch(ends.format);
    // A body framed by a content-length is whole when it ends (undici fails one that falls short): only a chunked
    // or close-delimited one can end cleanly before its JSON does, and only that one is held and checked.
    else if (!ends.stream && contentType.includes('json') && s.headers['content-length'] === undefined) {
      this.holding = [];
    }
  }

  private commit(length?: number): void {
    this.committed = true;
    this.s.committer.commit();
    const headers = replyHeaders(this.s.headers, this.s.extraHeaders);
    if (length !== undefined) headers['content-length'] = String(length);
    this.res.writeHead(this.s.status, headers);
  }

  /** What the sink holds to read the usage from: a few buffers, whatever the stream's length (KEPT_CHUNKS). */
  held(): { buffers: number; bytes: number } {
    const head = this.head?.length ?? 0;
    if (this.window) return { buffers: 1 + (this.head ? 1 : 0), bytes: head + this.windowLen };
    return { buffers: this.tail.length + (this.head ? 1 : 0), bytes: head + this.tailBytes };
  }

  data(chunk: Buffer): boolean {
    if (this.holding) {
      this.holding.push(chunk);
      this.holdingBytes += chunk.length;
    } else if (!this.committed) this.commit();
    if (this.window) this.keep(chunk);
    else {
      const tail = this.tail;
      tail.push(chunk);
      this.tailBytes += chunk.length;
      if (this.tailBytes - tail[0]!.length >= TAIL_BYTES) {
        // The stream's first bytes are about to leave the tail: its first few KB are kept apart, once.
        this.head ??= ownCopy(tail, 0, Math.min(TAIL_BYTES, this.tailBytes));
        while (this.tailBytes - tail[0]!.length >= TAIL_BYTES) this.tailBytes -= tail.shift()!.length;
      }
      if (tail.length > KEPT_CHUNKS) {
        // A long stream: its newest bytes move into the window (the head, if still in them, kept apart first).
        if (this.tailBytes > TAIL_BYTES) this.head ??= ownCopy(tail, 0, TAIL_BYTES);
        const to = this.tailBytes;
        const from = Math.max(this.head ? to - TAIL_BYTES : 0, to - WINDOW_BYTES);
        this.window = Buffer.allocUnsafeSlow(WINDOW_BYTES);
        this.windowLen = 0;
        this.tail = [];
        this.tailBytes = 0;
        this.keep(ownCopy(tail, from, to));
      }
    }
    // Too large to hold: passed on as it comes from here, unchecked.
    if (this.holding) return this.holdingBytes > HOLD_MAX_BYTES ? this.release() : true;
    let out = chunk;
    const boundary = this.boundary;
    if (boundary) {
      if (this.pending) out = Buffer.concat([this.pending, chunk]);
      const endAt = eventsEnd(out, boundary === 'sse');
      if (endAt === -1) {
        this.pending = out;
        return true;
      }
      if (endAt < out.length) {
        this.pending = out.subarray(endAt);
        out = out.subarray(0, endAt);
      } else this.pending = null;
      this.watch?.see(out);
    }
    return this.res.write(out);
  }

  /** A held reply goes out as it came, and the rest follows as it comes. */
  private release(): boolean {
    const parts = this.holding!;
    this.holding = null;
    this.commit();
    let more = true;
    for (const part of parts) more = this.res.write(part);
    return more;
  }

  end(): void {
    if (this.holding) {
      if (!isWholeJson(this.holding)) {
        const shown = Buffer.concat(this.holding).toString('utf8').slice(-120);
        throw new UpstreamStreamError(`the provider's reply ended before its JSON was whole: …${shown}`);
      }
      const body = this.holding.length === 1 ? this.holding[0]! : Buffer.concat(this.holding);
      this.holding = null;
      this.commit(body.length);
      this.res.end(body);
      return;
    }
    const watch = this.watch;
    if (watch && !watch.ended && !(this.pending && watch.see(this.pending))) {
      // The client's stream stops at an event boundary: what is pending is a half event, dropped before the error.
      this.pending = null;
      throw new UpstreamStreamError(`the stream ended before its end (${END_EVENT[watch.format]}): it was cut`);
    }
    if (!this.committed) this.commit();
    if (this.pending) this.res.write(this.pending);
    this.res.end();
  }

  fail(e: WireError): void {
    if (this.boundary) this.res.end(this.client.streamEncoder(this.ctx).error(e));
    else this.res.destroy();
  }

  /** Window mode: `chunk`'s bytes appended to the window, its oldest bytes dropped to make room. */
  private keep(chunk: Buffer): void {
    const w = this.window!;
    if (chunk.length >= WINDOW_BYTES) {
      this.head ??= ownCopy([w.subarray(0, this.windowLen), chunk], 0, TAIL_BYTES);
      this.windowLen = chunk.copy(w, 0, chunk.length - WINDOW_BYTES);
      return;
    }
    if (this.windowLen + chunk.length > WINDOW_BYTES) {
      const keep = WINDOW_BYTES - chunk.length;
      // The head is taken when the tail first reaches TAIL_BYTES, before any byte can be dropped here.
      this.head ??= ownCopy([w.subarray(0, this.windowLen)], 0, Math.min(TAIL_BYTES, this.windowLen));
      w.copyWithin(0, this.windowLen - keep, this.windowLen);
      this.windowLen = keep;
    }
    this.windowLen += chunk.copy(w, this.windowLen);
  }

  usage(): Usage {
    const tail = this.window
      ? this.window.toString('utf8', 0, this.windowLen)
      : Buffer.concat(this.tail).toString('utf8');
    // The head is kept only once the tail no longer starts at the first byte.
    return this.head ? usageFromText(tail, this.head.toString('utf8')) : usageFromText(tail);
  }
}

/**
 * Same format on both sides, and the provider's own error answer (a non-retryable 4xx, e.g. a 401 that may quote the
 * key it refused): read whole and sent as it came, with every secret scrubbed. A compressed body (the provider
 * ignored accept-encoding: identity) cannot be read, and goes as it came.
 */
export class PassthroughErrorSink implements ReplySink {
  committed = false;
  private readonly parts: Buffer[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly s: SinkInit,
  ) {}

  data(chunk: Buffer): boolean {
    this.parts.push(chunk);
    return true;
  }

  end(): void {
    const raw = Buffer.concat(this.parts);
    const encoding = this.s.headers['content-encoding'];
    const body = encoding && encoding !== 'identity' ? raw : Buffer.from(redact(raw.toString('utf8')));
    const headers = replyHeaders(this.s.headers, this.s.extraHeaders);
    headers['content-length'] = String(body.length);
    this.committed = true;
    this.s.committer.commit();
    this.res.writeHead(this.s.status, headers);
    this.res.end(body);
  }

  fail(): void {
    this.res.destroy();
  }

  usage(): Usage {
    return NO_USAGE;
  }
}

/** A streamed reply in another format: provider stream → hub chunks → the client's stream format. */
export class TranslatingStreamSink implements ReplySink {
  committed = false;
  private readonly text = new StringDecoder('utf8');
  private counted: Usage = NO_USAGE;

  constructor(
    private readonly res: ServerResponse,
    private readonly s: SinkInit,
    private readonly decoder: StreamDecoder,
    private readonly encoder: StreamEncoder,
  ) {}

  private commit(): void {
    this.committed = true;
    this.s.committer.commit();
    const headers: Record<string, string> = { 'content-type': this.encoder.contentType, 'cache-control': 'no-cache' };
    this.res.writeHead(this.s.status, withExtra(headers, this.s.extraHeaders));
  }

  private write(chunks: HubChunk[]): boolean {
    let out = '';
    for (const c of chunks) {
      if (c.usage) this.counted = usageOfHub(c.usage);
      out += this.encoder.chunk(c);
    }
    if (!out) return true;
    if (!this.committed) this.commit();
    return this.res.write(out);
  }

  data(chunk: Buffer): boolean {
    return this.write(this.decoder.push(this.text.write(chunk)));
  }

  end(): void {
    // Chunks decoded before a cut still reach the client, then the failure is raised.
    finishDecoding(this.decoder, this.text, (chunks) => this.write(chunks));
    if (!this.committed) this.commit();
    this.res.end(this.encoder.end());
  }

  fail(e: WireError): void {
    if (!this.committed) this.commit();
    this.res.end(this.encoder.error(e));
  }

  usage(): Usage {
    return this.counted;
  }
}

/** A reply read whole, rewritten into the client's format, and written at once (with its usage, if any). */
class WholeBodySink implements ReplySink {
  committed = false;
  private readonly parts: Buffer[] = [];
  private counted: Usage = NO_USAGE;

  constructor(
    private readonly res: ServerResponse,
    private readonly s: SinkInit,
    private readonly rewrite: (text: string) => { body: string; usage: Usage },
  ) {}

  data(chunk: Buffer): boolean {
    this.parts.push(chunk);
    return true;
  }

  end(): void {
    const { body, usage } = this.rewrite(Buffer.concat(this.parts).toString('utf8'));
    this.counted = usage;
    this.committed = true;
    this.s.committer.commit();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    this.res.writeHead(this.s.status, withExtra(headers, this.s.extraHeaders));
    this.res.end(body);
  }

  fail(): void {
    this.res.destroy();
  }

  usage(): Usage {
    return this.counted;
  }
}

/** A whole (non-stream) reply in another format: collected, converted, written at once. */
export function translatingJsonSink(res: ServerResponse, s: SinkInit, convert: (body: unknown) => unknown): ReplySink {
  return new WholeBodySink(res, s, (text) => {
    try {
      return { body: JSON.stringify(convert(JSON.parse(text))), usage: usageFromText(text) };
    } catch (err) {
      throw new UpstreamStreamError(`the provider's reply could not be read: ${(err as Error).message}`);
    }
  });
}

/** A provider's own error answer (a non-retryable 4xx) in another format: re-said in the client's error shape. */
export function translatingErrorSink(
  res: ServerResponse,
  s: SinkInit,
  errorMessage: (body: unknown) => string | undefined,
  client: ClientFormat,
): ReplySink {
  return new WholeBodySink(res, s, (text) => {
    let message: string | undefined;
    try {
      message = redact(errorMessage(JSON.parse(text)) ?? '');
    } catch {
      message = redact(text).slice(0, 500);
    }
    const e = wireErrorForStatus(s.status, message || `the provider answered HTTP ${s.status}`);
    return { body: JSON.stringify(client.errorBody(e)), usage: NO_USAGE };
  });
}
