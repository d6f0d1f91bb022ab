// Record framing: each record is a 32-byte header (magic, header CRC, length, seq, type, flags, body CRC) + body.
//
// Layout, little-endian:
//   0 u32 magic 'SWL1'     lets a reader find the next record after damage (resync)
//   4 u32 header CRC       masked CRC-32C of bytes 8..31, so a damaged length or seq is never trusted
//   8 u32 body length
//  12 u32 seq, low 32 bits
//  16 u32 seq, high bits   (seq < 2^53)
//  20 u32 type code        the numeric type, or the byte length of the type name that starts the body
//  24 u8  flags            bits 0-1 encoding of the data (0 bytes, 1 utf8, 2 json); bit 2 named type
//  25 u8 ×3 reserved (0)
//  28 u32 body CRC         masked CRC-32C of the body
//  32 body                 [type name][data]
//
// Unlike LevelDB (32 KB blocks, one CRC over type+data) the header has its own CRC: a reader can then skip a
// record with a bad body by its (verified) length, and after a bad header scan byte by byte for the next valid
// header, so every good record after a damaged one is still read. Unlike etcd the CRCs are not chained, for
// the same reason. CRCs are masked as in LevelDB (crc32c.h) so that CRCs of data holding CRCs stay strong.
import { crc32c } from '@node-rs/crc32';

export const FRAME_MAGIC = 0x314c5753; // the bytes 'S' 'W' 'L' '1'
const MAGIC_BYTES = Buffer.from('SWL1', 'latin1');
export const HEADER_BYTES = 32;
/** Largest body a reader accepts (a guard against absurd lengths; the header CRC already vouches for it). */
export const MAX_BODY_BYTES = 1024 * 1024 * 1024;
export const MAX_TYPE_NAME_BYTES = 255;
const MAX_TYPE_CODE = 0xffffffff;

export const ENCODING = { bytes: 0, utf8: 1, json: 2 } as const;
const NAMED_TYPE = 0b100;
const SEQ_HIGH = 2 ** 32;

export type RecordType = string | number;

/** What a caller appends: data is bytes (Buffer/Uint8Array), a string, or any JSON-serialisable value. */
export interface AppendRecord {
  type: RecordType;
  data: unknown;
}

/** What a reader gets back: bytes as a Buffer, a string as a string, anything else parsed from JSON. */
export interface WalRecord {
  seq: number;
  type: RecordType;
  data: unknown;
}

/** CRC-32C (Castagnoli, reflected 0x82F63B78) table, for headerCrc. */
const CRC32C_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/**
 * The masked CRC-32C of a header's bytes 8..31, computed in JS: for 24 bytes a table loop costs less than a call into
 * the native crc32c on a subarray (its view alone costs more than the loop). The same value as crc32c (a test says so).
 */
