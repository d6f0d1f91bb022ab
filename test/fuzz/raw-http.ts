// Test support for the fuzz suite: one HTTP/1.1 exchange over a raw socket, so a case can send what fetch and
// node:http refuse to (bad bytes in the request target, duplicate or contradictory Content-Length, a body shorter
// than announced, odd methods, huge headers), and a small response reader (status, headers, body; chunked decoded).
import net from 'node:net';

/** How the body is framed on the wire. */
export type Framing =
  /** Content-Length: the body's length. */
  | 'length'
  /** Transfer-Encoding: chunked, the body in a few chunks. */
  | 'chunked'
  /** No Content-Length, no Transfer-Encoding (the body's bytes then read as a next request). */
  | 'none'
  /** Content-Length larger than the body sent, then the client hangs up (half-close): a client gone mid-body. */
  | 'short'
  /** Content-Length and Transfer-Encoding both (request smuggling's classic). */
  | 'both'
  /** Content-Length twice, with different values. */
  | 'duplicate'
  /** Content-Length that is not a number (`abc`, `-1`, `1e3`...): the value is in `lengthValue`. */
  | 'bad-length'
  /** A chunked body whose chunk size is not hexadecimal. */
  | 'bad-chunk';

export type RawRequest = {
  method: string;
  /** The request target as sent, byte for byte (latin1 string: each char one byte). */
  target: string;
  /** Header lines in order, sent as given (latin1); Host and Connection are added when absent. */
  headers: [string, string][];
  body: Buffer;
  framing: Framing;
  lengthValue?: string;
  /** Send no Host header at all. */
  noHost?: boolean;
  /** Lines added to the head verbatim (a header line without a colon...). */
  extraLines?: string[];
};

export type RawResponse = {
  status: number;
  headers: Record<string, string>;
  /** Repeated headers, as sent (lower-case names). */
  rawHeaders: [string, string][];
  body: Buffer;
};

export type Exchange =
  | { kind: 'response'; response: RawResponse; ms: number }
  /** The server closed (or reset) the connection without a status line. */
  | { kind: 'closed'; error: string | null; ms: number }
  /** No complete answer in time. */
  | { kind: 'timeout'; partial: string; ms: number };

export type ExchangeOptions = {
  /** Give up after this long without a complete answer (default 20 s). */
  timeoutMs?: number;
  /** An event stream (text/event-stream) is read until it has been quiet this long, then closed (default 1 s). */
  streamIdleMs?: number;
  /**
   * Send `Connection: keep-alive` (as SDKs do) instead of `close`: the answer is taken as soon as it is whole. A
   * server that answers before reading a whole body (a 413) then drains it rather than resetting the connection
   * under a client still sending, which would lose the answer in the client's kernel.
   */
  keepAlive?: boolean;
};

const CRLF = '\r\n';

function head(req: RawRequest, host: string, keepAlive: boolean): string {
  const lines = [`${req.method} ${req.target} HTTP/1.1`];
  const names = new Set(req.headers.map(([k]) => k.toLowerCase()));
  if (!names.has('host') && !req.noHost) lines.push(`Host: ${host}`);
  if (!names.has('connection')) lines.push(keepAlive ? 'Connection: keep-alive' : 'Connection: close');
  for (const [k, v] of req.headers) lines.push(`${k}: ${v}`);
  lines.push(...(req.extraLines ?? []));
  const n = req.body.length;
  switch (req.framing) {
    case 'length':
      if (n > 0 || req.method !== 'GET') lines.push(`Content-Length: ${n}`);
      break;
    case 'chunked':
    case 'bad-chunk':
      lines.push('Transfer-Encoding: chunked');
      break;
    case 'short':
      lines.push(`Content-Length: ${n + 1 + (n % 97)}`);
      break;
    case 'both':
      lines.push(`Content-Length: ${n}`, 'Transfer-Encoding: chunked');
      break;
    case 'duplicate':
      lines.push(`Content-Length: ${n}`, `Content-Length: ${n + 7}`);
      break;
    case 'bad-length':
      lines.push(`Content-Length: ${req.lengthValue ?? 'abc'}`);
      break;
    case 'none':
      break;
  }
  return lines.join(CRLF) + CRLF + CRLF;
}

/** The body as chunks of about a third each (chunked framing); a bad chunk size on demand. */
function chunked(body: Buffer, bad: boolean): Buffer {
  const parts: Buffer[] = [];
  const size = Math.max(1, Math.ceil(body.length / 3));
  for (let i = 0; i < body.length; i += size) {
    const piece = body.subarray(i, i + size);
    const len = bad && i === 0 ? 'zz' : piece.length.toString(16);
    parts.push(Buffer.from(len + CRLF, 'latin1'), piece, Buffer.from(CRLF, 'latin1'));
  }
  parts.push(Buffer.from(`0${CRLF}${CRLF}`, 'latin1'));
  return Buffer.concat(parts);
}

