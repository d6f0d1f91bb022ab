// How an upstream reply becomes the client's reply: bytes passed through untouched when both sides speak the same
// format, or decoded to the hub and encoded in the client's format. Both commit at their first output byte.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { ClientContext, ClientFormat, HubChunk, StreamDecoder, StreamEncoder, WireError } from './formats/hub/index.ts';
import { UpstreamStreamError } from './formats/hub/index.ts';

/** Response headers not copied back to the client. */
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'set-cookie', 'proxy-authenticate']);

export type Usage = { prompt: number | null; completion: number | null };

/** Receives one successful (2xx, or a non-retryable 4xx) upstream reply and writes the client's reply. */
export interface ReplySink {
  /** Bytes from upstream. Returns false when the client's socket wants a pause. Throws UpstreamStreamError. */
  data(chunk: Buffer): boolean;
  /** Upstream ended normally. */
  end(): void;
  /** Upstream failed after the sink was committed: end the client's reply in a way it notices. */
  fail(e: WireError): void;
  readonly committed: boolean;
  usage(): Usage;
}

export type SinkContext = {
  res: ServerResponse;
  status: number;
  headers: IncomingHttpHeaders;
  /** x-switchboard-* headers for the client. */
  extraHeaders: Record<string, string>;
  /** Told once, when the first byte is about to reach the client. */
  committer: { commit(): void };
};

const TAIL_BYTES = 4096;

function usageFromText(text: string): Usage {
  const last = (re: RegExp): number | null => {
    let m: RegExpExecArray | null;
    let v: number | null = null;
    while ((m = re.exec(text))) v = Number(m[1]);
    return v;
  };
  return {
    prompt: last(/"(?:prompt_tokens|input_tokens|promptTokenCount|prompt_eval_count)"\s*:\s*(\d+)/g),
    completion: last(/"(?:completion_tokens|output_tokens|candidatesTokenCount|eval_count)"\s*:\s*(\d+)/g),
  };
}

/**
 * Same format on both sides: upstream bytes go to the client as they come. Streams are cut only at event
 * boundaries (SSE blank line, NDJSON newline) so that an error written after a failure never lands inside a half
 * event; usage is read from the last few KB. A class, as it sits on the hot path (no per-request closures).
 */
export class PassthroughSink implements ReplySink {
  committed = false;
  private readonly boundary: string | null;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private pending: Buffer | null = null;

  constructor(
    private readonly s: SinkContext,
    private readonly client: ClientFormat,
    private readonly ctx: ClientContext,
    private readonly model: string,
  ) {
    const contentType = String(s.headers['content-type'] ?? '');
    this.boundary = contentType.includes('text/event-stream') ? '\n\n' : contentType.includes('ndjson') ? '\n' : null;
  }

  private commit(): void {
    this.committed = true;
    const s = this.s;
    s.committer.commit();
    const out: Record<string, string | string[]> = {};
    for (const name in s.headers) {
      if (DROP_RESPONSE.has(name)) continue;
      const v = s.headers[name];
      if (v !== undefined) out[name] = v;
    }
    Object.assign(out, s.extraHeaders);
    s.res.writeHead(s.status, out);
  }

  data(chunk: Buffer): boolean {
    if (!this.committed) this.commit();
    const tail = this.tail;
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
    return this.s.res.write(out);
  }

  end(): void {
    if (!this.committed) this.commit();
    if (this.pending) this.s.res.write(this.pending);
    this.s.res.end();
  }

  fail(e: WireError): void {
    if (this.boundary) this.s.res.end(this.client.streamEncoder({ ...this.ctx, model: this.model }).error(e));
    else this.s.res.destroy();
  }

  usage(): Usage {
    return usageFromText(Buffer.concat(this.tail).toString('utf8'));
  }
}

function hubUsage(u: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): Usage {
  return { prompt: u?.prompt_tokens ?? null, completion: u?.completion_tokens ?? null };
}

