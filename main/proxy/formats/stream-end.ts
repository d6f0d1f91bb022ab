// Whether a reply passed through untranslated (same format on both sides) reached its format's own end: a stream's
// terminal event (or its error event), a whole reply's complete JSON. What the decoders know for a translated reply
// (a stream that stops before its end is cut: hub/sse-json.ts), said for raw bytes, so that a passthrough reply cut
// by a clean close also ends in the client's own error (main/proxy/forward/http-sinks.ts). Read from whole events
// only, with a few byte searches per event: never a parse on the hot path.
//
// A marker is a JSON key and the start of its value, spaces allowed around the colon (`"finish_reason": "stop"`).
// Inside a JSON string every quote is escaped, so model text can never forge one; a marker inside a tool's
// arguments object could (`{"done": true}` as an argument on an Ollama stream): it then only misses a cut, as before.
import type { FormatName } from './hub/index.ts';

type Marker = { key: Buffer; values: Buffer[] };

const marker = (key: string, ...values: string[]): Marker => ({
  key: Buffer.from(`"${key}"`),
  values: values.map((v) => Buffer.from(v)),
});

/** Any string value (a finish reason): the opening quote. */
const ANY_STRING = '"';

/** Per format, the markers of a stream's end: its terminal event, or an error event (the stream ended failing). */
const STREAM_ENDS: Record<FormatName, Marker[]> = {
  // A finish_reason (some servers send no [DONE]), `data: [DONE]` (found apart: it is not JSON), an error event.
  openai: [marker('finish_reason', ANY_STRING), marker('error', '{', ANY_STRING)],
  // message_stop, or message_delta's stop_reason (the decoder takes either as whole), or an error event.
  anthropic: [marker('type', '"message_stop"', '"error"'), marker('stop_reason', ANY_STRING)],
  // Every stream's last event carries finishReason (a blocked prompt, promptFeedback.blockReason); or an error.
  gemini: [marker('finishReason', ANY_STRING), marker('blockReason', ANY_STRING), marker('error', '{')],
  // The `"done": true` line, or an `{"error": …}` line.
  ollama: [marker('done', 'true'), marker('error', ANY_STRING, '{')],
  responses: [marker('type', '"response.completed"', '"response.incomplete"', '"response.failed"', '"error"')],
};

/** Each format's terminal event, as an error message names it. */
export const END_EVENT: Record<FormatName, string> = {
  openai: 'finish_reason or [DONE]',
  anthropic: 'message_stop',
  gemini: 'finishReason',
  ollama: '"done": true',
  responses: 'response.completed',
};

const DONE = Buffer.from('[DONE]');

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/** `"key"` followed by a colon and one of the values, anywhere in `buf`. */
function hasMarker(buf: Buffer, m: Marker): boolean {
  for (let at = buf.indexOf(m.key); at !== -1; at = buf.indexOf(m.key, at + m.key.length)) {
    let i = at + m.key.length;
    while (isSpace(buf[i])) i++;
    if (buf[i] !== 0x3a) continue;
    i++;
    while (isSpace(buf[i])) i++;
    for (const v of m.values) if (buf.compare(v, 0, v.length, i, Math.min(i + v.length, buf.length)) === 0) return true;
  }
  return false;
}

/** `data: [DONE]` (or `data:[DONE]`) as a line of its own. */
function hasDoneLine(buf: Buffer): boolean {
  for (let at = buf.indexOf(DONE); at !== -1; at = buf.indexOf(DONE, at + DONE.length)) {
    let i = at - 1;
    while (i >= 0 && buf[i] === 0x20) i--;
    if (i >= 4 && buf.toString('latin1', i - 4, i + 1) === 'data:' && (i === 4 || buf[i - 5] === 0x0a)) return true;
  }
  return false;
}

/** Watches a passthrough stream's whole events for its format's end (terminal or error event). */
export class StreamEndWatch {
  /** The end (or an error event) has been seen. */
  ended = false;

  constructor(readonly format: FormatName) {}

  /** Whole events as they go to the client; returns `ended`. */
  see(events: Buffer): boolean {
    if (this.ended || events.length === 0) return this.ended;
    if (this.format === 'openai' && hasDoneLine(events)) return (this.ended = true);
    for (const m of STREAM_ENDS[this.format]) if (hasMarker(events, m)) return (this.ended = true);
    return false;
  }
}

/**
 * Whether the bytes are one whole JSON object or array (and nothing after it but spaces): a reply cut by a clean
 * close is not. Bytes that do not start with `{` or `[` are not judged (true): not a JSON reply.
 */
export function isWholeJson(parts: readonly Buffer[]): boolean {
  let depth = 0;
  let started = false;
  let closed = false;
  let inString = false;
  let escaped = false;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const b = part[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
        continue;
      }
      if (closed) {
        if (!isSpace(b)) return false;
        continue;
      }
      if (!started) {
        if (isSpace(b)) continue;
        if (b !== 0x7b && b !== 0x5b) return true;
        started = true;
      }
      if (b === 0x22) inString = true;
      else if (b === 0x7b || b === 0x5b) depth++;
      else if (b === 0x7d || b === 0x5d) {
        depth--;
        if (depth === 0) closed = true;
      }
    }
  }
  return !started || closed;
}
