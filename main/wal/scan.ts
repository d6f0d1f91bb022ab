// Walks the frames of one segment: good records, damaged stretches (counted and skipped), and a torn tail.
import { findNextFrame, readFrameAt } from './framing.ts';

/** Carried from one segment to the next, in log order. */
export interface ScanCursor {
  /** The seq the next record must have; starts at snapshot seq + 1. */
  expected: number;
  /** Seqs up to here are covered by the snapshot: damage there loses nothing. */
  covered: number;
}

export interface SegmentScan {
  /** Byte ranges [start, end) of good frames, merged where adjacent: what a repaired copy keeps. */
  goodRanges: [number, number][];
  records: number;
  lastSeq: number | null;
  /** End of the last good frame. */
  validEnd: number;
  /** Seq ranges [from, to] the log should hold but cannot read (damaged or missing). */
  lost: [number, number][];
  /** Bytes that are neither a good frame nor a torn tail: the file must be kept aside and repaired. */
  damaged: boolean;
  /** Bytes after validEnd that hold no further good frame (a torn tail when this is the last segment). */
  tailBytes: number;
}

export function scanSegment(
  buf: Buffer,
  cursor: ScanCursor,
  onRecord?: (offset: number, seq: number) => void,
): SegmentScan {
  const scan: SegmentScan = {
    goodRanges: [],
    records: 0,
    lastSeq: null,
    validEnd: 0,
    lost: [],
    damaged: false,
    tailBytes: 0,
  };
  const lose = (from: number, to: number) => {
    const first = Math.max(from, cursor.covered + 1); // what the snapshot covers is not lost
    if (to >= first) scan.lost.push([first, to]);
  };
  let floor = 0; // a resync target must be newer than the last good frame
  let offset = 0;
  while (offset < buf.length) {
    const read = readFrameAt(buf, offset);
    if (read.kind === 'ok') {
      const { seq, end } = read;
      if (seq < cursor.expected && seq > cursor.covered) {
        // A valid frame out of order: this log never writes one. Count it, skip it.
        scan.damaged = true;
        lose(seq, seq);
        offset = end;
        continue;
      }
      if (seq > cursor.expected) lose(cursor.expected, seq - 1);
      const last = scan.goodRanges[scan.goodRanges.length - 1];
      if (last && last[1] === offset) last[1] = end;
      else scan.goodRanges.push([offset, end]);
      scan.records += 1;
      scan.lastSeq = seq;
      scan.validEnd = end;
      cursor.expected = Math.max(cursor.expected, seq + 1);
      floor = seq + 1;
      onRecord?.(offset, seq);
      offset = end;
    } else if (read.kind === 'bad-body') {
      // The header is intact (its own CRC says so): the length and seq are true, only the body is damaged.
      scan.damaged = true;
      if (read.seq >= cursor.expected) {
        lose(cursor.expected, read.seq);
        cursor.expected = read.seq + 1;
      }
      floor = Math.max(floor, read.seq + 1);
      offset = read.end;
    } else {
      // Nothing here can be trusted: find the next valid frame byte by byte. The records between are
      // counted when it is read (its seq is past the expected one).
      const next = findNextFrame(buf, offset + 1, floor);
      if (next === -1) {
        scan.tailBytes = buf.length - offset;
        break;
      }
      scan.damaged = true;
      offset = next;
    }
  }
  return scan;
}
