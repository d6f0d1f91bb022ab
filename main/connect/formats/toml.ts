// TOML (Codex's config.toml): smol-toml reads and validates it but writes without comments, so Connect changes it by
// text edits: it replaces one root key's value, and replaces or appends one table. A small scanner finds the lines
// that are table headers and root keys (skipping strings, multi-line strings, arrays and comments), so no other byte
// moves; the caller re-parses the result and compares it with what it meant to write.
import { parse, TomlError } from 'smol-toml';
import { eolOf, ParseProblem } from './problem.ts';

export function parseToml(text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const why = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw new ParseProblem(why, err.line, err.column);
    }
    throw err;
  }
}

/**
 * One line of the file: where it starts and ends (newline excluded), whether it starts outside any string or array,
 * and, for a table header, the table's dotted name (quotes and spaces removed; `[[name]]` for an array of tables).
 */
type Line = { start: number; end: number; header: string | null; topLevel: boolean };

/** Splits the file into lines, marking table headers and the lines that start outside any string or array. */
function scan(text: string): Line[] {
  const lines: Line[] = [];
  let state: 'normal' | 'basic' | 'literal' | 'mlbasic' | 'mlliteral' | 'comment' = 'normal';
  let depth = 0;
  let i = 0;
  while (i <= text.length) {
    const start = i;
    const topLevel = state === 'normal' && depth === 0;
    let header: string | null = null;
    if (topLevel) {
      const m = /^[ \t]*(\[\[?)([^\]\n]*)\]\]?/.exec(text.slice(i, i + 4096));
      if (m) {
        const name = m[2]!.replace(/[\s"']/g, '');
        header = m[1] === '[' ? name : `[[${name}]]`;
        i += m[0].length; // the header's brackets are not value brackets
      }
    }
    while (i < text.length && text[i] !== '\n') {
      const c = text[i]!;
      const three = text.slice(i, i + 3);
      if (state === 'normal') {
        if (three === '"""') ((state = 'mlbasic'), (i += 2));
        else if (three === "'''") ((state = 'mlliteral'), (i += 2));
        else if (c === '"') state = 'basic';
        else if (c === "'") state = 'literal';
        else if (c === '#') state = 'comment';
        else if (c === '[' || c === '{') depth++;
        else if ((c === ']' || c === '}') && depth > 0) depth--;
      } else if (state === 'basic' || state === 'mlbasic') {
        if (c === '\\') i++;
        else if (state === 'basic' && c === '"') state = 'normal';
        else if (state === 'mlbasic' && three === '"""') ((state = 'normal'), (i += 2));
      } else if (state === 'literal' && c === "'") state = 'normal';
      else if (state === 'mlliteral' && three === "'''") ((state = 'normal'), (i += 2));
      i++;
    }
    if (state === 'comment' || state === 'basic' || state === 'literal') state = 'normal';
    lines.push({ start, end: Math.min(i, text.length), header, topLevel });
    i++;
  }
  return lines;
}

const blankOrComment = (text: string, l: Line) =>
  l.topLevel && /^[ \t]*(#.*)?$/.test(text.slice(l.start, l.end).replace(/\r$/, ''));

/**
 * The text with the root key `key` set to the TOML value `valueToml`: its line's value replaced (a trailing comment
 * kept) or, when the root has no such key, a line inserted at the end of the root section (before the comments that
 * lead the first table).
 */
export function setRootKey(text: string, key: string, valueToml: string): string {
  const lines = scan(text);
  const firstHeader = lines.findIndex((l) => l.header !== null);
  const root = firstHeader < 0 ? lines : lines.slice(0, firstHeader);
  const keyRe = new RegExp(
    `^([ \\t]*(?:${key}|"${key}"|'${key}')[ \\t]*=[ \\t]*)("(?:[^"\\\\\\n]|\\\\.)*"|'[^'\\n]*')?`,
  );
  for (const l of root) {
    if (!l.topLevel) continue;
    const m = keyRe.exec(text.slice(l.start, l.end));
    if (!m) continue;
    const valueEnd = m[2] !== undefined ? l.start + m[0].length : l.end;
    return text.slice(0, l.start + m[1]!.length) + valueToml + text.slice(valueEnd);
  }
  const eol = eolOf(text);
  const line = `${key} = ${valueToml}`;
  if (firstHeader < 0) return text === '' ? line + eol : text.replace(/(\r?\n)?$/, (nl) => (nl || eol) + line + eol);
  let at = firstHeader;
  while (at > 0 && blankOrComment(text, lines[at - 1]!)) at--;
  const offset = lines[at]!.start;
  return text.slice(0, offset) + line + eol + (at === firstHeader || offset === 0 ? eol : '') + text.slice(offset);
}

/**
 * The text with the table `[name]` replaced by `body` (the header line and its key lines, up to the blank lines and
 * comments that lead the next table), or appended at the end after a blank line when there is none.
 */
export function setTable(text: string, name: string, body: string[]): string {
  const eol = eolOf(text);
  const lines = scan(text);
  const block = body.join(eol) + eol;
  const idx = lines.findIndex((l) => l.header === name);
  if (idx < 0) {
    if (text.trim() === '') return block;
    const ended = /\n$/.test(text) ? text : text + eol;
    return ended + (/\n[ \t\r]*\n$/.test(ended) ? '' : eol) + block;
  }
  let next = lines.findIndex((l, j) => j > idx && l.header !== null && l.topLevel);
  if (next < 0) next = lines.length;
  let last = next;
  while (last > idx + 1 && blankOrComment(text, lines[last - 1]!)) last--;
  const from = lines[idx]!.start;
  const to = last < lines.length ? lines[last]!.start : text.length;
  return text.slice(0, from) + block + text.slice(to);
}

/** A TOML basic string literal. */
export const tomlString = (s: string): string => JSON.stringify(s);
