// `npm test`: type-check, run every vitest project (unit; the as-shipped tier on Node 20, 22 and 24; e2e), and print
// the plain count CI reads as the last line: `N passed, N failed` (`, N skipped` when some did not run), after a line
// with the as-shipped tier's counts per Node. The line always agrees with the exit code: a failure no test shows (a
// hook, a file that does not load, vitest itself, a Node of the tier that could not be installed) counts as failed.
// Extra arguments go to vitest (`npm test -- --project unit` runs the unit tests alone, without building anything).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { summarize } from './test-summary.mjs';
import { TEST_NODES, testNodeBinary } from './test-nodes.mjs';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env }).status ?? 1;

// One tsconfig per process: engine + Node (tsconfig.json), the renderer (DOM), the Electron shell + preload.
const tsc = ['tsconfig.json', 'tsconfig.renderer.json', 'tsconfig.electron.json']
  .map((p) => run('npx', ['tsc', '-p', p, '--noEmit']))
  .reduce((a, b) => a || b, 0);
if (tsc !== 0) console.error('type check failed');
// The tree stays formatted (Prettier, print width 120: .prettierrc.json); `npm run format` fixes it.
const formatted = run('npx', ['prettier', '--check', '--log-level', 'warn', '.']) === 0;

// The as-shipped tier's Nodes other than this one come from the npm registry (scripts/test-nodes.mjs), installed
// once before vitest starts; one that cannot be installed leaves its project out, as a failure that says why.
const given = process.argv.slice(2);
const projectArgs = new Set(
  given.flatMap((a, i) => (a === '--project' ? [i, i + 1] : a.startsWith('--project=') ? [i] : [])),
);
const asked = [...projectArgs]
  .map((i) => given[i])
  .filter((a) => a !== '--project')
  .map((a) => a.replace(/^--project=/, ''));
const all = ['unit', ...Object.keys(TEST_NODES).map((m) => `shipped-node${m}`), 'e2e'];
const selected = asked.length > 0 ? asked : all;
const setupFailures = [];
const runnable = selected.filter((name) => {
  const major = /^shipped-node(\d+)$/.exec(name)?.[1];
  if (!major) return true;
  try {
    testNodeBinary(major);
    return true;
  } catch (err) {
    setupFailures.push(`the as-shipped tests on Node ${major} did not run: ${err.message}`);
    return false;
  }
});
const args =
  runnable.length === selected.length
    ? given
    : [...given.filter((_, i) => !projectArgs.has(i)), ...runnable.flatMap((p) => ['--project', p])];

const out = '.vitest-result.json';
const perProject = '.vitest-projects.json';
rmSync(out, { force: true });
rmSync(perProject, { force: true });
process.env.SWITCHBOARD_TEST_PROJECTS = perProject;
const vitest =
  runnable.length === 0
    ? 1
    : run('npx', [
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=json',
        '--reporter=./scripts/test-projects-reporter.mjs',
        `--outputFile.json=${out}`,
        ...args,
      ]);

let report = null;
try {
  report = JSON.parse(readFileSync(out, 'utf8'));
} catch {
  // no JSON result: vitest itself did not run (summarize counts that as a failure)
}
let projectCounts = null;
try {
  projectCounts = JSON.parse(readFileSync(perProject, 'utf8'));
} catch {
  // no per-project counts: the as-shipped line is left out
}
const { line, notes, code } = summarize(report, {
  tscFailed: tsc !== 0,
  unformatted: !formatted,
  vitestStatus: vitest,
  projects: projectCounts,
  setupFailures,
});
for (const n of notes) console.log(n);
console.log(line);
process.exit(code);
