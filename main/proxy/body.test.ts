// The one body reader (issue 13, items 3 and 8): the content type a browser must declare on a JSON route, what a
// failure while reading means (a hang-up is 499, a malformed path a 400), and the bound on the web-Request side.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError, toApiError } from '../errors.ts';
import {
  API_BODY_BYTES,
  checkBrowserJson,
  isJsonContentType,
  jsonDepthExceeds,
  MAX_JSON_DEPTH,
  readApiBody,
  readBody,
  readRouteBody,
  requestError,
} from './body.ts';

const codeOf = (f: () => void) => {
  try {
    f();
    return null;
  } catch (err) {
    return (err as ApiError).code;
  }
};

describe('isJsonContentType', () => {
  it('application/json and +json types, with parameters, in any case', () => {
    for (const t of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/vnd.api+json',
      ' application/json ',
    ])
      expect(isJsonContentType(t)).toBe(true);
    for (const t of [undefined, '', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'text/json+x'])
      expect(isJsonContentType(t)).toBe(false);
  });
});

describe('checkBrowserJson', () => {
  const body = { 'content-length': '12' };
  it('a browser (Origin or Sec-Fetch-Site) with a body that is not declared JSON: 415', () => {
    expect(codeOf(() => checkBrowserJson({ ...body, origin: 'http://x', 'content-type': 'text/plain' }))).toBe(
      'unsupported_media_type',
    );
    expect(codeOf(() => checkBrowserJson({ ...body, 'sec-fetch-site': 'same-origin' }))).toBe('unsupported_media_type');
    expect(
      codeOf(() =>
        checkBrowserJson({ 'transfer-encoding': 'chunked', origin: 'http://x', 'content-type': 'multipart/form-data' }),
      ),
    ).toBe('unsupported_media_type');
  });

  it('not a browser (curl -d, Node’s fetch with Sec-Fetch-Mode only), no body, or JSON declared: passes', () => {
    expect(codeOf(() => checkBrowserJson({ ...body, 'content-type': 'application/x-www-form-urlencoded' }))).toBeNull();
    expect(
      codeOf(() => checkBrowserJson({ ...body, 'sec-fetch-mode': 'cors', 'content-type': 'text/plain' })),
    ).toBeNull();
    expect(codeOf(() => checkBrowserJson({ origin: 'http://x', 'content-length': '0' }))).toBeNull();
    expect(codeOf(() => checkBrowserJson({ origin: 'http://x' }))).toBeNull();
    expect(
      codeOf(() => checkBrowserJson({ ...body, origin: 'http://x', 'content-type': 'application/json' })),
    ).toBeNull();
  });
});

describe('requestError', () => {
  const req = (complete: boolean) => Object.assign(new IncomingMessage(new Socket()), { complete });
  const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

  it('the client’s hang-up before its body was whole: 499 client_closed_request', () => {
    expect(requestError(reset, req(false))).toMatchObject({ code: 'client_closed_request', status: 499 });
  });

  it('anything else as toApiError: a reset after the body was whole, a bug, an ApiError as it is', () => {
    expect(requestError(reset, req(true)).code).toBe('internal_error');
    expect(requestError(new TypeError('x'), req(false)).code).toBe('internal_error');
    const e = new ApiError('request_timeout', 'slow');
    expect(requestError(e, req(false))).toBe(e);
  });

  it('a malformed percent-encoding (URIError) is the client’s 400 invalid_request, not a 500', () => {
    let err: unknown;
    try {
      decodeURIComponent('%ZZ');
    } catch (e) {
      err = e;
    }
    expect(toApiError(err)).toMatchObject({ code: 'invalid_request', status: 400 });
  });
});

describe('readRouteBody without a Node request (app.request)', () => {
  const ctx = (body: string | Uint8Array, headers: Record<string, string> = {}) => ({
    env: {},
    req: { raw: new Request('http://x/', { method: 'POST', body, headers }) },
  });

  it('reads the body; 413 when it streams past the limit', async () => {
    expect((await readRouteBody(ctx('{"a":1}'), 100)).toString()).toBe('{"a":1}');
    await expect(readRouteBody(ctx('x'.repeat(200)), 100)).rejects.toMatchObject({ code: 'body_too_large' });
  });

  it('the admin and agent APIs: 2 MB, said in the message', async () => {
    const err = await readApiBody(ctx(new Uint8Array(API_BODY_BYTES + 1))).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'body_too_large', status: 413 });
    expect((err as ApiError).message).toContain('2 MB');
  });
});

