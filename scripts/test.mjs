// `npm test`: type-check, run every vitest project (unit, then e2e), and print the plain count CI reads as the last
// line: `N passed, N failed` (`, N skipped` when some did not run). The line always agrees with the exit code: a
// failure no test shows (a hook, a file that does not load, vitest itself) counts as a failed test.
// Extra arguments go to vitest (`npm test -- --project unit` runs the unit tests alone, without building the UI).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { summarize } from './test-summary.mjs';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env }).status ?? 1;

// One tsconfig per process: engine + Node (tsconfig.json), the renderer (DOM), the Electron shell + preload.
const tsc = ['tsconfig.json', 'tsconfig.renderer.json', 'tsconfig.electron.json']
  .map((p) => run('npx', ['tsc', '-p', p, '--noEmit']))
  .reduce((a, b) => a || b, 0);
if (tsc !== 0) console.error('type check failed');
// The tree stays formatted (Prettier, print width 120: .prettierrc.json); `npm run format` fixes it.
const formatted = run('npx', ['prettier', '--check', '--log-level', 'warn', '.']) === 0;

const out = '.vitest-result.json';
rmSync(out, { force: true });
const vitest = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${out}`,
  ...process.argv.slice(2),
]);

let report = null;
try {
  report = JSON.parse(readFileSync(out, 'utf8'));
} catch {
  // no JSON result: vitest itself did not run (summarize counts that as a failure)
}
const { line, notes, code } = summarize(report, {
  tscFailed: tsc !== 0,
  unformatted: !formatted,
  vitestStatus: vitest,
});
for (const n of notes) console.log(n);
console.log(line);
process.exit(code);
