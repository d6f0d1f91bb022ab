// The build: what `switchboard serve` and the desktop app run, compiled once so nothing pays for TypeScript at run
// time. `npm ci` runs it (the prepare step); `npm run serve` and bin/switchboard.mjs re-run it when the sources are
// newer than the build.
//   runtime  main/cli.ts and main/electron/main.ts → dist/main/{cli,electron/main}.js: one esbuild bundle with code
//            splitting, so what a command does not use (the orchestrator's MCP client, prices, connect's parsers, …)
//            stays in chunks loaded on first use. Dependencies are bundled too (one file read instead of hundreds of
//            module resolutions), except native, worker-based and Electron packages, left to node_modules.
//   ui       renderer/ → dist/renderer (vite), served at /ui and loaded by the desktop window.
//   preload  preload/preload.ts → dist/preload/preload.cjs (a sandboxed preload must be CommonJS).
// Usage: node scripts/build.mjs [--if-stale] [--runtime-only]
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');

/** Packages left to node_modules: native (.node), Electron's, and those required on first use (pino-pretty for a
 * terminal, the price table for the first cloud price: CommonJS builds loaded synchronously when needed). */
export const EXTERNAL = [
  'electron',
  'electron-updater',
  '@node-rs/crc32',
  'pino-pretty',
  '@pydantic/genai-prices',
  'ajv',
  'koffi',
];

/** The sources each part is built from; a part is stale when one of them is newer than its stamp. */
export const PARTS = {
  runtime: {
    sources: [
      'main',
      'shared',
      'package.json',
      'package-lock.json',
      'scripts/build.mjs',
      'scripts/cli-loader.mjs',
      'scripts/undici-http2-lazy.cjs',
    ],
    stamp: 'dist/.runtime-stamp',
  },
  ui: { sources: ['renderer', 'shared', 'vite.config.ts', 'package-lock.json'], stamp: 'dist/.ui-stamp' },
  preload: { sources: ['preload', 'shared'], stamp: 'dist/.preload-stamp' },
};

function newestMtime(p) {
  let st;
  try {
    st = statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    if (entry.isFile() && /\.test\.[tj]sx?$/.test(entry.name)) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry.name)));
  }
  return newest;
}

/** True when the part was never built in `root` or one of its sources changed since. */
export function isStaleIn(root, part) {
  const { sources, stamp } = PARTS[part];
  const stampFile = path.join(root, stamp);
  if (!existsSync(stampFile)) return true;
  const built = statSync(stampFile).mtimeMs;
  return sources.some((s) => newestMtime(path.join(root, s)) > built);
}

export const isStale = (part) => isStaleIn(ROOT, part);

