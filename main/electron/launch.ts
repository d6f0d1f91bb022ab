// `npm start`: builds nothing itself; runs the desktop app with Electron's binary when it is installed
// (`npm run build` first), else says how to run the same engine headless.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electron-binary.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entry = path.join(ROOT, 'dist/main/electron/main.js');
const binary = electronBinary(ROOT);

if (!existsSync(entry)) {
  process.stdout.write('The desktop app is not built yet: run `npm run build`, then `npm start`.\n');
  process.exitCode = 1;
} else if (!binary) {
  process.stdout.write(
    "Electron's binary is not installed here. Where Electron can be downloaded, fetch it with `node node_modules/electron/install.js` (npm 11 does not run its install script unless approved), or set ELECTRON_PATH to an Electron binary.\n" +
      'Run the same router and UI headless with:  npm run serve   (it prints the /ui link)\n',
  );
  process.exitCode = 1;
} else {
  // The main process runs the router: its young generation capped as `npm run serve` caps node's (V8 sizes its heap at
  // start, so only the command line can; scripts/cli-loader.mjs says why).
  const child = spawn(binary, ['--js-flags=--max-semi-space-size=8 --liftoff-only', ROOT, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  child.on('exit', (code) => process.exit(code ?? 0));
}
