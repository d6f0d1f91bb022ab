// Where Electron's binary is: $ELECTRON_PATH when set, else the one the `electron` package's install step downloaded
// (named in its path.txt). Never triggers a download. Used by `npm start` (launch.ts) and the smoke test.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function electronBinary(root: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.ELECTRON_PATH) return existsSync(env.ELECTRON_PATH) ? env.ELECTRON_PATH : null;
  const pkg = path.join(root, 'node_modules/electron');
  const pathFile = path.join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = path.join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}
