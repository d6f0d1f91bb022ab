// Date.prototype.toISOString's text for an epoch-ms time, with the part up to the second formatted once per second:
// every request log entry is stamped with one, and toISOString cost ~0.6 µs a call (~2.8 µs in the server under load,
// cache-cold between requests), where the cached second and three digits cost a string concatenation.

/** toISOString's four-digit years: 0000-01-01 to 9999-12-31 (outside it the year has six digits and a sign). */
const MIN_MS = -62167219200000;
const MAX_MS = 253402300800000;

let second = NaN;
/** `YYYY-MM-DDTHH:MM:SS.` of `second`. */
let prefix = '';

/** The same text as `new Date(ms).toISOString()` (a RangeError for an invalid time, as it throws). */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < MIN_MS || ms >= MAX_MS) return new Date(ms).toISOString();
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    prefix = new Date(s * 1000).toISOString().slice(0, 20);
    second = s;
  }
  const frac = ms - s * 1000;
  return `${prefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
}

/** The last `YYYY-MM-DDTHH:MM:SS.` read from a text isoTime writes, and its epoch-ms time. */
let parsedPrefix = '';
let parsedSecond = NaN;

/**
 * The epoch-ms time `text` was written from when it is exactly what isoTime writes for it; NaN for any other text.
 * A text whose second was the last one read costs a prefix comparison and three digits (~0.1 µs): the cached prefix
 * was checked once, so the 24 characters are isoTime's by construction. Otherwise Date.parse and isoTime check it.
 */
export function isoTimeExactMs(text: string): number {
  if (text.length !== 24 || text.charCodeAt(23) !== 0x5a) return NaN;
  // (a slice and === cost ~65 ns here, startsWith ~160, a loop over the 20 characters ~90)
  if (text.slice(0, 20) === parsedPrefix) {
    const a = text.charCodeAt(20) - 0x30;
    const b = text.charCodeAt(21) - 0x30;
    const c = text.charCodeAt(22) - 0x30;
    return a >= 0 && a <= 9 && b >= 0 && b <= 9 && c >= 0 && c <= 9 ? parsedSecond + a * 100 + b * 10 + c : NaN;
  }
  const ms = Date.parse(text);
  if (!Number.isInteger(ms) || ms < MIN_MS || ms >= MAX_MS || isoTime(ms) !== text) return NaN;
  parsedPrefix = text.slice(0, 20);
  parsedSecond = Math.floor(ms / 1000) * 1000;
  return ms;
}

/** The same number as `Date.parse(text)`, ~0.1 µs for isoTime's texts against Date.parse's ~0.3 (isoTimeExactMs). */
export function isoTimeMs(text: string): number {
  const ms = isoTimeExactMs(text);
  return Number.isNaN(ms) ? Date.parse(text) : ms;
}