describe('jsonDepthExceeds (issue 17: off the first byte’s path)', () => {
  /** The byte-by-byte walk it replaced: the reference its answers must equal. */
  const reference = (body: Uint8Array, max: number): boolean => {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < body.length; i++) {
      const b = body[i]!;
      if (inString) {
        if (b === 0x5c) i++;
        else if (b === 0x22) inString = false;
      } else if (b === 0x22) inString = true;
      else if (b === 0x5b || b === 0x7b) {
        if (++depth > max) return true;
      } else if (b === 0x5d || b === 0x7d) depth--;
    }
    return false;
  };
  const of = (text: string) => Buffer.from(text);

  it('counts only brackets outside strings, with escaped quotes and runs of backslashes', () => {
    expect(jsonDepthExceeds(of('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)))).toBe(false);
    expect(jsonDepthExceeds(of('['.repeat(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(jsonDepthExceeds(of(`{"a":"${'['.repeat(500)}"}`))).toBe(false);
    // \" does not end the string: the brackets after it are still inside.
    expect(jsonDepthExceeds(of(`{"a":"\\"${'['.repeat(500)}"}`))).toBe(false);
    // \\" does: the backslash is escaped, the quote closes the string, the brackets after it count.
    expect(jsonDepthExceeds(of(`["\\\\"${',['.repeat(200)}`))).toBe(true);
    expect(jsonDepthExceeds(of(`["\\\\\\"${',['.repeat(200)}"]`))).toBe(false);
    expect(jsonDepthExceeds(of(`{"unterminated": "${'['.repeat(500)}`))).toBe(false);
    // A Uint8Array that is not a Buffer, and a view into a larger buffer.
    const inner = new Uint8Array(of(`xx${'{'.repeat(MAX_JSON_DEPTH + 1)}`)).subarray(2);
    expect(jsonDepthExceeds(inner)).toBe(true);
  });

  it('answers as the byte-by-byte walk did, for real tool requests and for random text', () => {
    for (const file of [
      'claude-code/tool-loop-sonnet.json',
      'cline/native-tools-gpt-5.json',
      'aider/whole-edit-format.json',
    ]) {
      const body = readFileSync(new URL(`../../test/fixtures/real/${file}`, import.meta.url));
      for (const max of [1, 5, 10, 20, MAX_JSON_DEPTH]) expect(jsonDepthExceeds(body, max)).toBe(reference(body, max));
    }
    const pieces = fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ',', ':', ' ');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 80 }), fc.integer({ min: 0, max: 6 }), (chars, max) => {
        const body = of(chars.join(''));
        expect(jsonDepthExceeds(body, max)).toBe(reference(body, max));
      }),
      { numRuns: 3000, seed: 17 },
    );
    fc.assert(
      fc.property(fc.json({ depthSize: 'large' }), fc.integer({ min: 1, max: 8 }), (text, max) => {
        expect(jsonDepthExceeds(of(text), max)).toBe(reference(of(text), max));
      }),
      { numRuns: 500, seed: 17 },
    );
  });
});

describe('readBody', () => {
  /** A request whose body is pushed by hand: `end` is never pushed unless the test says so. */
  const incoming = (headers: Record<string, string>) => {
    const req = new IncomingMessage(new Socket());
    req.headers = headers;
    return req;
  };
  const settled = async (p: Promise<Buffer>) =>
    Promise.race([p.then((b) => b.toString()), new Promise<'pending'>((r) => setTimeout(() => r('pending'), 50))]);

  it('with a Content-Length, resolves at the body’s last byte, without waiting for the end of the stream', async () => {
    const req = incoming({ 'content-length': '11' });
    const body = readBody(req, 1024);
    req.push(Buffer.from('hello '));
    expect(await settled(body)).toBe('pending');
    req.push(Buffer.from('world'));
    expect(await settled(body)).toBe('hello world');
    req.push(null); // the end coming later changes nothing
    expect((await body).toString()).toBe('hello world');
  });

  it('without a Content-Length (chunked), resolves at the end of the stream', async () => {
    const req = incoming({ 'transfer-encoding': 'chunked' });
    const body = readBody(req, 1024);
    req.push(Buffer.from('{"a":'));
    req.push(Buffer.from('1}'));
    expect(await settled(body)).toBe('pending');
    req.push(null);
    expect((await body).toString()).toBe('{"a":1}');
  });

  it('an empty body with Content-Length 0 resolves at the end; a body past the limit is refused', async () => {
    const empty = incoming({ 'content-length': '0' });
    const none = readBody(empty, 1024);
    empty.push(null);
    expect((await none).length).toBe(0);
    const big = incoming({ 'transfer-encoding': 'chunked' });
    const refused = readBody(big, 4);
    big.push(Buffer.from('12345'));
    await expect(refused).rejects.toMatchObject({ code: 'body_too_large' });
  });
});
