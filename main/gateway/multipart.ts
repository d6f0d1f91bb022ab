// multipart/form-data uploads, streamed: the upload is spooled to an owner-only temp file while a streaming
// parser picks out the text fields (the model routes the request) without holding the file part in memory; each
// candidate then gets the body streamed back from the file, with the model field's value rewritten on the way out
// when routing changed it.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { UploadBody } from '../proxy/forward/index.ts';
import { ApiError } from '../errors.ts';
import type { SpooledBody } from '../proxy/door.ts';

export function boundaryOf(contentType: string | undefined): string {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const b = m?.[1] ?? m?.[2];
  if (!isMultipart(contentType) || !b) {
    throw new ApiError(
      'unsupported_media_type',
      `This endpoint takes multipart/form-data uploads (got "${contentType ?? 'none'}").`,
      'Send the file and fields as multipart/form-data, as the OpenAI SDKs do.',
    );
  }
  return b;
}

export const isMultipart = (contentType: string | undefined): boolean =>
  contentType?.toLowerCase().startsWith('multipart/form-data') === true;

/** A text field larger than this is not kept (nor counted for the TPM estimate); its bytes are forwarded as sent. */
export const MAX_TEXT_FIELD_BYTES = 4 << 20;
/** A part's header block larger than this is refused as malformed. */
const MAX_HEADER_BYTES = 16 << 10;

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

type State = 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'done';

/**
 * A push parser: write() the body's chunks in order (split anywhere), read `fields` (text parts, by name; the last
 * of a repeated name wins) and `spans` (each text field's value as [start, end) byte offsets in the body). File
 * parts (those with a filename) are skipped, never held. A part counts once its closing delimiter is seen.
 */
export class MultipartScanner {
  readonly fields: Record<string, string> = {};
  readonly spans = new Map<string, [number, number]>();
  private readonly delimiter: Buffer;
  /** Bytes not yet consumed; `base` is the body offset of pending[0]. The body is read as if preceded by CRLF. */
  private pending: Buffer = CRLF;
  private base = -2;
  private state: State = 'preamble';
  private part: { name: string | null; file: boolean; start: number; chunks: Buffer[]; size: number } | null = null;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  get done(): boolean {
    return this.state === 'done';
  }

  write(chunk: Buffer): void {
    if (this.state === 'done') return;
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      if (this.state === 'preamble' || this.state === 'body') {
        const at = buf.indexOf(this.delimiter, pos);
        if (at === -1) {
          // Everything but a possible partial delimiter at the end is part data (or preamble).
          const safe = Math.max(pos, buf.length - this.delimiter.length + 1);
          if (this.state === 'body') this.partData(buf.subarray(pos, safe));
          pos = safe;
          break;
        }
        if (this.state === 'body') {
          this.partData(buf.subarray(pos, at));
          this.endPart(this.base + at);
        }
        pos = at + this.delimiter.length;
        this.state = 'afterDelimiter';
      } else if (this.state === 'afterDelimiter') {
        // "--" closes the body; otherwise optional transport padding, then CRLF, then a part's headers.
        if (buf.length - pos < 2) break;
        if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) {
          this.state = 'done';
          pos = buf.length;
          break;
        }
        const eol = buf.indexOf(CRLF, pos);
        if (eol === -1) {
          if (buf.length - pos > 256) throw malformed('the line after a boundary is too long');
          break;
        }
        if (buf.subarray(pos, eol).toString('latin1').trim() !== '')
          throw malformed('unexpected bytes after a boundary');
        pos = eol + 2;
        this.state = 'headers';
      } else if (this.state === 'headers') {
        // A part may have no headers at all: then the blank line comes at once.
        const end = buf[pos] === 0x0d && buf[pos + 1] === 0x0a ? pos - 2 : buf.indexOf(HEADER_END, pos);
        if (end === -1) {
          if (buf.length - pos > MAX_HEADER_BYTES) throw malformed("a part's headers are too long");
          break;
        }
        const head = end < pos ? '' : buf.subarray(pos, end).toString('utf8');
        const name = /\bname="([^"]*)"/i.exec(head)?.[1] ?? null;
        const file = /\bfilename\*?=/i.test(head);
        pos = end + 4;
        this.part = { name, file, start: this.base + pos, chunks: [], size: 0 };
        this.state = 'body';
      } else break;
    }
    this.base += pos;
    buf = buf.subarray(pos);
    // Keep the small unconsumed tail as a copy so the caller's chunk is not retained.
    this.pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
  }

  private partData(data: Buffer): void {
    const p = this.part;
    if (!p || p.file || p.name === null || data.length === 0) return;
    p.size += data.length;
    if (p.size > MAX_TEXT_FIELD_BYTES) {
      p.name = null; // too large for a text field: forwarded, not read
      p.chunks = [];
      return;
    }
    p.chunks.push(Buffer.from(data));
  }

  private endPart(end: number): void {
    const p = this.part;
    this.part = null;
    if (!p || p.file || p.name === null) return;
    this.fields[p.name] = Buffer.concat(p.chunks, p.size).toString('utf8');
    this.spans.set(p.name, [p.start, end]);
  }
}

