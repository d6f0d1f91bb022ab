// The CLI loader (dist/main/cli.js): runs cli.cjs through a V8 code cache named after the bundle's size and mtime,
// writes the cache when there is none, and never runs an old cache's code for a rebuilt bundle of the same length
// (V8 checks only the source's length).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFile, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp.ts';
import { serveNodeFlags } from '../test/support/serve-flags.ts';
import { testNode } from '../test/support/test-node.ts';

const LOADER = fileURLToPath(new URL('./cli-loader.mjs', import.meta.url));
// As the build makes it: the CommonJS wrapper function itself (the loader compiles the file as it is).
const bundle = (word: string) =>
  `(function (exports, require, module, __filename, __dirname) {'use strict';process.stdout.write(${JSON.stringify(word)} + ' ' + typeof require + '\\n');\n})`;

// A bundle that proxies nothing but parses 20 replies with undici (llhttp, WebAssembly), then prints the most malloc
// V8 ever held (compiler zones included).
const undiciBundle = (undici: string) =>
  `(function (exports, require, module, __filename, __dirname) {'use strict';
const http = require('node:http'); const v8 = require('node:v8'); const { request } = require(${JSON.stringify(undici)});
const server = http.createServer((q, s) => s.end('{"ok":true}')).listen(0, '127.0.0.1', async () => {
  for (let i = 0; i < 20; i++) { const r = await request('http://127.0.0.1:' + server.address().port + '/'); await r.body.text(); }
  await new Promise((r) => setTimeout(r, 500));
  process.stdout.write(String(v8.getHeapStatistics().peak_malloced_memory));
  server.close(); process.exit(0);
});
})`;

/** Runs the loader in `dir` as users start it: the project's Node with package.json serve's flags. */
function run(dir: string, mode?: string): string {
  const out = spawnSync(testNode(), [...serveNodeFlags(), path.join(dir, 'cli.js')], {
    env: { ...process.env, ...(mode ? { SWITCHBOARD_CODE_CACHE: mode } : {}) },
    encoding: 'utf8',
  });
  expect(out.status, out.stderr).toBe(0);
  return out.stdout.trim();
}

describe('CLI loader', () => {
  it('writes a cache named after the bundle, and a rebuilt bundle of the same length runs its own code', async () => {
    const t = await makeTempDir('switchboard-cli-loader');
    try {
      await copyFile(LOADER, path.join(t.dir, 'cli.js'));
      await writeFile(path.join(t.dir, 'package.json'), '{"type":"module"}');
      await writeFile(path.join(t.dir, 'cli.cjs'), bundle('AAAA'));
      expect(run(t.dir, 'warm')).toBe('AAAA function');
      const caches = (await readdir(t.dir)).filter((f) => f.endsWith('.cache'));
      expect(caches).toHaveLength(1);
      expect(run(t.dir)).toBe('AAAA function'); // with the cache

      await writeFile(path.join(t.dir, 'cli.cjs'), bundle('BBBB')); // same length, new code
      const later = new Date(Date.now() + 5_000);
      await utimes(path.join(t.dir, 'cli.cjs'), later, later);
      expect(run(t.dir)).toBe('BBBB function');
      expect(run(t.dir, 'off')).toBe('BBBB function');
    } finally {
      await t.cleanup();
    }
  });

  // Issue 31: on Node 20 a script compiled from V8's code cache lost its dynamic-import callback, so every import()
  // in the bundle threw "A dynamic import callback was not specified" once the cache was accepted (MCP, http_get and
  // JWTs broke in the build only). The build hands each import() to the wrapper's sixth parameter, which the loader
  // fills with its own import().
  it("serves the bundle's import() with and without the cache, on each Node", async () => {
    const t = await makeTempDir('switchboard-cli-loader');
    const undiciUrl = pathToFileURL(createRequire(import.meta.url).resolve('undici')).href;
    try {
      await copyFile(LOADER, path.join(t.dir, 'cli.js'));
      await writeFile(path.join(t.dir, 'package.json'), '{"type":"module"}');
      await writeFile(
        path.join(t.dir, 'cli.cjs'),
        `(function (exports, require, module, __filename, __dirname, __sbImport) {'use strict';
globalThis.later = async () => (await __sbImport('node:os')).platform() + ' ' + typeof (await __sbImport(${JSON.stringify(undiciUrl)})).fetch;
later().then((p) => process.stdout.write(p + '\\n'));
})`,
      );
      const expected = `${process.platform} function`;
      expect(run(t.dir, 'off')).toBe(expected);
      expect(run(t.dir, 'warm')).toBe(expected); // writes the cache
      expect((await readdir(t.dir)).filter((f) => f.endsWith('.cache'))).toHaveLength(1);
      expect(run(t.dir)).toBe(expected); // compiled from the cache
      expect(run(t.dir)).toBe(expected);
    } finally {
      await t.cleanup();
    }
  });

  it("keeps undici's WebAssembly parser out of TurboFan: no ~35 MiB compiler peak on the first replies", async () => {
    const t = await makeTempDir('switchboard-cli-loader');
    try {
      await copyFile(LOADER, path.join(t.dir, 'cli.js'));
      await writeFile(path.join(t.dir, 'package.json'), '{"type":"module"}');
      const undici = createRequire(import.meta.url).resolve('undici');
      await writeFile(path.join(t.dir, 'cli.cjs'), undiciBundle(undici));
      const peak = Number(run(t.dir, 'off'));
      expect(peak).toBeGreaterThan(0);
      // With TurboFan's recompile of llhttp the peak is ~36 MiB (docs/PERFORMANCE.md); Liftoff alone stays near 2.
      expect(peak / 1048576).toBeLessThan(16);
    } finally {
      await t.cleanup();
    }
  });
});
