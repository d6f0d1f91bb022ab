// A request body, read once for every route: bounded as it streams (413 as soon as the limit is crossed, a declared
// Content-Length over it before a byte is read), parsed as JSON with errors a client can act on; the content type a
// browser must declare on a JSON route; and what a failure while reading means (the client's hang-up is a 499).
import { IncomingMessage, type IncomingHttpHeaders } from 'node:http';
import { ApiError, toApiError } from '../errors.ts';

/** The fixed cap of the JSON APIs that never carry a model payload: the admin API, the agent API, /api/show. */
export const API_BODY_BYTES = 2 * 1024 * 1024;
const API_BODY_FIX = 'Send a smaller request: the admin and agent APIs take bodies of 2 MB at most.';
const MAX_BODY_FIX = 'Send a smaller request, or raise max_body_mb in config.json.';
/** After a 413, the rest of the body is read and dropped this long (so the client reads the answer), then cut. */
const LINGER_MS = 5_000;

export function readBody(req: IncomingMessage, limitBytes: number, fix = MAX_BODY_FIX): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limitBytes) {
    discardRest(req);
    return Promise.reject(tooLarge(limitBytes, fix));
  }
  // With a Content-Length, the body is whole at its last byte: resolved there, not a tick later at 'end' (~10-20 µs
  // before the request can be forwarded). Node's parser never passes more bytes than the length says.
  const whole = declared >= 0 ? declared : -1; // NaN (no Content-Length): at 'end'
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    // Anonymous callbacks, not named consts: tsx's keepNames would rename a named one on every request.
    req.on('data', (chunk: Buffer) => {
      if (size < 0) return;
      size += chunk.length;
      if (size > limitBytes) {
        size = -1;
        chunks.length = 0;
        discardRest(req);
        reject(tooLarge(limitBytes, fix));
        return;
      }
      chunks.push(chunk);
      if (size === whole) {
        done = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      }
    });
    req.once('end', () => {
      if (size >= 0 && !done) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    // The listener's body idle timeout also arrives here (an ApiError request_timeout): see listener.ts.
    req.once('error', reject);
  });
}

type RouteContext = { env: unknown; req: { raw: Request } };

/**
 * The body of a JSON route on Hono (a browser's must be declared JSON): the Node request when there is one (serve),
 * else the web Request (app.request in tests), bounded the same way.
 */
export async function readRouteBody(c: RouteContext, limitBytes: number, fix = MAX_BODY_FIX): Promise<Buffer> {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (incoming instanceof IncomingMessage) {
    checkBrowserJson(incoming.headers);
    return readBody(incoming, limitBytes, fix);
  }
  const raw = c.req.raw;
  const headers: IncomingHttpHeaders = {};
  raw.headers.forEach((value, name) => (headers[name] = value));
  checkBrowserJson(headers);
  if (Number(raw.headers.get('content-length')) > limitBytes) throw tooLarge(limitBytes, fix);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = raw.body?.getReader();
  for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
    size += r.value.length;
    if (size > limitBytes) {
      void reader!.cancel();
      throw tooLarge(limitBytes, fix);
    }
    chunks.push(Buffer.from(r.value));
  }
  return Buffer.concat(chunks, size);
}

/** The body of an admin or agent API route (or /api/show): API_BODY_BYTES at most. */
export function readApiBody(c: RouteContext): Promise<Buffer> {
  return readRouteBody(c, API_BODY_BYTES, API_BODY_FIX);
}

/** Drops what is left of a refused body, then closes the connection if it is still coming after LINGER_MS. */
function discardRest(req: IncomingMessage): void {
  req.resume();
  if (req.complete) return;
  const timer = setTimeout(() => req.socket?.destroy(), LINGER_MS).unref();
  req.once('end', () => clearTimeout(timer));
}

function sizeText(bytes: number): string {
  return bytes >= 1048576 ? `${+(bytes / 1048576).toFixed(2)} MB` : `${+(bytes / 1024).toFixed(1)} KB`;
}

function tooLarge(limit: number, fix: string): ApiError {
  return new ApiError('body_too_large', `The request body is larger than the limit of ${sizeText(limit)}.`, fix);
}

