// dist/main/cli.js (copied here by scripts/build.mjs): runs the CLI bundle (cli.cjs, one CommonJS file) with a V8
// code cache beside it, so a start does not parse and compile ~1.8 MB of JavaScript again (about 100 ms of CPU per
// start on these machines; see docs/PERFORMANCE.md). The cache is named after the bundle's size and mtime, so a
// rebuilt bundle never meets an old cache (V8 itself only checks the source's length), and after the Node version;
// V8 rejects a cache made with other flags, and the bundle is then compiled as usual; a rebuilt bundle's first write
// removes the caches of the old one. A missing or rejected cache is
// written two seconds after start (what start-up compiled by then), atomically, when the folder is writable.
// SWITCHBOARD_CODE_CACHE=warm writes it as soon as the start is done and exits (the build does this once);
// SWITCHBOARD_CODE_CACHE=off runs without it.
// The bundle is pure ASCII, already wrapped in the CommonJS function (scripts/build.mjs), and read as latin1: Node
// keeps a source that large outside the JS heap as one one-byte string, the one V8 compiles and keeps (a UTF-8 read
// and Module.wrap made two two-byte copies on the heap, 11 MiB at idle).
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

/** The young generation's semi-space in MiB: the `--max-semi-space-size` of package.json's serve (a test checks). */
const SEMI_SPACE_MB = 8;

// The old generation grows by V8's own factor. It grew by 10 % past what survived the last full GC
// (--heap-growing-percent=10) while the request log's ring kept entry objects that died old (peak RSS ~175 -> ~135
// MiB at c=64 then); since the ring keeps columns (session 29) the proxy bench peaks the same without it (109 against
// 108 MiB), and with it a workload whose live heap grows (agents: every task stays in the store) ran a full GC every
// 10 % of growth: 12 instead of 2 in the agents bench, ~15 % of its CPU per task (docs/PERFORMANCE.md).
// SWITCHBOARD_HEAP_GROWING_PERCENT=N sets a percentage again; set before the bundle is compiled, so the code cache's
// flag hash is the same when it is written and when it is read.
const growing = Number(process.env.SWITCHBOARD_HEAP_GROWING_PERCENT ?? 0); // 0: V8's own factor
if (growing > 0) v8.setFlagsFromString(`--heap-growing-percent=${growing}`);
// The young generation is capped at 2 x 8 MiB: `npm run serve`, the `switchboard` command (its #! line), the systemd
// unit and the desktop launcher start node with --max-semi-space-size=8 (V8 sizes its heap at start, so only the
// command line can do it). V8's default (16) doubles it under load for ~1.5 us of scavenging per request less: peak
// RSS under the proxy bench 1.39x -> 1.23x the floor (docs/PERFORMANCE.md). Set here too, after the fact (it no
// longer changes the heap), so the code cache's flag hash is the same however node was started.
v8.setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
// main/observability/memory-trim.ts turns --expose-gc on when it first collects (its gc() comes from a fresh context;
// this one's global stays as it is): on from the start here, so the flag hash does not change under the code cache.
v8.setFlagsFromString('--expose-gc');
// undici parses every upstream reply with llhttp compiled to WebAssembly. V8 compiles it with Liftoff, then (on the
// first reply already) recompiles its one huge state-machine function with TurboFan, whose compiler zones take ~35 MiB
// of malloc for ~60 ms: the process's peak RSS went from ~76 to ~110 MiB on its first proxied request, and ~10 MiB of
// it stayed in a compiler thread's malloc arena (why idle RSS read 76 or 86 MiB from one start to the next). Liftoff's
// code is all it runs now: no measurable cost per request or on the first byte (docs/PERFORMANCE.md). The desktop app
// sets the same flag (main/electron/main.ts). Node 24's V8 no longer takes it once running (peak 25 MiB with it set
// here, 3 with it on the command line; Node 20 and 22 take it either way), so `npm run serve`, the #! line, the
// systemd unit and the desktop launcher pass it on node's command line too (issue 31, found by the as-shipped tests
// on Node 24). Set here as well, before the bundle is compiled, for the code cache's flag hash and for a node started
// without it.
const WASM_TIERING = '--liftoff-only';
v8.setFlagsFromString(WASM_TIERING);

const bundle = fileURLToPath(new URL('./cli.cjs', import.meta.url));
const dir = path.dirname(bundle);
const mode = process.env.SWITCHBOARD_CODE_CACHE ?? 'on';
const source = fs.readFileSync(bundle, 'latin1');
const st = fs.statSync(bundle);
// One cache per bundle and Node version: V8 rejects another version's, and Node 20, 22 and 24 running the same
// install (the as-shipped tests do) would otherwise overwrite each other's at every start.
const bundleId = `${st.size}-${Math.round(st.mtimeMs)}`;
const cacheName = `cli.cjs.${bundleId}.node-${process.versions.node}.cache`;
const cacheFile = path.join(dir, cacheName);
let cachedData;
if (mode !== 'off') {
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // none yet
  }
}
// No dynamic-import callback: on Node 20 a script compiled from the code cache loses it, and every import() inside
// throws "A dynamic import callback was not specified" (issue 31). The build gives each import() of the bundle to the
// wrapper's sixth parameter instead, filled below with this module's own import(), which works on every Node, cached
// or not. (A stray import() in the bundle fails the build, and would fail here with or without the cache.)
const script = new vm.Script(source, { filename: bundle, cachedData });
const fresh = cachedData === undefined || script.cachedDataRejected === true;
cachedData = undefined; // the buffer is V8's now (or unused): not held by this module
const cli = new Module(bundle);
cli.filename = bundle;
cli.paths = Module._nodeModulePaths(dir);
/** The bundle's import(): resolved from this file, which sits beside it (dist/main), so as the bundle's would be. */
const importFromBundle = (specifier) => import(specifier);
script.runInThisContext().call(cli.exports, cli.exports, createRequire(bundle), cli, bundle, dir, importFromBundle);

function writeCache() {
  try {
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
    for (const f of fs.readdirSync(dir))
      if (f.startsWith('cli.cjs.') && f.endsWith('.cache') && !f.startsWith(`cli.cjs.${bundleId}.`))
        fs.rmSync(path.join(dir, f), { force: true });
  } catch {
    // a read-only install: it runs without a cache
  }
}
if (mode === 'warm') {
  setTimeout(() => {
    writeCache();
    process.exit(0);
  }, 1500);
} else if (mode !== 'off' && fresh) {
  setTimeout(writeCache, 2000).unref();
}