function stampPart(part) {
  const file = path.join(ROOT, PARTS[part].stamp);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${new Date().toISOString()}\n`);
}

/** Packages the CLI bundle leaves to node_modules too: used only by commands or features that load them on first
 * use (MCP servers, Connect's editors, JWTs, WebSockets, the Redis store), so a start never parses them. */
export const CLI_EXTERNAL = [
  ...EXTERNAL,
  '@modelcontextprotocol/sdk',
  'yaml',
  'smol-toml',
  'jsonc-parser',
  'jose',
  'ws',
  'ioredis',
];

/** Packages the desktop bundle leaves to node_modules: the CLI's (each loaded on first use there too, so the installed
 * app ships each once, in node_modules, and no second copy inside the bundle), and electron-store (it imports
 * Electron itself). Not jsonc-parser: its "main" is a UMD build whose exports an ES module's import cannot name, so
 * the ES module bundle keeps its ESM build inside (and the installers leave its node_modules copy out). package.json's
 * "dependencies" are exactly these, the CLI's and undici (test/installers.test.ts). */
export const DESKTOP_EXTERNAL = [...CLI_EXTERNAL.filter((n) => n !== 'jsonc-parser'), 'electron-store'];

/** undici's index (fetch, for http_get and the port-conflict check) stays in node_modules; the Agent the proxy takes
 * from its own module (main/proxy/undici-agent.ts) is bundled. */
const undiciIndexExternal = {
  name: 'undici-index-external',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', external: true }));
  },
};

/** zod's `z.locales` namespace pulls all 48 of its error-message locales (~300 KB, thousands of functions) into any
 * bundle that uses `z` as a value; Switchboard's messages are English (the default zod registers itself), so
 * `z.locales` holds English only. */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir)
        ? { path: 'zod-locales-en', namespace: 'zod-english-only' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: ROOT,
      loader: 'js',
    }));
  },
};

/** undici's HTTP/2 client requires node:http2 when undici's Agent loads (~7 ms of a start with node:tls); in the CLI
 * bundle it gets scripts/undici-http2-lazy.cjs instead: the constants it reads at load, node:http2 on first use. */
const undiciHttp2Lazy = {
  name: 'undici-http2-lazy',
  setup(b) {
    b.onResolve({ filter: /^node:http2$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer)
        ? { path: path.join(ROOT, 'scripts/undici-http2-lazy.cjs') }
        : undefined,
    );
  },
};

async function buildRuntime(outdir = 'dist') {
  const esbuild = await import('esbuild');
  // Built beside, then swapped in with renames: a process starting meanwhile sees the old build or the new one,
  // never half of each (benches and `switchboard` may rebuild while another process runs dist/).
  const staging = path.join(outdir, `.build-${process.pid}`);
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    // jsonc-parser's "main" is a UMD build whose require() calls esbuild cannot follow; its ESM build can be.
    mainFields: ['module', 'main'],
    legalComments: 'none',
    logLevel: 'warning',
  };
  // The CLI (switchboard serve and the commands): one CommonJS file run through a V8 code cache (scripts/cli-loader.mjs
  // becomes dist/main/cli.js). Modules loaded on first use are in it but run (and are compiled) only when used.
  // Whitespace and comments are minified away (2.9 -> 1.8 MB: less to keep in memory and to reparse when a lazy
  // function first runs); names are kept, so stack frames still name their functions (`npm run dev` runs the sources).
  // The file is the CommonJS wrapper function itself, so the loader compiles the string it read (no second copy),
  // and pure ASCII (esbuild escapes the rest; checked below), so that string is one byte per character.
  const cliFile = path.join(staging, 'main/cli.cjs');
  const cli = await esbuild.build({
    ...common,
    entryPoints: ['main/cli.ts'],
    outfile: cliFile,
    format: 'cjs',
    external: CLI_EXTERNAL,
    plugins: [undiciIndexExternal, zodEnglishOnly, undiciHttp2Lazy],
    define: { 'import.meta.url': '__sbImportMetaUrl' },
    minifyWhitespace: true,
    banner: {
      js: "(function (exports, require, module, __filename, __dirname, __sbImport) {'use strict';const __sbImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    footer: { js: '\n})' },
    metafile: true,
  });
  const cliPath = path.join(ROOT, cliFile);
  const nonAscii = readFileSync(cliPath).findIndex((b) => b > 0x7f);
  if (nonAscii !== -1)
    throw new Error(`${cliFile}: a non-ASCII byte at offset ${nonAscii} (the loader reads it as latin1)`);
  writeFileSync(cliPath, routeDynamicImports(readFileSync(cliPath, 'latin1'), cliFile, cli.metafile), 'latin1');
  writeFileSync(
    path.join(ROOT, staging, 'main/dynamic-imports.json'),
    `${JSON.stringify(lazyModules(cli.metafile, readFileSync(cliPath, 'latin1')), null, 2)}\n`,
  );
  copyFileSync(path.join(ROOT, 'scripts/cli-loader.mjs'), path.join(ROOT, staging, 'main/cli.js'));
  // The desktop app's main process: ES modules with code splitting (what it does not use stays in chunks).
  await esbuild.build({
    ...common,
    entryPoints: ['main/electron/main.ts'],
    outbase: '.',
    outdir: staging,
    entryNames: '[dir]/[name]',
    chunkNames: 'main/chunks/[name]-[hash]',
    splitting: true,
    format: 'esm',
    external: DESKTOP_EXTERNAL,
    // undici's index stays in node_modules here too: bundled into an ES module chunk, a CommonJS package exports only
    // `default`, so `const { Agent, fetch } = await import('undici')` got undefined and http_get failed with "Agent is
    // not a constructor" in the desktop app (found by test/shipped/electron-bundle.test.ts). Node's own import()
    // gives its named exports.
    plugins: [undiciIndexExternal],
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __sbCreateRequire } from 'node:module';\nconst require = __sbCreateRequire(import.meta.url);",
    },
  });
  const target = path.join(ROOT, outdir, 'main');
  const old = path.join(ROOT, outdir, `.old-${process.pid}`);
  if (existsSync(target)) renameSync(target, old);
  renameSync(path.join(ROOT, staging, 'main'), target);
  rmSync(path.join(ROOT, staging), { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
  warmCodeCache(path.join(target, 'cli.js'));
}

/**
 * The CLI bundle's `import()` calls, each given to `__sbImport` (the sixth parameter of the bundle's wrapper, which the
 * loader fills with an `import()` of its own module). Node 20 loses a script's dynamic-import callback when the script
 * is compiled from V8's code cache: every `import()` inside then throws "A dynamic import callback was not specified"
 * (issue 31: MCP, http_get and JWTs broke in the build only). The loader is an ES module, so its own `import()` always
 * works, on every Node, with or without the cache. esbuild turns the `import()` of a bundled module into a call in
 * the bundle; what is left is the `import()` of an external package, named by a string: anything else fails the build.
 */
export function routeDynamicImports(text, file, metafile) {
  const external = new Set();
  for (const input of Object.values(metafile.inputs))
    for (const imp of input.imports) if (imp.kind === 'dynamic-import' && imp.external) external.add(imp.path);
  return text.replace(/(?<![\w$.])import\(/g, (match, offset) => {
    const spec = /^import\("([^"\\]+)"\)/.exec(text.slice(offset, offset + 300))?.[1];
    if (spec === undefined || !external.has(spec))
      throw new Error(
        `${file}: an import() the loader cannot serve at offset ${offset} (${JSON.stringify(text.slice(offset, offset + 60))}): ` +
          'in the CLI bundle an import() must name an external package as a string (scripts/build.mjs CLI_EXTERNAL)',
      );
    return '__sbImport(';
  });
}

/**
 * What the CLI bundle loads after its start, written beside it as dynamic-imports.json: every `import()` of a bundled
 * module (run on first use) or of an external package, and every external package it requires (left to node_modules:
 * the build cannot see them load). A test (test/shipped/dynamic-imports.test.ts) maps each to the feature test that
 * runs it through the compiled `serve`, so nothing the build loads lazily goes untested on the build.
 */
export function lazyModules(metafile, text) {
  const sources = Object.keys(metafile.inputs).filter((f) => /^(main|shared)\//.test(f));
  const read = new Map();
  const sourceOf = (f) => {
    if (!read.has(f)) read.set(f, readFileSync(path.join(ROOT, f), 'utf8'));
    return read.get(f);
  };
  const entries = new Map();
  const add = (module, kind, from) => {
    const e = entries.get(module) ?? { module, kind, from: [] };
    if (from && !e.from.includes(from)) e.from.push(from);
    entries.set(module, e);
  };
  for (const [file, input] of Object.entries(metafile.inputs))
    for (const imp of input.imports)
      if (imp.kind === 'dynamic-import') add(imp.path, imp.external ? 'external import()' : 'bundled import()', file);
  // External packages as the bundle names them: require("ws"), __sbImport("jose"), requireHere("ajv/dist/2020.js").
  const names = CLI_EXTERNAL.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
  for (const m of text.matchAll(new RegExp(`\\("((?:${names})(?:/[^"]*)?)"\\)`, 'g'))) {
    const module = m[1];
    if (entries.has(module)) continue;
    const named = (f) => [`from '${module}'`, `('${module}')`].some((s) => sourceOf(f).includes(s));
    const from = sources.filter(named);
    add(module, 'external require', undefined);
    for (const f of from) add(module, 'external require', f);
  }
  return [...entries.values()].sort((a, b) => a.module.localeCompare(b.module));
}