/** The bytes a request puts on the wire. */
export function encodeRequest(req: RawRequest, host: string, keepAlive = false): Buffer {
  const h = Buffer.from(head(req, host, keepAlive), 'latin1');
  const framed = req.framing === 'chunked' || req.framing === 'bad-chunk' || req.framing === 'both';
  const body = framed ? chunked(req.body, req.framing === 'bad-chunk') : req.body;
  return Buffer.concat([h, body]);
}

/** An interim answer's status line (1xx but 101, which ends the HTTP part of a WebSocket handshake). */
const INTERIM = /^HTTP\/1\.[01] 1(?!01)\d\d/;

/** Parses a whole HTTP/1.1 response (status line, headers, body by chunked / Content-Length / until close). */
export function parseResponse(whole: Buffer, method: string): RawResponse | null {
  let buf = whole;
  // Interim answers (100 Continue to Expect: 100-continue) come before the real one; 101 Switching Protocols is final.
  while (INTERIM.test(buf.subarray(0, 12).toString('latin1'))) {
    const next = buf.indexOf('\r\n\r\n');
    if (next === -1) return null;
    buf = buf.subarray(next + 4);
  }
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const lines = buf.subarray(0, end).toString('latin1').split(CRLF);
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!m) return null;
  const status = Number(m[1]);
  const headers: Record<string, string> = {};
  const rawHeaders: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const k = line.slice(0, colon).trim().toLowerCase();
    const v = line.slice(colon + 1).trim();
    rawHeaders.push([k, v]);
    headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
  }
  let rest = buf.subarray(end + 4);
  // After a 101 the bytes are WebSocket frames, not a body.
  if (method === 'HEAD' || status === 101 || status === 204 || status === 304) rest = Buffer.alloc(0);
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) rest = dechunk(rest);
  else if (headers['content-length'] !== undefined) rest = rest.subarray(0, Number(headers['content-length']));
  return { status, headers, rawHeaders, body: rest };
}

/** Whether `buf` holds a whole answer: its head, and its body by Content-Length or up to the last chunk. */
export function isWhole(buf: Buffer, method: string): boolean {
  let rest = buf;
  while (INTERIM.test(rest.subarray(0, 12).toString('latin1'))) {
    const next = rest.indexOf('\r\n\r\n');
    if (next === -1) return false;
    rest = rest.subarray(next + 4);
  }
  const end = rest.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const headText = rest.subarray(0, end).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headText)?.[1] ?? 0);
  if (method === 'HEAD' || status === 101 || status === 204 || status === 304) return true;
  const body = rest.subarray(end + 4);
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(headText)) return /(^|\r\n)0\r\n\r\n$/.test(body.toString('latin1'));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(headText);
  return length !== null && body.length >= Number(length[1]);
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    const eol = buf.indexOf('\r\n', i);
    if (eol === -1) break;
    const size = parseInt(buf.subarray(i, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * Sends one request on a fresh connection (Connection: close) and reads the answer until the server closes it. An
 * event stream is read until it goes quiet (then closed by us). A `short` body is followed by a half-close.
 */
export function exchange(port: number, req: RawRequest, opts: ExchangeOptions = {}): Promise<Exchange> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const streamIdleMs = opts.streamIdleMs ?? 1_000;
  const keepAlive = opts.keepAlive ?? false;
  const t0 = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    let idle: NodeJS.Timeout | undefined;
    let streamEnds: NodeJS.Timeout | undefined;
    const socket = net.connect({ port, host: '127.0.0.1' });
    const finish = (error: string | null, timedOut = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(idle);
      clearTimeout(streamEnds);
      socket.destroy();
      const buf = Buffer.concat(chunks);
      const ms = Date.now() - t0;
      const response = parseResponse(buf, req.method);
      if (response) return resolve({ kind: 'response', response, ms });
      if (timedOut) return resolve({ kind: 'timeout', partial: buf.subarray(0, 300).toString('latin1'), ms });
      resolve({ kind: 'closed', error, ms });
    };
    const timer = setTimeout(() => finish(null, true), timeoutMs);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      const sofar = Buffer.concat(chunks);
      if (isWhole(sofar, req.method)) return finish(null);
      const end = sofar.indexOf('\r\n\r\n');
      if (end !== -1 && /content-type:\s*text\/event-stream/i.test(sofar.subarray(0, end).toString('latin1'))) {
        // An open event stream (the agent API's events, the admin log stream) is read for a while, then left.
        clearTimeout(idle);
        idle = setTimeout(() => finish(null), streamIdleMs);
        streamEnds ??= setTimeout(() => finish(null), streamIdleMs * 3);
      }
    });
    socket.on('end', () => finish(null));
    socket.on('close', () => finish(null));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // The server may answer and close before reading the whole body (a 413 on Content-Length): keep what came.
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') return finish(err.code);
      finish(err.message);
    });
    socket.once('connect', () => {
      socket.write(encodeRequest(req, `127.0.0.1:${port}`, keepAlive), () => {
        if (req.framing === 'short') socket.end();
      });
    });
  });
}
