// multipart/form-data: the text fields of an upload (the model picks the route) and rewriting one field's value.
import { ApiError } from '../server/errors.ts';

export function boundaryOf(contentType: string | undefined): string {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const b = m?.[1] ?? m?.[2];
  if (!contentType?.toLowerCase().startsWith('multipart/form-data') || !b) {
    throw new ApiError('unsupported_media_type', `This endpoint takes multipart/form-data uploads (got "${contentType ?? 'none'}").`, 'Send the file and fields as multipart/form-data, as the OpenAI SDKs do.');
  }
  return b;
}

type Part = { name: string; filename: string | null; valueStart: number; valueEnd: number };

function partsOf(body: Buffer, boundary: string): Part[] {
  const delim = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delim);
  while (pos !== -1) {
    const start = pos + delim.length;
    if (body[start] === 0x2d && body[start + 1] === 0x2d) break; // closing --boundary--
    const headEnd = body.indexOf('\r\n\r\n', start);
    if (headEnd === -1) break;
    const next = body.indexOf(delim, headEnd + 4);
    if (next === -1) break;
    const head = body.subarray(start, headEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    const filename = /filename="([^"]*)"/i.exec(head)?.[1] ?? null;
    if (name !== undefined) parts.push({ name, filename, valueStart: headEnd + 4, valueEnd: next - 2 }); // minus CRLF
    pos = next;
  }
  return parts;
}

/** The text fields (files left out) as an object; `model` among them routes the request. */
export function multipartFields(body: Buffer, contentType: string | undefined): Record<string, string> {
  const boundary = boundaryOf(contentType);
  const out: Record<string, string> = {};
  for (const p of partsOf(body, boundary)) {
    if (p.filename === null) out[p.name] = body.subarray(p.valueStart, p.valueEnd).toString('utf8');
  }
  return out;
}

/** The body with one text field's value replaced (the model, when routing rewrote it). */
export function replaceMultipartField(body: Buffer, name: string, value: string): Buffer {
  // The body's first line is "--<boundary>".
  const eol = body.indexOf('\r\n');
  if (body[0] !== 0x2d || body[1] !== 0x2d || eol < 3) return body;
  const p = partsOf(body, body.subarray(2, eol).toString('latin1')).find((x) => x.name === name && x.filename === null);
  if (!p) return body;
  return Buffer.concat([body.subarray(0, p.valueStart), Buffer.from(value), body.subarray(p.valueEnd)]);
}
