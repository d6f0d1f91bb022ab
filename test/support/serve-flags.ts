// The node flags `npm run serve` starts Switchboard with, read from package.json's serve script, so tests and benches
// start the compiled build exactly as a user's `npm run serve` does.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** What package.json's serve script puts between `node` and the script it runs
 * (`node --max-semi-space-size=8 bin/switchboard.mjs serve` → ['--max-semi-space-size=8']). */
export function serveNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts.serve!.trim().split(/\s+/);
  if (words[0] !== 'node')
    throw new Error(`package.json's serve script does not start with node: ${pkg.scripts.serve}`);
  const flags: string[] = [];
  for (const w of words.slice(1)) {
    if (!w.startsWith('--')) break;
    flags.push(w);
  }
  return flags;
}
