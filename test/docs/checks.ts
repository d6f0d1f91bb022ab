// The checks that keep the docs true (issue 39), as pure functions over the pages' text, so a test can run each on a
// doctored copy and see it fail. Each returns the problems it found, one line each, saying what is missing where and
// what to add: an empty list is a pass. reference.test.ts runs them on the repository; examples.serve.test.ts runs
// the examples marked runnable.
import type { z } from 'zod';
import type { ConfigField } from './config-fields.ts';

/** A page: its path from the repository's root (`docs/config.md`) and its text. */
export type Page = { path: string; text: string };

/** The text outside fenced code blocks, fences and their contents blanked (line numbers kept). */
export function prose(text: string): string {
  let fence: string | null = null;
  return text
    .split('\n')
    .map((line) => {
      const m = /^\s*(`{3,}|~{3,})/.exec(line);
      if (m) {
        if (fence === null) fence = m[1]!;
        else if (m[1]!.startsWith(fence)) fence = null;
        return '';
      }
      return fence === null ? line : '';
    })
    .join('\n');
}

/** A fenced block: its info string's language and tags (```sh runnable → sh, [runnable]), body and first line. */
export type Block = { page: string; line: number; lang: string; tags: string[]; body: string };

export function fencedBlocks(page: Page): Block[] {
  const blocks: Block[] = [];
  const lines = page.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*(`{3,}|~{3,})\s*(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    const fence = m[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(fence)) body.push(lines[j++]!);
    blocks.push({
      page: page.path,
      line: i + 1,
      lang: m[2]!,
      tags: m[3]!.split(/\s+/).filter(Boolean),
      body: body.join('\n'),
    });
    i = j;
  }
  return blocks;
}

// --- config.json: every field of the schema, with its default, in docs/config.md ---

/** The heading of docs/config.md's table of every field. */
export const CONFIG_TABLE_HEADING = '## Every field';

/** The rows of the table under CONFIG_TABLE_HEADING: the field's path and its default cell. */
export function configRows(text: string): Map<string, string> {
  const rows = new Map<string, string>();
  const start = text.indexOf(`\n${CONFIG_TABLE_HEADING}\n`);
  if (start < 0) return rows;
  const rest = text.slice(start + CONFIG_TABLE_HEADING.length + 2);
  const end = rest.search(/\n#{1,2} /);
  for (const line of (end < 0 ? rest : rest.slice(0, end)).split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|([^|]*)\|/.exec(line);
    if (m) rows.set(m[1]!, m[2]!.trim());
  }
  return rows;
}

/** A default as the table writes it: JSON without spaces, in backticks. */
export const defaultCell = (value: unknown): string => `\`${JSON.stringify(value)}\``;

/** An object of fields whose default is its fields' own defaults: its row says so instead of repeating them. */
const OWN_FIELDS_DEFAULT = "its fields'";

/**
 * Fields of the schema missing from docs/config.md's table, rows whose default is not the schema's, and rows that
 * name no field of the schema.
 */
export function configProblems(text: string, fields: readonly ConfigField[]): string[] {
  const rows = configRows(text);
  const problems: string[] = [];
  if (rows.size === 0)
    return [`docs/config.md has no "${CONFIG_TABLE_HEADING}" table (| \`field\` | default | meaning |)`];
  for (const f of fields) {
    const cell = rows.get(f.path);
    const expected =
      f.default === undefined
        ? '—'
        : f.container && typeof f.default === 'object' && f.default !== null && Object.keys(f.default).length > 0
          ? OWN_FIELDS_DEFAULT
          : defaultCell(f.default);
    if (cell === undefined)
      problems.push(
        `docs/config.md: the schema's field \`${f.path}\` is not documented; add the row | \`${f.path}\` | ${expected} | <what it does> | under "${CONFIG_TABLE_HEADING}"`,
      );
    else if (cell.replace(/\s+/g, '') !== expected.replace(/\s+/g, ''))
      problems.push(`docs/config.md: \`${f.path}\`'s default is ${expected} in the schema, but the table says ${cell}`);
  }
  const known = new Set(fields.map((f) => f.path));
  for (const path of rows.keys())
    if (!known.has(path))
      problems.push(
        `docs/config.md documents \`${path}\`, which shared/config.ts's schema does not have: remove the row`,
      );
  return problems;
}

// --- ```json config examples: a whole config.json, or a fragment of its fields, valid by its schema ---

/**
 * The problems of a `json config` example: a whole config.json (`{...}`) is checked by the whole schema, references
 * between fields included; a fragment (`"prices": [...]`, one or more of config.json's fields as they sit in the file)
 * field by field, each by its own schema.
 */
export function configExampleProblems(body: string, schema: z.ZodObject): string[] {
  let value: unknown;
  let fragment = false;
  try {
    value = JSON.parse(body);
  } catch {
    try {
      value = JSON.parse(`{${body}}`);
      fragment = true;
    } catch (e) {
      return [`neither a JSON object nor a fragment of one ("field": value): ${(e as Error).message}`];
    }
  }
  const issues = (r: z.ZodSafeParseResult<unknown>, prefix: string): string[] =>
    r.success
      ? []
      : r.error.issues.map((i) => `${[prefix, ...i.path].filter((p) => p !== '').join('.')}: ${i.message}`);
  if (!fragment) return issues(schema.safeParse(value), '');
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => {
    const field = schema.shape[key] as z.ZodType | undefined;
    return field ? issues(field.safeParse(v), key) : [`${key}: not a field of config.json`];
  });
}

// --- error codes: every code of the catalogue in docs/errors.md ---

export function errorCodeProblems(text: string, codes: readonly string[]): string[] {
  const documented = new Set([...prose(text).matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]!));
  return codes
    .filter((code) => !documented.has(code))
    .map(
      (code) =>
        `docs/errors.md: the error code \`${code}\` (shared/errors.ts) has no row in "## Every code"; add | \`${code}\` | <status> | <type> | <what it means> | <the fix> |`,
    );
}

// --- routes: every route the server registers, on a page of the docs ---

export type Route = { method: string; path: string };

/** A page whose tables write paths relative to a base says so in a comment: `<!-- routes-base: /api/v1 -->`. */
const BASE = /<!--\s*routes-base:\s*(\/[^\s>]*)/;

/** A route as a page mentions it (`GET /api/v1/agents/:id`), where, and the base its page declares. */
type Mention = Route & { page: string; line: number; base?: string };

function mentionsOf(pages: readonly Page[]): Mention[] {
  const mentions: Mention[] = [];
  for (const page of pages) {
    const base = BASE.exec(page.text)?.[1];
    for (const m of page.text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE|HEAD)\s+(\/[^\s`|),;]*)/g)) {
      const path = m[2]!.split('?')[0]!.replace(/[.:]$/, '');
      const line = page.text.slice(0, m.index).split('\n').length;
      mentions.push({ method: m[1]!, path, page: page.path, line, ...(base ? { base } : {}) });
    }
  }
  return mentions;
}

/** `GET /api/v1/agents/:id` as the docs write it, each mention also read under its page's base. */
export function routeMentions(pages: readonly Page[]): Route[] {
  return mentionsOf(pages).flatMap(({ method, path, base }) => [
    { method, path },
    ...(base && !path.startsWith(base) ? [{ method, path: base + (path === '/' ? '' : path) }] : []),
  ]);
}

/** A server route pattern (`:param`, `*`) as a regular expression over documented paths. */
function patternOf(path: string): RegExp {
  const body = path
    .split('/')
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

/** A documented path with its holes (`:id`, `<id>`, `{id}`, `*`) filled with a plain value. */
const concrete = (path: string): string =>
  path
    .split('/')
    .map((part) => (part.startsWith(':') ? 'x1' : part.replace(/<[^>]*>|\{[^}]*\}/g, 'x1').replace(/\*/g, 'x1')))
    .join('/');

export function routeProblems(pages: readonly Page[], routes: readonly Route[]): string[] {
  const mentions = routeMentions(pages).map((m) => ({ method: m.method, path: concrete(m.path) }));
  return routes
    .filter((r) => !mentions.some((m) => m.method === r.method && patternOf(r.path).test(m.path)))
    .map(
      (r) =>
        `the server serves ${r.method} ${r.path}, which no page of docs/ mentions: add it (as \`${r.method} ${r.path}\`) to the page of its API (gateway.md, agents.md, admin.md…)`,
    );
}

/**
 * Mentions of routes the server does not serve (renamed or removed since, or never there). A path relative to a base
 * some page declares (`/agents/:id` under `/api/v1`) is read under it too, and HEAD is served wherever GET is.
 */
export function staleRouteProblems(pages: readonly Page[], routes: readonly Route[]): string[] {
  const mentions = mentionsOf(pages);
  const bases = [...new Set(mentions.flatMap((m) => (m.base ? [m.base] : [])))];
  const served = (method: string, path: string): boolean =>
    routes.some(
      (r) =>
        (r.method === method || (method === 'HEAD' && r.method === 'GET')) && patternOf(r.path).test(concrete(path)),
    );
  return mentions
    .filter((m) => ![m.path, ...bases.map((b) => b + m.path)].some((p) => served(m.method, p)))
    .map(
      (m) =>
        `${m.page}:${m.line}: mentions ${m.method} ${m.path}, which the server does not serve: correct it or remove it (the server's routes: test/support/server-routes.ts)`,
    );
}

// --- links: every relative link and #anchor resolves ---

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a page offers: its headings' slugs (a repeated one gets -1, -2…) and `<a id>` / `<a name>`. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const s = slug(m[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    anchors.add(n === 0 ? s : `${s}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/**
 * The section an anchor names: from its heading to the next heading of the same or a higher level (the whole page
 * for its title, or no anchor); null when the page has no such heading.
 */
export function sectionOf(text: string, anchor: string | undefined): string | null {
  if (!anchor) return text;
  const lines = text.split('\n');
  const plain = prose(text).split('\n');
  const seen = new Map<string, number>();
  for (let i = 0; i < plain.length; i++) {
    const m = /^(#{1,6})\s+(.+?)\s*#*$/.exec(plain[i]!);
    if (!m) continue;
    const s = slug(m[2]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    if ((n === 0 ? s : `${s}-${n}`) !== anchor) continue;
    const level = m[1]!.length;
    let end = i + 1;
    while (end < plain.length && !(/^(#{1,6})\s/.exec(plain[end]!) && /^#+/.exec(plain[end]!)![0].length <= level))
      end++;
    return lines.slice(i, end).join('\n');
  }
  return null;
}

/** Markdown links `[text](target)` outside code blocks and inline code, with their text and the line they are on. */
export function linksOf(text: string): { target: string; line: number; text: string }[] {
  const out: { target: string; line: number; text: string }[] = [];
  prose(text)
    .split('\n')
    .forEach((line, i) => {
      // Inline code keeps its words (a link's text may hold some) but can no longer look like a link.
      const bare = line.replace(/`([^`]*)`/g, (_m, code: string) => code.replace(/[[\]()]/g, ' '));
      for (const m of bare.matchAll(/\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
        out.push({ target: m[2]!, line: i + 1, text: m[1]! });
    });
  return out;
}

/**
 * Links that do not resolve: a file that is not there (names compared exactly, as on a case-sensitive file system) or
 * an anchor its page lacks. `files` maps every path of the repository (`docs/config.md`, `deploy/`) to its text
 * (null for what is not Markdown, and for folders).
 */
export function linkProblems(pages: readonly Page[], files: ReadonlyMap<string, string | null>): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    for (const { target, line } of linksOf(page.text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const dir = page.path.includes('/') ? page.path.slice(0, page.path.lastIndexOf('/')) : '';
      const resolved = file === '' ? page.path : normalize(dir ? `${dir}/${decodeURI(file)}` : decodeURI(file));
      const where = `${page.path}:${line}`;
      if (resolved === null || !files.has(resolved.replace(/\/$/, ''))) {
        problems.push(`${where}: the link (${target}) names ${resolved ?? file}, which is not in the repository`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      const text = files.get(resolved.replace(/\/$/, ''));
      if (typeof text !== 'string' || !resolved.endsWith('.md')) continue;
      if (!anchorsOf(text).has(anchor))
        problems.push(
          `${where}: the link (${target}) names the anchor #${anchor}, which ${resolved} has no heading for`,
        );
    }
  }
  return problems;
}

/** `docs/../README.md` → `README.md`; null when it climbs out of the repository. */
function normalize(path: string): string | null {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/') + (path.endsWith('/') ? '/' : '');
}
