// JSON with comments (VS Code's settings, OpenCode's opencode.jsonc, Claude Code's settings.json): read with
// jsonc-parser, and changed by its modify/applyEdits, which edit the text in place, so every comment, blank line and
// the file's own indentation stay as they were.
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  type Node,
  type ParseError,
  parse,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
import { eolOf, lineColOf, ParseProblem } from './problem.ts';

/** The file's value; a ParseProblem (line, column, what) when it is not JSON(C). Trailing commas are allowed. */
export function parseJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColOf(text, first.offset);
    const what = printParseErrorCode(first.error)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    throw new ParseProblem(what, line, column);
  }
  if (text.trim() !== '' && (value === null || typeof value !== 'object' || Array.isArray(value)))
    throw new ParseProblem('the file is not a JSON object', 1, 1);
  return value ?? {};
}

/** The indentation unit of the file (its first indented line), else two spaces. */
function unitOf(text: string): string {
  const m = /\n([ \t]+)["\w{[]/.exec(text);
  if (!m) return '  ';
  return m[1]!.startsWith('\t') ? '\t' : m[1]!;
}

const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
const lineEnd = (text: string, offset: number) => {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : text[nl - 1] === '\r' ? nl - 1 : nl;
};
/** The offset of the next character after `offset` that is not whitespace or a comment. */
function significant(text: string, offset: number): number {
  let i = offset;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('//', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i) < 0 ? text.length : text.indexOf('*/', i) + 2;
    else return i;
  }
}

/** The whitespace that starts the line holding `offset`. */
const indentAt = (text: string, offset: number) => /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];

/** A value as JSON, its lines after the first indented by `indent`. */
const formatted = (value: unknown, indent: string, unit: string, eol: string) =>
  JSON.stringify(value, null, unit)
    .split('\n')
    .join(eol + indent);

/**
 * Adds a property (or, with key null, an array element) at the end of a container, as the file writes its siblings:
 * on a line of its own with their indentation (the comma goes right after the last sibling's value, so a comment
 * ending that line stays with it), or inline when the container closes on the same line as its last member.
 */
function insertInto(text: string, container: Node, key: string | null, value: unknown): string {
  const eol = eolOf(text);
  const unit = unitOf(text);
  const name = key === null ? '' : `${JSON.stringify(key)}: `;
  const close = container.offset + container.length - 1;
  const last = container.children?.at(-1);
  if (last) {
    // A trailing comma the file already has stays, and the new member gets one too (the file's style).
    const next = significant(text, last.offset + last.length);
    const trailing = text[next] === ',';
    const lastEnd = trailing ? next + 1 : last.offset + last.length;
    const comma = trailing ? '' : ',';
    const after = trailing ? ',' : '';
    if (lineEnd(text, lastEnd) >= close)
      return text.slice(0, lastEnd) + `${comma} ${name}${JSON.stringify(value)}${after}` + text.slice(lastEnd);
    const own = text.slice(lineStart(text, last.offset), last.offset).trim() === '';
    const indent = own ? indentAt(text, last.offset) : indentAt(text, container.offset) + unit;
    const end = lineEnd(text, lastEnd);
    const item = eol + indent + name + formatted(value, indent, unit, eol) + after;
    return text.slice(0, lastEnd) + comma + text.slice(lastEnd, end) + item + text.slice(end);
  }
  const outer = indentAt(text, container.offset);
  const inner = text.slice(container.offset + 1, close);
  const item = eol + outer + unit + name + formatted(value, outer + unit, unit, eol);
  if (inner.trim() === '') return text.slice(0, container.offset + 1) + item + eol + outer + text.slice(close);
  return text.slice(0, container.offset + 1) + item + text.slice(container.offset + 1);
}

/**
 * Sets each path to its value (undefined removes it; an index of -1 appends to an array), editing the text in place:
 * a value that exists is replaced where it stands; a new property is written as the file writes its neighbours. An
 * empty file starts as `{}`.
 */
export function setJsonc(text: string, changes: [path: (string | number)[], value: unknown][]): string {
  let out = text.trim() === '' ? '{}\n' : text;
  for (const [path, value] of changes) {
    const root = parseTree(out, undefined, { allowTrailingComma: true })!;
    const node = path.at(-1) === -1 ? undefined : findNodeAtLocation(root, path);
    if (value === undefined) {
      if (node) out = applyEdits(out, modify(out, path, undefined, {}));
      continue;
    }
    if (node) {
      const indent = indentAt(out, node.parent?.type === 'property' ? node.parent.offset : node.offset);
      out =
        out.slice(0, node.offset) +
        formatted(value, indent, unitOf(out), eolOf(out)) +
        out.slice(node.offset + node.length);
      continue;
    }
    // The deepest container that exists; what is missing below it is written as one nested value.
    const fits = (c: Node | undefined, key: string | number) =>
      (c?.type === 'object' && typeof key === 'string') || (c?.type === 'array' && key === -1);
    let depth = path.length - 1;
    while (depth > 0 && !fits(findNodeAtLocation(root, path.slice(0, depth)), path[depth]!)) depth--;
    const container = depth === 0 ? root : findNodeAtLocation(root, path.slice(0, depth))!;
    const key = path[depth]!;
    if (!fits(container, key)) throw new Error(`cannot set ${path.join('.')}: its parent is not an object`);
    let nested = value;
    for (let i = path.length - 1; i > depth; i--) nested = { [String(path[i])]: nested };
    out = insertInto(out, container, key === -1 ? null : String(key), nested);
  }
  return out;
}

/** The value at a path of a parsed object, or undefined. */
export function at(value: unknown, ...path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