/**
 * What a failure while handling a request means for its log and its answer: the client's own hang-up before its
 * body was whole is 499 client_closed_request (logged at info, never sent: nobody is listening); anything else is
 * toApiError's.
 */
export function requestError(err: unknown, req: IncomingMessage | undefined): ApiError {
  if (!(err instanceof ApiError) && (err as { code?: unknown })?.code === 'ECONNRESET' && req && !req.complete)
    return new ApiError('client_closed_request', 'The client closed the connection before sending its whole request.');
  return toApiError(err);
}

/** application/json, or any +json type (application/vnd.api+json), with or without parameters. */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const semi = value.indexOf(';');
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * A browser page may send a body without a CORS preflight only as text/plain, x-www-form-urlencoded or
 * multipart/form-data (or with no type: a Blob). On a JSON route, a request with a browser's signs (an Origin, sent
 * on every POST, or Sec-Fetch-Site) and a body must declare JSON: 415 otherwise. Without them (curl -d sends
 * x-www-form-urlencoded; Node's fetch sends Sec-Fetch-Mode only) any content type is read as JSON, as before.
 */
export function checkBrowserJson(headers: IncomingHttpHeaders): void {
  if (headers.origin === undefined && headers['sec-fetch-site'] === undefined) return;
  if (headers['content-length'] === '0' || (!headers['content-length'] && !headers['transfer-encoding'])) return;
  const type = headers['content-type'];
  if (isJsonContentType(type)) return;
  throw new ApiError(
    'unsupported_media_type',
    `A browser page's request to this route must carry a JSON body declared as such; it said ${type ? `Content-Type: ${type}` : 'no Content-Type'}.`,
    'Send the body with Content-Type: application/json (a page of another origin also needs to be in allowed_origins).',
  );
}

/**
 * The deepest nesting a request body may have. Real requests stay far below it (the captured tools' requests reach 13
 * levels, a deep tool schema a few dozen); far deeper JSON parses, but every reader after it that recurses
 * (structuredClone, JSON.stringify, the translations) overflows the stack near 8,000 levels: a 500 before this check.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * How deep a JSON text nests, stopping as soon as it passes `max`: one pass over the bytes outside strings. A string
 * is jumped over with the native byte search for its closing quote (one not preceded by an odd run of backslashes),
 * so the JavaScript loop only walks the structure: a real tool request (100 KB, mostly strings) takes tens of µs, not
 * the 400 µs a byte-by-byte walk took, on the path to the first byte. Brackets in a text that is not JSON are counted
 * too; JSON.parse says what is wrong.
 */
export function jsonDepthExceeds(body: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const n = buf.length;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const b = buf[i]!;
    if (b === 0x22) {
      let end = i;
      for (;;) {
        end = buf.indexOf(0x22, end + 1);
        if (end === -1) return false; // an unterminated string: JSON.parse says so
        let k = end - 1;
        while (buf[k] === 0x5c) k--; // stops at the opening quote at the latest
        if ((end - 1 - k) % 2 === 0) break; // an even run of backslashes: this quote ends the string
      }
      i = end;
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}

/**
 * JSON.parse, refusing first a body nested deeper than MAX_JSON_DEPTH (a SyntaxError saying so, as JSON.parse's own
 * errors are): every route that reads a JSON body parses it here.
 */
export function parseJsonBounded(body: Buffer): unknown {
  if (jsonDepthExceeds(body)) {
    throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
  }
  return JSON.parse(body.toString('utf8'));
}

export function parseJson(body: Buffer): unknown {
  if (body.length === 0) {
    throw new ApiError(
      'invalid_json',
      'The request body is empty; a JSON object was expected.',
      'Send a JSON body with Content-Type: application/json.',
    );
  }
  try {
    return parseJsonBounded(body);
  } catch (err) {
    throw new ApiError(
      'invalid_json',
      `The request body is not valid JSON: ${(err as Error).message}.`,
      'Send a well-formed JSON object with Content-Type: application/json.',
    );
  }
}
