// How an upstream reply becomes an HTTP client's reply: bytes passed through untouched when both sides speak the
// same format, or decoded to the hub and encoded in the client's format. Each commits at its first output byte.
import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { redact } from '../../observability/redact.ts';
import { UpstreamStreamError, wireErrorForStatus } from '../formats/hub/index.ts';
import type { ClientFormat, HubChunk, ReplyContext, StreamDecoder, StreamEncoder } from '../formats/hub/index.ts';
import type { WireError } from '../formats/hub/index.ts';
import { replyHeaders } from './headers.ts';
import { NO_USAGE, type ReplySink, type SinkInit, type Usage } from './target.ts';
import { usageFromText, usageOfHub } from './usage-text.ts';

const TAIL_BYTES = 4096;

/**
 * Same format on both sides: upstream bytes go to the client as they come. Streams are cut only at event
 * boundaries (SSE blank line, NDJSON newline) so that an error written after a failure never lands inside a half
 * event; usage is read from the first and last few KB. A class, as it sits on the hot path (no per-request closures).
 */
export class PassthroughSink implements ReplySink {
  committed = false;
  private readonly boundary: string | null;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private pending: Buffer | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly s: SinkInit,
    private readonly client: ClientFormat,
    private readonly ctx: ReplyContext,
  ) {
    const contentType = String(s.headers['content-type'] ?? '');
    this.boundary = contentType.includes('text/event-stream') ? '\n\n' : contentType.includes('ndjson') ? '\n' : null;
  }

  private commit(): void {
    this.committed = true;
    this.s.committer.commit();
    this.res.writeHead(this.s.status, replyHeaders(this.s.headers, this.s.extraHeaders));
  }

  data(chunk: Buffer): boolean {
    if (!this.committed) this.commit();
    const tail = this.tail;
    // The first few KB too: a stream's opening event may carry counts (Anthropic's message_start, the prompt's).
    if (this.headBytes < TAIL_BYTES) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
    }
    tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - tail[0]!.length >= TAIL_BYTES) this.tailBytes -= tail.shift()!.length;
    let out = chunk;
    const boundary = this.boundary;
    if (boundary) {
      if (this.pending) out = Buffer.concat([this.pending, chunk]);
      const cut = out.lastIndexOf(boundary);
      if (cut === -1) {
        this.pending = out;
        return true;
      }
      const endAt = cut + boundary.length;
      if (endAt < out.length) {
        this.pending = out.subarray(endAt);
        out = out.subarray(0, endAt);
      } else this.pending = null;
    }
    return this.res.write(out);
  }

  end(): void {
    if (!this.committed) this.commit();
    if (this.pending) this.res.write(this.pending);
    this.res.end();
  }

  fail(e: WireError): void {
    if (this.boundary) this.res.end(this.client.streamEncoder(this.ctx).error(e));
    else this.res.destroy();
  }

  usage(): Usage {
    const tail = Buffer.concat(this.tail).toString('utf8');
    // The head matters only once the tail no longer starts at the first chunk.
    return this.head[0] === this.tail[0]
      ? usageFromText(tail)
      : usageFromText(tail, Buffer.concat(this.head).toString('utf8'));
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
    this.res.writeHead(this.s.status, {
      'content-type': this.encoder.contentType,
      'cache-control': 'no-cache',
      ...this.s.extraHeaders,
    });
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
    const rest = this.decoder.push(this.text.end());
    let last: HubChunk[];
    try {
      last = this.decoder.end();
    } catch (err) {
      // Chunks decoded before the failure still reach the client, then the failure is raised.
      if (err instanceof UpstreamStreamError) this.write([...rest, ...err.chunks]);
      throw err;
    }
    this.write([...rest, ...last]);
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
    this.res.writeHead(this.s.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...this.s.extraHeaders,
    });
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