export function headerCrc(buf: Uint8Array, offset: number): number {
  let c = -1;
  for (let i = offset + 8, end = offset + HEADER_BYTES; i < end; i++)
    c = (CRC32C_TABLE[(c ^ (buf[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return maskCrc((c ^ -1) >>> 0);
}

export function maskCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** A record checked and serialised, ready to be written into a frame. */
export interface EncodedRecord {
  typeCode: number;
  flags: number;
  name: string | null;
  text: string | null;
  bytes: Uint8Array | null;
  /** Header + body. */
  frameBytes: number;
}

/** Checks and serialises a record. Throws TypeError/RangeError on one that cannot be stored: a caller bug. */
export function encodeRecordParts(record: AppendRecord): EncodedRecord {
  const { type, data } = record;
  let name: string | null = null;
  let typeCode: number;
  if (typeof type === 'number') {
    if (!Number.isInteger(type) || type < 0 || type > MAX_TYPE_CODE)
      throw new RangeError(`WAL record type ${type} must be an integer from 0 to ${MAX_TYPE_CODE}, or a string`);
    typeCode = type;
  } else if (typeof type === 'string') {
    typeCode = Buffer.byteLength(type);
    if (typeCode === 0 || typeCode > MAX_TYPE_NAME_BYTES)
      throw new RangeError(`WAL record type "${type.slice(0, 40)}" must be 1 to ${MAX_TYPE_NAME_BYTES} bytes of UTF-8`);
    name = type;
  } else {
    throw new TypeError(`WAL record type must be a string or a number, got ${typeof type}`);
  }

  let encoding: number;
  let text: string | null = null;
  let bytes: Uint8Array | null = null;
  let dataBytes: number;
  if (data instanceof Uint8Array) {
    encoding = ENCODING.bytes;
    bytes = data;
    dataBytes = data.length;
  } else if (typeof data === 'string') {
    encoding = ENCODING.utf8;
    text = data;
    dataBytes = Buffer.byteLength(data);
  } else {
    encoding = ENCODING.json;
    const json = JSON.stringify(data);
    if (json === undefined) throw new TypeError(`WAL record data of type ${typeof data} cannot be stored as JSON`);
    text = json;
    dataBytes = Buffer.byteLength(json);
  }
  const bodyLength = (name === null ? 0 : typeCode) + dataBytes;
  if (bodyLength > MAX_BODY_BYTES) throw new RangeError(`WAL record of ${bodyLength} bytes exceeds ${MAX_BODY_BYTES}`);
  const flags = encoding | (name === null ? 0 : NAMED_TYPE);
  return { typeCode, flags, name, text, bytes, frameBytes: HEADER_BYTES + bodyLength };
}

/**
 * Writes a record's frame at `at`, all but its seq and header CRC (sealFrame adds them when the writer numbers
 * the batch). Returns the offset after it.
 */
export function writeFrame(buf: Buffer, at: number, record: EncodedRecord): number {
  const end = at + record.frameBytes;
  buf.writeUInt32LE(FRAME_MAGIC, at);
  buf.writeUInt32LE(record.frameBytes - HEADER_BYTES, at + 8);
  buf.writeUInt32LE(record.typeCode, at + 20);
  buf.writeUInt32LE(record.flags, at + 24); // flags + 3 zero reserved bytes
  let body = at + HEADER_BYTES;
  if (record.name !== null) body += buf.write(record.name, body, 'utf8');
  if (record.bytes !== null) {
    if (Buffer.isBuffer(record.bytes)) record.bytes.copy(buf, body);
    else buf.set(record.bytes, body);
  } else buf.write(record.text as string, body, 'utf8');
  buf.writeUInt32LE(maskCrc(crc32c(buf.subarray(at + HEADER_BYTES, end))), at + 28);
  return end;
}

/** One record as a standalone frame without seq and header CRC. */
export function prepareFrame(record: AppendRecord): Buffer {
  const parts = encodeRecordParts(record);
  const frame = Buffer.allocUnsafe(parts.frameBytes);
  writeFrame(frame, 0, parts);
  return frame;
}

/** Writes seq and header CRC into a frame in place. */
export function sealFrame(buf: Buffer, offset: number, seq: number): void {
  buf.writeUInt32LE(seq >>> 0, offset + 12);
  buf.writeUInt32LE(Math.floor(seq / SEQ_HIGH), offset + 16);
  buf.writeUInt32LE(headerCrc(buf, offset), offset + 4);
}

/** Numbers the that fill buf[0, end) firstSeq, firstSeq+1, … (seq and header CRC). */
export function sealFrameRun(buf: Buffer, end: number, firstSeq: number): number {
  let at = 0;
  let seq = firstSeq;
  while (at < end) {
    sealFrame(buf, at, seq);
    at += HEADER_BYTES + buf.readUInt32LE(at + 8);
    seq += 1;
  }
  return seq - firstSeq;
}

/** One record, encoded and numbered: for tools and tests that build log files directly. */
export function encodeRecord(record: AppendRecord, seq: number): Buffer {
  const frame = prepareFrame(record);
  sealFrame(frame, 0, seq);
  return frame;
}

export type FrameRead =
  /** A whole, valid frame: body at [bodyStart, end). */
  | { kind: 'ok'; seq: number; end: number }
  /** Valid header, full body present, body CRC wrong: skip to `end`. */
  | { kind: 'bad-body'; seq: number; end: number }
  /** Fewer than a header's bytes left, or a valid header whose body runs past the end. */
  | { kind: 'short' }
  /** Magic or header CRC wrong: nothing in this header can be trusted. */
  | { kind: 'bad-header' };

export function readFrameAt(buf: Buffer, offset: number): FrameRead {
  if (buf.length - offset < HEADER_BYTES) return { kind: 'short' };
  if (buf.readUInt32LE(offset) !== FRAME_MAGIC) return { kind: 'bad-header' };
  if (headerCrc(buf, offset) !== buf.readUInt32LE(offset + 4)) return { kind: 'bad-header' };
  const length = buf.readUInt32LE(offset + 8);
  if (length > MAX_BODY_BYTES) return { kind: 'bad-header' };
  const seq = buf.readUInt32LE(offset + 12) + buf.readUInt32LE(offset + 16) * SEQ_HIGH;
  const end = offset + HEADER_BYTES + length;
  if (end > buf.length) return { kind: 'short' };
  const bodyCrc = maskCrc(crc32c(buf.subarray(offset + HEADER_BYTES, end)));
  if (bodyCrc !== buf.readUInt32LE(offset + 28)) return { kind: 'bad-body', seq, end };
  return { kind: 'ok', seq, end };
}

/**
 * Resync after a bad header: the offset of the next whole valid frame at or after `from` whose seq is at least
 * `minSeq` (a frame quoted inside another record's data would carry an older seq), or -1.
 */
export function findNextFrame(buf: Buffer, from: number, minSeq: number): number {
  let at = buf.indexOf(MAGIC_BYTES, from);
  while (at !== -1) {
    const read = readFrameAt(buf, at);
    if (read.kind === 'ok' && read.seq >= minSeq) return at;
    at = buf.indexOf(MAGIC_BYTES, at + 1);
  }
  return -1;
}

/** Decodes the type and data of a frame that readFrameAt found 'ok'. */
export function decodeFrame(buf: Buffer, offset: number): WalRecord {
  const length = buf.readUInt32LE(offset + 8);
  const seq = buf.readUInt32LE(offset + 12) + buf.readUInt32LE(offset + 16) * SEQ_HIGH;
  const typeCode = buf.readUInt32LE(offset + 20);
  const flags = buf[offset + 24] as number;
  let at = offset + HEADER_BYTES;
  const end = at + length;
  let type: RecordType = typeCode;
  if (flags & NAMED_TYPE) {
    type = buf.toString('utf8', at, at + typeCode);
    at += typeCode;
  }
  const encoding = flags & 0b11;
  let data: unknown;
  if (encoding === ENCODING.bytes) data = Buffer.from(buf.subarray(at, end));
  else if (encoding === ENCODING.utf8) data = buf.toString('utf8', at, end);
  else data = JSON.parse(buf.toString('utf8', at, end));
  return { seq, type, data };
}