/** The node flags of package.json's serve script (`node --max-semi-space-size=8 --liftoff-only bin/…` → the two). */
export function serveNodeFlags() {
  const serve = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
    .scripts.serve.trim()
    .split(/\s+/);
  const flags = [];
  for (const w of serve.slice(1)) {
    if (!w.startsWith('--')) break;
    flags.push(w);
  }
  return flags;
}

/**
 * Starts `serve` once on a throwaway config and port so the loader writes the V8 code cache of a start, with `node`
 * (this one by default) and the flags `npm run serve` and the #! line start it with: V8 accepts a cache only from
 * the same version and flags (made without them, the build's cache was rejected at every user's first start).
 */
export function warmCodeCache(cli = path.join(DIST, 'main/cli.js'), node = process.execPath) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'switchboard-warm-'));
  try {
    const config = path.join(home, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ providers: [], routing: { rules: [] }, health_check: { interval_ms: 0, timeout_ms: 5000 } }),
    );
    spawnSync(node, [...serveNodeFlags(), cli, 'serve', '--config', config, '--port', '0', '--host', '127.0.0.1'], {
      cwd: home,
      env: { ...process.env, SWITCHBOARD_CODE_CACHE: 'warm', XDG_CONFIG_HOME: home, SWITCHBOARD_LOG_LEVEL: 'error' },
      stdio: 'ignore',
      timeout: 20_000,
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function run(cmd, args) {
  const out = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (out.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${out.status})`);
}

function buildUi() {
  run(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
}

async function buildPreload() {
  const esbuild = await import('esbuild');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['preload/preload.ts'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['electron'],
    outfile: 'dist/preload/preload.cjs',
    logLevel: 'warning',
  });
}

/** Builds the stale parts (every part unless ifStale), returns the names built. */
export async function build({ ifStale = false, runtimeOnly = false, log = () => {} } = {}) {
  const parts = runtimeOnly ? ['runtime'] : ['runtime', 'ui', 'preload'];
  const todo = parts.filter((p) => !ifStale || isStale(p));
  for (const part of todo) {
    const started = Date.now();
    log(part);
    if (part === 'runtime') await buildRuntime();
    else if (part === 'ui') buildUi();
    else await buildPreload();
    stampPart(part);
    log(`${part} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return todo;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const args = new Set(argv);
  try {
    // --out DIR: the runtime alone into DIR (inside the project, so node_modules resolves), for experiments that
    // must not replace the dist/ other processes are running.
    if (args.has('--out')) {
      await buildRuntime(argv[argv.indexOf('--out') + 1]);
      process.exit(0);
    }
    await build({
      ifStale: args.has('--if-stale'),
      runtimeOnly: args.has('--runtime-only'),
      log: (m) => process.stderr.write(`[build] ${m}\n`),
    });
  } catch (err) {
    process.stderr.write(`[build] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