const malformed = (why: string): ApiError =>
  new ApiError(
    'invalid_request',
    `The multipart/form-data body is malformed: ${why}.`,
    'Send the file and fields as multipart/form-data, as the OpenAI SDKs do.',
  );

const tooLarge = (limit: number): ApiError =>
  new ApiError(
    'body_too_large',
    `The request body is larger than the limit of ${Math.round(limit / 1048576)} MB.`,
    'Send a smaller request, or raise max_body_mb in config.json.',
  );

/** Streams a byte range of a file ([start, end), possibly empty). */
async function* fileRange(file: string, start: number, end: number): AsyncGenerator<Buffer> {
  if (end <= start) return;
  yield* fs.createReadStream(file, { start, end: end - 1 }) as AsyncIterable<Buffer>;
}

async function* splice(file: string, size: number, span: [number, number], value: Buffer): AsyncGenerator<Buffer> {
  yield* fileRange(file, 0, span[0]);
  yield value;
  yield* fileRange(file, span[1], size);
}

/** An upload spooled to disk: its text fields, a fresh body stream per attempt, and removal of the file. */
class SpooledUpload implements SpooledBody {
  constructor(
    readonly file: string,
    readonly size: number,
    readonly fields: Record<string, string>,
    private readonly spans: Map<string, [number, number]>,
  ) {}

  withModel(model: string): UploadBody {
    const { file, size } = this;
    const span = this.fields.model === model ? undefined : this.spans.get('model');
    if (!span) return { length: size, open: () => fs.createReadStream(file) };
    const value = Buffer.from(model);
    return {
      length: size - (span[1] - span[0]) + value.length,
      open: () => Readable.from(splice(file, size, span, value)),
    };
  }

  dispose(): void {
    fs.rm(this.file, { force: true }, () => {});
  }
}

/**
 * Reads a multipart upload into an owner-only temp file (os.tmpdir()) while parsing its text fields; the size
 * limit applies as it streams (413). The file is removed on any failure here, and by dispose() after the request.
 */
export async function spoolUpload(req: IncomingMessage, limitBytes: number): Promise<SpooledBody> {
  let boundary: string;
  try {
    boundary = boundaryOf(req.headers['content-type']);
    if (Number(req.headers['content-length']) > limitBytes) throw tooLarge(limitBytes);
  } catch (err) {
    req.resume();
    throw err;
  }
  const scanner = new MultipartScanner(boundary);
  const file = path.join(os.tmpdir(), `switchboard-upload-${randomUUID()}`);
  let size = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
      let failed = false;
      const fail = (err: unknown) => {
        if (failed) return;
        failed = true;
        req.off('data', onData);
        req.resume(); // drain the rest so the error reply can still be sent
        out.destroy();
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limitBytes) return fail(tooLarge(limitBytes));
        try {
          scanner.write(chunk);
        } catch (err) {
          return fail(err);
        }
        if (!out.write(chunk)) {
          req.pause();
          out.once('drain', () => req.resume());
        }
      };
      req.on('data', onData);
      req.once('end', () => {
        if (!failed) out.end();
      });
      req.once('error', fail);
      req.once('close', () => {
        if (!req.complete)
          fail(new ApiError('client_closed_request', 'The client closed the connection during the upload.'));
      });
      out.once('error', fail);
      out.once('finish', () => {
        if (!failed) resolve();
      });
    });
  } catch (err) {
    fs.rm(file, { force: true }, () => {});
    throw err;
  }
  return new SpooledUpload(file, size, scanner.fields, scanner.spans);
}
