#!/usr/bin/env -S node --max-semi-space-size=8 --liftoff-only
// (env -S splits the #! line's arguments: coreutils 8.30+, macOS, and npm's Windows shims; the flag caps V8's young
// generation at 2 x 8 MiB, as `npm run serve` does: scripts/cli-loader.mjs says why.)
// The `switchboard` command: runs the compiled build (dist/main/cli.js, made by `npm run build`, which `npm ci` and
// `npm install` run as the prepare step). In a source checkout, a build older than its sources is rebuilt first
// (about a second; the UI only when renderer/ changed), so the command never runs stale code. Without a build, a
// checkout with its dev dependencies runs the TypeScript through tsx; a production install (`npm ci --omit=dev`, the
// Docker image) runs only the build: tsx is a dev dependency, never shipped (the desktop installers neither).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/main/cli.js`;
const sources = existsSync(`${root}main/cli.ts`);
const canBuild = sources && existsSync(`${root}node_modules/esbuild`) && existsSync(`${root}scripts/build.mjs`);

if (canBuild && process.env.SWITCHBOARD_NO_BUILD !== '1') {
  const { build } = await import(pathToFileURL(`${root}scripts/build.mjs`).href);
  await build({
    ifStale: true,
    // A command other than serve needs no UI; serve's /ui link should work.
    runtimeOnly: process.argv[2] !== 'serve',
    log: (m) => process.stderr.write(`switchboard: building ${m}\n`),
  });
}
if (existsSync(cli)) {
  await import(pathToFileURL(cli).href);
} else if (sources && existsSync(`${root}node_modules/tsx`)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(`${root}main/cli.ts`).href);
} else {
  process.stderr.write(`switchboard: ${cli} is missing; run npm ci (with the dev dependencies), then npm run build\n`);
  process.exit(1);
}
