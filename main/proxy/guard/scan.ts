// The secret guard's scanner: one scan of a request's bytes (its JSON as the client sent it), searched in the Buffer
// itself (no copy of the body as a string: a 100 KB string a request is young-generation garbage the collector pays
// for). Each rule's anchors (rules.ts) are found with the native single-byte search (memchr) of their rarest
// character; a rule's pattern runs only where its anchor is, on a window of the bytes there; every `=` is looked at
// for an .env-style assignment; the tool results' texts (given by the caller, from the parsed request) are walked for
// high-entropy runs, each text once per run of Switchboard (an agent sends its conversation again with every turn).
// Measured on a real 106 KB Claude Code request (docs/PERFORMANCE.md, "Secret guard"): ~11 µs for every anchor's
// search, against ~430 µs for one combined regular expression on the body as a string.
import { ENTROPY_RULE, ENV_RULE, SECRET_RULES } from './rules.ts';

/** A secret found: its rule and its bytes [start, end) in the body. */
export type Finding = { rule: string; start: number; end: number };

export const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

const ALNUM = 1;
/** Base64 and base64url characters, but `=`: an assignment's `=` ends a run (padding only ends a key). */
const RUN = 2;
const cls = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9]/.test(ch)) cls[c] = ALNUM | RUN;
  else if (ch === '+' || ch === '/' || ch === '_' || ch === '-') cls[c] = RUN;
}
const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * ASCII characters from the most to the least common in the captured requests of test/fixtures/ (coding tools'
 * prompts, JSON, code), counted once; a character not listed is rarer than all. The native search's speed follows its
 * key's first character (memchr on it, then a compare): "eyJ" searched as it is cost 158 µs on a 93 KB Claude Code
 * request, its rarest character "J" 0.6 µs; so each anchor is searched from its rarest character on.
 */
const COMMON = ' eitosdrmnlaucp"g\\h:b,f.x{}yqF_-021w/[]kj4759vPT386S()ODRIAUCL$E\'`J;WNM*YBKG#HQ<>VzX|=?+!Z@^';
function rarity(ch: string): number {
  const at = COMMON.indexOf(ch);
  return at === -1 ? COMMON.length : at;
}

/**
 * What the scan searches for: one character per anchor, its rarest (the key), and the anchors that character starts a
 * search for, each with how far into it the key is. Anchors whose rarest character is the same share one search: a
 * single-character search is the native search's fastest (memchr), and the ~20 anchors need 9 of them.
 */
type SearchKey = {
  key: string;
  code: number;
  anchors: { text: string; bytes: Buffer; offset: number; rules: number[] }[];
};
export const KEYS: SearchKey[] = [];
SECRET_RULES.forEach((r, rule) => {
  for (const a of r.anchors) {
    let offset = 0;
    for (let p = 1; p < a.length; p++) if (rarity(a[p]!) > rarity(a[offset]!)) offset = p;
    const key = a[offset]!;
    let k = KEYS.find((x) => x.key === key);
    if (!k) KEYS.push((k = { key, code: key.charCodeAt(0), anchors: [] }));
    const known = k.anchors.find((x) => x.text === a);
    if (known) known.rules.push(rule);
    else k.anchors.push({ text: a, bytes: Buffer.from(a, 'latin1'), offset, rules: [rule] });
  }
});
const sticky = SECRET_RULES.map((r) => new RegExp(r.pattern, 'y'));
/** The bytes a rule's pattern is tried on from its anchor: the longest key of its format and some (a PEM block 16 KB). */
const WINDOW = SECRET_RULES.map((r) => (r.id === 'private-key' ? 17_000 : 512));
/** The bytes after an assignment's `=` its value is looked for in. */
const ENV_WINDOW = 1024;

/** Whether the body holds `bytes` at i. */
function bytesAt(body: Buffer, i: number, bytes: Buffer): boolean {
  if (i + bytes.length > body.length) return false;
  for (let j = 0; j < bytes.length; j++) if (body[i + j] !== bytes[j]) return false;
  return true;
}
const EXPORT = Buffer.from('export ', 'latin1');
/** Whether a rule's match must start a token (all but the private key, whose anchor starts with dashes). */
const needsBoundary = SECRET_RULES.map((r) => /^[A-Za-z0-9]/.test(r.anchors[0]!));

const counts = new Uint16Array(128);

