// The node flags Switchboard runs with are the same wherever it is started (issue 17): package.json's serve script
// (which benches and tests read: test/support/serve-flags.ts), the `switchboard` command's #! line, the systemd unit,
// the desktop launcher's --js-flags, and the value the CLI loader puts in the code cache's flag hash; the WebAssembly
// flag the loader and the desktop app's main both set; and the CLI bundle is what the loader expects (pure ASCII, the
// CommonJS wrapper itself, strict).
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveNodeFlags } from './support/serve-flags.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (f: string) => fs.readFile(path.join(ROOT, f), 'utf8');

describe('runtime flags', () => {
  it("package.json serve caps the young generation and keeps undici's WebAssembly parser in Liftoff", () => {
    expect(serveNodeFlags()).toEqual(['--max-semi-space-size=8', '--liftoff-only']);
  });

  it('every other way of starting it uses the same flags', async () => {
    const flags = serveNodeFlags().join(' ');
    const shebang = (await read('bin/switchboard.mjs')).split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${flags}`);
    const unit = await read('deploy/switchboard.service');
    expect(unit).toMatch(
      new RegExp(`^ExecStart=/usr/bin/node ${flags} /opt/switchboard/bin/switchboard\\.mjs serve`, 'm'),
    );
    const launch = await read('main/electron/launch.ts');
    expect(launch).toContain(`'--js-flags=${flags}'`);
    const loader = await read('scripts/cli-loader.mjs');
    const semi = /const SEMI_SPACE_MB = (\d+);/.exec(loader)?.[1];
    const wasm = /const WASM_TIERING = '([^']+)';/.exec(loader)?.[1];
    expect(`--max-semi-space-size=${semi} ${wasm}`).toBe(flags);
  });

  it("the desktop app keeps undici's WebAssembly parser in Liftoff as the CLI loader does", async () => {
    const wasm = /const WASM_TIERING = '([^']+)';/.exec(await read('scripts/cli-loader.mjs'))?.[1];
    expect(wasm).toBe('--liftoff-only');
    expect(await read('main/electron/main.ts')).toContain(`v8.setFlagsFromString('${wasm}');`);
  });

  it('the built CLI bundle is ASCII, the CommonJS wrapper itself, and strict', async () => {
    const file = path.join(ROOT, 'dist/main/cli.cjs');
    const bytes = await fs.readFile(file);
    expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
    const text = bytes.toString('latin1');
    expect(
      text.startsWith("(function (exports, require, module, __filename, __dirname, __sbImport) {'use strict';"),
    ).toBe(true);
    expect(text.trimEnd().endsWith('})')).toBe(true);
  });
});