/** A streamed reply in another format: provider stream → hub chunks → the client's stream format. */
export function translatingStreamSink(s: SinkContext, decoder: StreamDecoder, encoder: StreamEncoder): ReplySink {
  const text = new StringDecoder('utf8');
  let committed = false;
  let usage: Usage = { prompt: null, completion: null };
  const commit = () => {
    committed = true;
    s.committer.commit();
    s.res.writeHead(s.status, { 'content-type': encoder.contentType, 'cache-control': 'no-cache', ...s.extraHeaders });
  };
  const write = (chunks: HubChunk[]): boolean => {
    let out = '';
    for (const c of chunks) {
      if (c.usage) usage = hubUsage(c.usage);
      out += encoder.chunk(c);
    }
    if (!out) return true;
    if (!committed) commit();
    return s.res.write(out);
  };
  return {
    get committed() {
      return committed;
    },
    data: (chunk) => write(decoder.push(text.write(chunk))),
    end() {
      write([...decoder.push(text.end()), ...decoder.end()]);
      if (!committed) commit();
      s.res.end(encoder.end());
    },
    fail(e) {
      if (!committed) commit();
      s.res.end(encoder.error(e));
    },
    usage: () => usage,
  };
}

/** A reply read whole, rewritten into the client's format, and written at once (with its usage, if any). */
class WholeBodySink implements ReplySink {
  committed = false;
  private readonly parts: Buffer[] = [];
  private usageSeen: Usage = { prompt: null, completion: null };

  constructor(
    private readonly s: SinkContext,
    private readonly rewrite: (text: string) => { body: string; usage: Usage },
  ) {}

  data(chunk: Buffer): boolean {
    this.parts.push(chunk);
    return true;
  }

  end(): void {
    const { body, usage } = this.rewrite(Buffer.concat(this.parts).toString('utf8'));
    this.usageSeen = usage;
    this.committed = true;
    const s = this.s;
    s.committer.commit();
    s.res.writeHead(s.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...s.extraHeaders });
    s.res.end(body);
  }

  fail(): void {
    this.s.res.destroy();
  }

  usage(): Usage {
    return this.usageSeen;
  }
}

/** A whole (non-stream) reply in another format: collected, converted, written at once. */
export function translatingJsonSink(s: SinkContext, convert: (body: unknown) => unknown): ReplySink {
  return new WholeBodySink(s, (text) => {
    try {
      return { body: JSON.stringify(convert(JSON.parse(text))), usage: usageFromText(text) };
    } catch (err) {
      throw new UpstreamStreamError(`the provider's reply could not be read: ${(err as Error).message}`);
    }
  });
}

/** A provider's own error answer (a non-retryable 4xx) in another format: re-said in the client's error shape. */
export function translatingErrorSink(s: SinkContext, errorMessage: (body: unknown) => string | undefined, client: ClientFormat): ReplySink {
  return new WholeBodySink(s, (text) => {
    let message: string | undefined;
    try {
      message = errorMessage(JSON.parse(text));
    } catch {
      message = text.slice(0, 500);
    }
    const e = wireErrorForStatus(s.status, message || `the provider answered HTTP ${s.status}`);
    return { body: JSON.stringify(client.errorBody(e)), usage: { prompt: null, completion: null } };
  });
}

export function wireErrorForStatus(status: number, message: string): WireError {
  const byStatus: Record<number, [string, string]> = {
    400: ['invalid_request', 'invalid_request_error'],
    401: ['invalid_api_key', 'authentication_error'],
    403: ['permission_denied', 'permission_error'],
    404: ['not_found', 'not_found_error'],
    413: ['body_too_large', 'invalid_request_error'],
    429: ['rate_limited', 'rate_limit_error'],
  };
  const [code, type] = byStatus[status] ?? ['upstream_error', 'upstream_error'];
  return { status, code, type, message };
}