/** Shannon entropy of an ASCII string, in bits a character. */
export function entropyBits(s: string): number {
  counts.fill(0);
  for (let i = 0; i < s.length; i++) counts[s.charCodeAt(i) & 127]!++;
  let h = 0;
  for (let c = 0; c < 128; c++) {
    const n = counts[c]!;
    if (n === 0) continue;
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Whether a run looks like a random key: a digit, a capital and a small letter, and enough entropy for its length. */
export function looksRandom(s: string): boolean {
  if (!/[0-9]/.test(s) || !/[A-Z]/.test(s) || !/[a-z]/.test(s)) return false;
  return randomEnough(s);
}

/** Enough entropy for its length, and not base64 of text. */
function randomEnough(s: string): boolean {
  const need = Math.min(ENTROPY_RULE.maxBits, Math.log2(s.length) - ENTROPY_RULE.belowLog2);
  return entropyBits(s) >= need && !base64OfText(s);
}

/** Whether s is base64 of printable text (an encoded message, not a key): 90 % of its decoded bytes printable ASCII. */
function base64OfText(s: string): boolean {
  const bytes = Buffer.from(s, 'base64');
  if (bytes.length < 8) return false;
  let printable = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x09) printable++;
  return printable >= bytes.length * 0.9;
}

/** Whether the byte at i starts a token: not after a letter or digit, unless that is an escape's letter (`\n`). */
function startsToken(body: Uint8Array, i: number): boolean {
  if (i === 0 || (cls[body[i - 1]!]! & ALNUM) === 0) return true;
  return i >= 2 && body[i - 2] === BACKSLASH;
}

/**
 * The secrets in a request body. `toolResults` are the texts of the request's tool results (from its parsed form):
 * high-entropy runs count only there (elsewhere random-looking strings are ids, hashes and signatures); each run found
 * is then located in the body. Findings are in body order and never overlap.
 */
export function scanSecrets(body: Buffer, toolResults: readonly string[] = []): readonly Finding[] {
  let found: Finding[] | null = null;
  for (let k = 0; k < KEYS.length; k++) {
    const { code, anchors } = KEYS[k]!;
    for (let at = body.indexOf(code); at !== -1; at = body.indexOf(code, at + 1)) {
      for (const anchor of anchors) {
        const i = at - anchor.offset;
        if (i < 0 || !bytesAt(body, i, anchor.bytes)) continue;
        const f = matchAt(body, i, anchor.rules);
        if (f) (found ??= []).push(f);
      }
    }
  }
  for (let i = body.indexOf(0x3d); i !== -1; i = body.indexOf(0x3d, i + 1)) {
    const f = envAssignment(body, i);
    if (f) (found ??= []).push(f);
  }
  for (const result of toolResults) {
    const runs = randomRunsKept(result);
    if (runs === null) continue;
    for (const s of runs)
      for (let i = body.indexOf(s, 0, 'latin1'); i !== -1; i = body.indexOf(s, i + s.length, 'latin1'))
        (found ??= []).push({ rule: ENTROPY_RULE.id, start: i, end: i + s.length });
  }
  return found === null ? NO_FINDINGS : disjoint(found);
}

/** The first of `rules` whose pattern matches at i (its anchor is there). */
function matchAt(body: Buffer, i: number, rules: number[]): Finding | null {
  for (const rule of rules) {
    if (needsBoundary[rule] && !startsToken(body, i)) continue;
    const re = sticky[rule]!;
    re.lastIndex = 0;
    const m = re.exec(body.toString('latin1', i, Math.min(body.length, i + WINDOW[rule]!)));
    if (m !== null) return { rule: SECRET_RULES[rule]!.id, start: i, end: i + m[0].length };
  }
  return null;
}

/** The findings in body order, a finding inside (or across) an earlier one dropped. */
function disjoint(found: Finding[]): Finding[] {
  found.sort((x, y) => x.start - y.start || y.end - x.end);
  const out: Finding[] = [];
  let end = -1;
  for (const f of found) {
    if (f.start < end) continue;
    out.push(f);
    end = f.end;
  }
  return out;
}

/**
 * randomRuns, kept per text for the texts of the last requests: an agent's conversation is sent again whole with each
 * turn, so its earlier tool results were walked for the previous request (only a new one is walked). The table holds
 * at most 2 MB of texts (the strings the requests held anyway), cleared when full.
 */
/**
 * Kept by length, each length's texts compared whole: a Map keyed by the text itself would compute the string's hash
 * over every character of each new request's copy (~14 µs a request for the bench's 12 KB of tool results), where a
 * comparison of two flat strings runs at memory speed and stops at the first difference.
 */
const runsKept = new Map<number, { text: string; runs: string[] | null }[]>();
let keptChars = 0;
const KEPT_CHARS_MAX = 2 * 1024 * 1024;
function randomRunsKept(s: string): string[] | null {
  const bucket = runsKept.get(s.length);
  if (bucket) for (const e of bucket) if (e.text === s) return e.runs;
  const runs = randomRuns(s);
  if (s.length < 64) return runs;
  if (keptChars + s.length > KEPT_CHARS_MAX) {
    runsKept.clear();
    keptChars = 0;
  }
  const entry = { text: s, runs };
  if (bucket) bucket.push(entry);
  else runsKept.set(s.length, [entry]);
  keptChars += s.length;
  return runs;
}

/** The runs of base64 characters in a text (24 to 256 long) that look like random keys; null when none. */
export function randomRuns(s: string): string[] | null {
  let out: string[] | null = null;
  let run = -1;
  /** The character kinds seen in the run: 1 digit, 2 capital, 4 small letter. */
  let kinds = 0;
  const n = s.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 0;
    const k = c < 128 ? kind[c]! : 0;
    if (k !== 0) {
      if (run < 0) {
        run = i;
        kinds = 0;
      }
      kinds |= k;
      continue;
    }
    if (run < 0) continue;
    const len = i - run;
    if ((kinds & 7) === 7 && len >= ENTROPY_RULE.minLength && len <= ENTROPY_RULE.maxLength) {
      const candidate = s.slice(run, i);
      if (randomEnough(candidate)) (out ??= []).push(candidate);
    }
    run = -1;
  }
  return out;
}
/** For randomRuns: 1 digit, 2 capital, 4 small letter, 8 another base64 character, 0 none. */
const kind = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  kind[c] = /[0-9]/.test(ch) ? 1 : /[A-Z]/.test(ch) ? 2 : /[a-z]/.test(ch) ? 4 : /[+/_-]/.test(ch) ? 8 : 0;
}

