// `npm test`: type-check, run every vitest test, and print the plain count CI reads as the last line.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env }).status ?? 1;

// One tsconfig per process: engine + Node (tsconfig.json), the renderer (DOM), the Electron shell + preload.
const tsc = ['tsconfig.json', 'tsconfig.renderer.json', 'tsconfig.electron.json']
  .map((p) => run('npx', ['tsc', '-p', p, '--noEmit']))
  .reduce((a, b) => a || b, 0);
if (tsc !== 0) console.error('type check failed');

const out = '.vitest-result.json';
rmSync(out, { force: true });
const vitest = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);

let passed = 0;
let failed = 0;
try {
  const result = JSON.parse(readFileSync(out, 'utf8'));
  passed = result.numPassedTests ?? 0;
  // A test file that fails to load counts no tests: count it as one failure so it is never silent.
  const brokenFiles = (result.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0).length;
  failed = (result.numFailedTests ?? 0) + brokenFiles;
} catch {
  failed += 1; // no JSON result: vitest itself did not run
}
if (tsc !== 0) failed += 1;
const code = tsc !== 0 || vitest !== 0 || failed > 0 || passed === 0 ? 1 : 0;
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);
