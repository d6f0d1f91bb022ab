import { crc32c } from '@node-rs/crc32';
import { describe, expect, it } from 'vitest';
import {
  decodeFrame,
  encodeRecord,
  findNextFrame,
  HEADER_BYTES,
  headerCrc,
  maskCrc,
  prepareFrame,
  readFrameAt,
  sealFrameRun,
} from './framing.ts';

describe('framing', () => {
  it('uses CRC-32C (Castagnoli) from @node-rs/crc32', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283); // the standard check value
    expect(maskCrc(0)).toBe(0xa282ead8);
  });

  it("computes a header's CRC in JS exactly as the native crc32c does, so logs written before still read", () => {
    const buf = Buffer.alloc(HEADER_BYTES + 40);
    for (let round = 0; round < 500; round++) {
      for (let i = 0; i < buf.length; i++) buf[i] = Math.floor(Math.random() * 256);
      const at = round % 9;
      expect(headerCrc(buf, at)).toBe(maskCrc(crc32c(buf.subarray(at + 8, at + HEADER_BYTES))));
    }
    const text = Buffer.alloc(HEADER_BYTES);
    text.write('123456789', 8, 'latin1'); // the check value again, on bytes 8..16 followed by zeros
    expect(headerCrc(text, 0)).toBe(maskCrc(crc32c(text.subarray(8))));
  });

  it('round-trips numeric and named types with bytes, text and JSON data', () => {
    const cases = [
      { type: 0, data: Buffer.from([0, 1, 2, 255]) },
      { type: 0xffffffff, data: new Uint8Array([9, 8, 7]) },
      { type: 'task.created', data: 'héllo ✓' },
      { type: 't', data: { id: 'tsk_1', n: [1, 2, 3], nested: { ok: true } } },
      { type: 42, data: null },
      { type: 'empty', data: '' },
    ];
    let seq = 2 ** 40 + 5; // seqs above 2^32 use the high word
    for (const record of cases) {
      const frame = encodeRecord(record, seq);
      expect(readFrameAt(frame, 0)).toEqual({ kind: 'ok', seq, end: frame.length });
      const decoded = decodeFrame(frame, 0);
      expect(decoded.seq).toBe(seq);
      expect(decoded.type).toBe(record.type);
      if (record.data instanceof Uint8Array)
        expect(Buffer.compare(decoded.data as Buffer, Buffer.from(record.data))).toBe(0);
      else expect(decoded.data).toEqual(record.data);
      seq += 1;
    }
  });

  it('rejects records it cannot store', () => {
    expect(() => prepareFrame({ type: -1, data: 'x' })).toThrow(RangeError);
    expect(() => prepareFrame({ type: 1.5, data: 'x' })).toThrow(RangeError);
    expect(() => prepareFrame({ type: '', data: 'x' })).toThrow(RangeError);
    expect(() => prepareFrame({ type: 'x'.repeat(256), data: 'x' })).toThrow(RangeError);
    expect(() => prepareFrame({ type: true as unknown as string, data: 'x' })).toThrow(TypeError);
    expect(() => prepareFrame({ type: 1, data: undefined })).toThrow(TypeError);
    expect(() => prepareFrame({ type: 1, data: () => 1 })).toThrow(TypeError);
  });

  it('numbers a run of frames in place', () => {
    const frames = [prepareFrame({ type: 1, data: 'a' }), prepareFrame({ type: 'b', data: { b: 1 } })];
    const run = Buffer.concat(frames);
    expect(sealFrameRun(run, run.length, 7)).toBe(2);
    const first = readFrameAt(run, 0);
    expect(first).toMatchObject({ kind: 'ok', seq: 7 });
    expect(readFrameAt(run, first.kind === 'ok' ? first.end : 0)).toMatchObject({
      kind: 'ok',
      seq: 8,
      end: run.length,
    });
  });

  it('tells a damaged header, a damaged body and a cut frame apart', () => {
    const frame = encodeRecord({ type: 'x', data: 'some data' }, 3);
    for (let i = 0; i < HEADER_BYTES; i++) {
      const bad = Buffer.from(frame);
      bad[i] = (bad[i] as number) ^ 0x10;
      expect(readFrameAt(bad, 0).kind).toBe('bad-header');
    }
    for (let i = HEADER_BYTES; i < frame.length; i++) {
      const bad = Buffer.from(frame);
      bad[i] = (bad[i] as number) ^ 0x01;
      expect(readFrameAt(bad, 0)).toEqual({ kind: 'bad-body', seq: 3, end: frame.length });
    }
    for (let cut = 0; cut < frame.length; cut++) expect(readFrameAt(frame.subarray(0, cut), 0).kind).toBe('short');
  });

  it('resyncs on the next valid frame, ignoring frames quoted inside data', () => {
    const quoted = encodeRecord({ type: 1, data: 'old' }, 1);
    const a = encodeRecord({ type: 1, data: quoted }, 10); // a record whose data holds a valid frame of seq 1
    const b = encodeRecord({ type: 1, data: 'next' }, 11);
    const log = Buffer.concat([a, b]);
    log[0] = 0; // break a's magic
    expect(readFrameAt(log, 0).kind).toBe('bad-header');
    expect(findNextFrame(log, 1, 10)).toBe(a.length);
    expect(findNextFrame(log, 1, 0)).toBe(a.indexOf(quoted)); // without the seq floor the quote would match
    expect(findNextFrame(log, a.length + 1, 0)).toBe(-1);
  });
});