/**
 * An .env-style assignment whose `=` is at i: NAME (letters, digits, `_`, `.`, `-`) at a line's start (the body's,
 * a string's, after a newline or its `\n` escape, or after `export `), naming a credential, and a value of 8 or more
 * characters that is not a reference. The finding is the value only (NAME= stays, so the model still sees which).
 */
function envAssignment(body: Buffer, i: number): Finding | null {
  let s = i;
  while (s > 0 && s > i - 64) {
    const p = body[s - 1]!;
    if ((cls[p]! & ALNUM) !== 0 || p === 0x5f || p === 0x2e || p === 0x2d) s--;
    else break;
  }
  if (s === i) return null;
  let start = s;
  // `\nNAME`: the scan back took the escape's letter into the name.
  if (s >= 1 && body[s - 1] === BACKSLASH) start = s + 1;
  else if (!lineStart(body, s)) {
    if (s >= 7 && bytesAt(body, s - 7, EXPORT) && lineStart(body, s - 7)) start = s;
    else return null;
  }
  if (start >= i) return null;
  if (!ENV_RULE.name.test(body.toString('latin1', start, i))) return null;
  const re = ENV_RULE.value;
  re.lastIndex = 0;
  const m = re.exec(body.toString('latin1', i + 1, Math.min(body.length, i + 1 + ENV_WINDOW)));
  if (m === null) return null;
  const value = m[1]!;
  if (entropyBits(value) < 2.5) return null; // xxxxxxxx, ********, aaaaaaaa: placeholders, not secrets
  const end = i + 1 + m[0].length;
  return { rule: ENV_RULE.id, start: end - value.length, end };
}

/** Whether position s starts a line: the body's start, a JSON string's, or after a newline (raw or escaped). */
function lineStart(body: Uint8Array, s: number): boolean {
  if (s === 0) return true;
  const p = body[s - 1]!;
  if (p === QUOTE || p === NEWLINE) return true;
  return s >= 2 && p === 0x6e && body[s - 2] === BACKSLASH;
}
