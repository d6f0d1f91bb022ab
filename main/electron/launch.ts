// `npm start`: builds nothing itself; runs the desktop app with Electron's binary when it is installed
// (`npm run build` first), else says how to run the same engine headless.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entry = path.join(ROOT, 'dist/main/electron/main.js');

/** Electron's binary, if its install step downloaded one (read from its path.txt; never triggers a download). */
function electronBinary(): string | null {
  const pkg = path.join(ROOT, 'node_modules/electron');
  const pathFile = path.join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = path.join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}
const binary = electronBinary();

if (!existsSync(entry)) {
  process.stdout.write('The desktop app is not built yet: run `npm run build`, then `npm start`.\n');
  process.exitCode = 1;
} else if (!binary) {
  process.stdout.write(
    "Electron's binary is not installed here. Where Electron can be downloaded, fetch it with `node node_modules/electron/install.js` (npm 11 does not run its install script unless approved).\n" +
      'Run the same router and UI headless with:  npm run serve   (it prints the /ui link)\n',
  );
  process.exitCode = 1;
} else {
  const child = spawn(binary, [ROOT, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
}
