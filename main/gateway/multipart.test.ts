// The streaming multipart parser: fields before and after the file, CRLF edge cases, and every split of the body
// into chunks (a boundary split across chunks included) giving the same fields and value offsets.
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_FIELD_BYTES, MultipartScanner } from './multipart.ts';

const B = 'xYz--boundary--123';
const field = (name: string, value: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (name: string, bytes: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    bytes,
    Buffer.from('\r\n'),
  ]);
const close = `--${B}--\r\n`;
const body = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

function scan(buf: Buffer, chunkSizes: number[] = [buf.length]): MultipartScanner {
  const s = new MultipartScanner(B);
  let pos = 0;
  for (let i = 0; pos < buf.length; i++) {
    const n = chunkSizes[i % chunkSizes.length]!;
    s.write(buf.subarray(pos, pos + n));
    pos += n;
  }
  return s;
}

/** A file whose bytes look like the delimiter's pieces, so a naive search would cut it. */
const tricky = body('\r\n--xYz--bound', '\r\n', '\r\n--', Buffer.alloc(300, 0x2d), `\r\n-${B}`, '\r\r\n\n');

describe('MultipartScanner', () => {
  it("a field after the file (the OpenAI SDKs' order) and fields before it", () => {
    const buf = body(field('prompt', 'a hat'), filePart('file', tricky), field('model', 'whisper-1'), close);
    const s = scan(buf);
    expect(s.fields).toEqual({ prompt: 'a hat', model: 'whisper-1' });
    expect(s.done).toBe(true);
    const [start, end] = s.spans.get('model')!;
    expect(buf.subarray(start, end).toString()).toBe('whisper-1');
  });

  it('a file after the fields, values with CRLFs, an empty value, a part without headers, a preamble', () => {
    const buf = body(
      'preamble text\r\n',
      field('model', 'm'),
      field('prompt', 'line1\r\nline2\r\n'),
      field('empty', ''),
      `--${B}\r\n\r\nnameless\r\n`,
      filePart('image', tricky),
      close,
      'epilogue',
    );
    const s = scan(buf);
    expect(s.fields).toEqual({ model: 'm', prompt: 'line1\r\nline2\r\n', empty: '' });
    const [start, end] = s.spans.get('empty')!;
    expect(end - start).toBe(0);
    expect(s.done).toBe(true);
  });

  it('gives the same result for every split of the body into chunks (boundaries split across chunks)', () => {
    const buf = body(field('prompt', 'p\r\n--x'), filePart('file', tricky), field('model', 'gpt-image-1'), close);
    const whole = scan(buf);
    for (const sizes of [[1], [2], [3], [5, 1], [7, 13], [B.length], [B.length + 3, 1]]) {
      const s = scan(buf, sizes);
      expect(s.fields, `chunks of ${sizes.join(',')}`).toEqual(whole.fields);
      expect([...s.spans]).toEqual([...whole.spans]);
    }
    // Every single cut point, in two chunks.
    for (let cut = 1; cut < buf.length; cut++) {
      const s = new MultipartScanner(B);
      s.write(buf.subarray(0, cut));
      s.write(buf.subarray(cut));
      expect(s.fields, `cut at ${cut}`).toEqual({ prompt: 'p\r\n--x', model: 'gpt-image-1' });
      expect(s.spans.get('model')).toEqual(whole.spans.get('model'));
    }
  });

  it('an unterminated part is not a field; a huge text field is dropped, not held', () => {
    expect(
      scan(body(field('a', '1'), `--${B}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm-without-end`)).fields,
    ).toEqual({ a: '1' });
    const big = scan(body(field('prompt', 'x'.repeat(MAX_TEXT_FIELD_BYTES + 1)), field('model', 'm'), close), [65536]);
    expect(big.fields).toEqual({ model: 'm' });
  });

  it('an empty file part, read in 4-byte chunks', () => {
    const s = scan(body(filePart('file', Buffer.alloc(0)), field('model', 'm'), close), [4]);
    expect(s.fields).toEqual({ model: 'm' });
  });
});
