// The repository's Markdown as the doc tests read it: every file git knows (tracked or new, not ignored), with the
// text of each Markdown page and every folder on the way (so a link to a folder resolves).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from './checks.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const read = (p: string): string => fs.readFileSync(path.join(ROOT, p), 'utf8');

/** Every file (Markdown with its text, the rest and folders as null), by its path from the root. */
export function repoFiles(): Map<string, string | null> {
  const list = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\n')
    .filter((f) => f && fs.existsSync(path.join(ROOT, f)));
  const files = new Map<string, string | null>();
  for (const f of list) {
    files.set(f, f.endsWith('.md') ? read(f) : null);
    for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) files.set(d, null);
  }
  return files;
}

/** The Markdown a reader follows: the front page, docs/, and every README and DECISIONS page of the code. */
export function markdownPages(files: ReadonlyMap<string, string | null>): Page[] {
  return [...files.entries()]
    .filter(([f, text]) => typeof text === 'string' && !f.startsWith('test/fixtures/'))
    .map(([f, text]) => ({ path: f, text: text! }));
}
