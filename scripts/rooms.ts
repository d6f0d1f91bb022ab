// The rooms of the house and what each may import (docs/ARCHITECTURE.md), checked on the real import statements of
// every source file: `npm test` fails when a room imports one it must not, or when folders of main/ import each
// other in a cycle. Run alone: `node --import tsx scripts/rooms.ts`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = /\.(ts|tsx|mts|mjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'out', 'coverage', '.git']);

export type Import = { file: string; line: number; spec: string; target: string | null };

/** Every source file below `dir` (relative to the repo root). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(path.join(ROOT, d))) {
      if (SKIP_DIRS.has(name)) continue;
      const rel = path.join(d, name);
      if (statSync(path.join(ROOT, rel)).isDirectory()) walk(rel);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(rel.split(path.sep).join('/'));
    }
  };
  walk(dir);
  return out;
}

const IMPORT =
  /(?:^|[^\w.])(?:import|export)\s*(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one file: the specifier and, for a relative one, the repo-relative path it names. */
export function importsOf(file: string, text = readFileSync(path.join(ROOT, file), 'utf8')): Import[] {
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!;
    const line = text.slice(0, m.index + m[0].search(/import|export/)).split('\n').length;
    const target = spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)) : null;
    out.push({ file, line, spec, target });
  }
  return out;
}

const isTest = (f: string): boolean => /\.(test|case|test-helper)\.tsx?$/.test(f);

/** The room rules: [the files a rule covers, whether an import breaks it, what the rule says]. */
type Rule = { name: string; covers: (f: string) => boolean; breaks: (i: Import) => boolean };

export const RULES: Rule[] = [
  {
    name: 'only main/electron/ (and preload/) import electron',
    covers: (f) => !f.startsWith('main/electron/') && !f.startsWith('preload/'),
    breaks: (i) => i.spec === 'electron' || i.spec.startsWith('electron/'),
  },
  {
    name: 'translation, routing, the gateway, the orchestrator, the usage store, Connect, the WAL, config and insight never import the HTTP layer (main/server/)',
    // Tests included: a test of a lower room that needs the HTTP app belongs beside the HTTP app.
    covers: (f) =>
      /^main\/(proxy|gateway|orchestrator|usage|connect|wal|config|observability|store|insight)\//.test(f) ||
      f === 'main/errors.ts',
    breaks: (i) => i.target !== null && i.target.startsWith('main/server/'),
  },
  {
    name: 'main/store/ (shared state) imports only shared/, main/errors.ts, main/observability/ and main/config/',
    covers: (f) => f.startsWith('main/store/') && !isTest(f),
    breaks: (i) =>
      i.target !== null &&
      !/^(shared|main\/store|main\/observability|main\/config)\//.test(i.target) &&
      i.target !== 'main/errors.ts',
  },
  {
    name: 'renderer/ imports shared/ only (and its own files and packages)',
    covers: (f) => f.startsWith('renderer/'),
    breaks: (i) => i.target !== null && !i.target.startsWith('renderer/') && !i.target.startsWith('shared/'),
  },
  {
    name: 'shared/ is contracts only: no main/, renderer/, preload/ or node: imports',
    covers: (f) => f.startsWith('shared/') && !isTest(f),
    breaks: (i) => i.spec.startsWith('node:') || (i.target !== null && !i.target.startsWith('shared/')),
  },
  {
    name: 'the shipped tree never imports test support (test/)',
    covers: (f) => /^(main|shared|renderer|preload)\//.test(f) && !isTest(f),
    breaks: (i) => i.target !== null && i.target.startsWith('test/'),
  },
];

export type Reader = (file: string) => string;
const fromDisk: Reader = (file) => readFileSync(path.join(ROOT, file), 'utf8');

export function roomViolations(files: string[], read: Reader = fromDisk): string[] {
  const out: string[] = [];
  for (const f of files) {
    const rules = RULES.filter((r) => r.covers(f));
    if (!rules.length) continue;
    for (const i of importsOf(f, read(f))) {
      for (const r of rules) if (r.breaks(i)) out.push(`${f}:${i.line} imports '${i.spec}': ${r.name}`);
    }
  }
  return out;
}

/** The folder of a main/ file, at each depth ('main/proxy/formats/hub/json.ts' → main/proxy, main/proxy/formats, …). */
function folderOf(file: string, depth: number): string | null {
  const parts = file.split('/');
  if (parts.length - 1 < depth + 1) return null;
  return parts.slice(0, depth + 1).join('/');
}

/**
 * Import cycles between folders of main/ (production files only), at every depth: main/proxy ⇄ main/server, and
 * inside a folder, e.g. main/proxy/formats ⇄ main/proxy/providers. Each cycle is reported as a path of folders.
 */
export function folderCycles(files: string[], read: Reader = fromDisk): string[][] {
  const prod = files.filter((f) => f.startsWith('main/') && !isTest(f));
  const cycles: string[][] = [];
  for (let depth = 1; depth <= 4; depth++) {
    const edges = new Map<string, Set<string>>();
    for (const f of prod) {
      const from = folderOf(f, depth);
      if (!from) continue;
      for (const i of importsOf(f, read(f))) {
        if (!i.target?.startsWith('main/')) continue;
        const to = folderOf(i.target, depth);
        if (!to || to === from || path.posix.dirname(from) !== path.posix.dirname(to)) continue;
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
      }
    }
    const seen = new Set<string>();
    const visit = (node: string, stack: string[]): void => {
      const at = stack.indexOf(node);
      if (at >= 0) {
        const cycle = [...stack.slice(at), node];
        const key = [...cycle.slice(0, -1)].sort().join(' ');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
        return;
      }
      for (const next of edges.get(node) ?? []) visit(next, [...stack, node]);
    };
    for (const node of edges.keys()) visit(node, []);
  }
  return cycles;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const files = ['main', 'shared', 'renderer', 'preload'].flatMap((d) => sourceFiles(d));
  const problems = roomViolations(files);
  for (const c of folderCycles(files)) problems.push(`import cycle between folders: ${c.join(' → ')}`);
  for (const p of problems) console.log(p);
  console.log(problems.length ? `${problems.length} problems` : 'rooms: no problems');
  process.exitCode = problems.length ? 1 : 0;
}
