// Installers for an architecture other than the machine's (the release workflow builds Windows' and macOS' x64 and
// arm64 on one runner each): npm installs the prebuilt N-API binary of @node-rs/crc32 (the WAL's checksum) for this
// machine only, so this installs the one of every target architecture of this OS too, from the npm registry, at the
// version package-lock.json holds (nothing is compiled; nothing comes from elsewhere). Run after `npm ci`:
//   node scripts/native-deps.mjs x64 arm64
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The packages with a prebuilt binary per platform (their optionalDependencies name one package per target). */
export const NATIVE_PACKAGES = ['@node-rs/crc32'];

/** The binary package of `pkg` for this OS and architecture, as napi-rs names them (glibc on Linux). */
export function binaryPackage(pkg, platform, arch) {
  const target =
    platform === 'win32' ? `win32-${arch}-msvc` : platform === 'linux' ? `linux-${arch}-gnu` : `${platform}-${arch}`;
  return `${pkg}-${target}`;
}

/** `name@version` of each binary package the installers for these architectures need, read from the installed one. */
export function nativePackagesFor(platform, archs, root = ROOT) {
  const wanted = [];
  for (const pkg of NATIVE_PACKAGES) {
    const meta = JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8'));
    const optional = meta.optionalDependencies ?? {};
    for (const arch of archs) {
      const name = binaryPackage(pkg, platform, arch);
      if (!(name in optional))
        throw new Error(`${pkg} ${meta.version} has no binary for ${platform}-${arch} (${name})`);
      wanted.push(`${name}@${optional[name]}`);
    }
  }
  return wanted;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const archs = process.argv.slice(2);
  if (archs.length === 0) {
    process.stderr.write('usage: node scripts/native-deps.mjs <arch>... (x64, arm64)\n');
    process.exit(2);
  }
  const specs = nativePackagesFor(process.platform, archs);
  process.stdout.write(`native-deps: ${specs.join(' ')}\n`);
  // --force: npm refuses a package whose os/cpu is not this machine's otherwise; --no-save: package.json and the
  // lock stay as they are.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    ['install', '--no-save', '--force', '--ignore-scripts', '--no-audit', '--no-fund', ...specs],
    {
      cwd: ROOT,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    },
  );
  process.exit(r.status ?? 1);
}
