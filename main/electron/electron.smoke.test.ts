// The real desktop app, where Electron's binary is present ($ELECTRON_PATH, or the `electron` package's downloaded
// binary) and there is a display ($DISPLAY, or Xvfb started here): `npm run build`, then Electron on the build, driven
// by playwright-core's Electron support. With SWITCHBOARD_PACKAGED_APP (the release workflow, .github/workflows/
// release.yml), the installed app itself instead: the executable electron-builder made (out/linux-unpacked/
// switchboard-desktop, out/win-unpacked/Switchboard.exe, out/mac-arm64/Switchboard.app/Contents/MacOS/Switchboard…),
// which must then run (never skipped). It checks that the engine listens and answers /v1/models, the window shows the
// UI (over IPC), the tray has its menu, the window's CSP is in force, the desktop state (electron-store, in the
// user-data folder given by --user-data-dir) is read, the Dock icon shows with the window on macOS, and Quit stops the
// server. Where it cannot run, it says so once and is reported as skipped (never as passed); `npm test` repeats why
// in its summary.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort } from '../../test/support/ports.ts';
import { configFor, eventually } from '../../test/support/serve-process.ts';
import { electronBinary } from './electron-binary.ts';
import type { ShellState } from './shell.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The packaged app's executable (the release workflow), run as installed: no build, no app folder argument. */
const PACKAGED = process.env.SWITCHBOARD_PACKAGED_APP ? path.resolve(process.env.SWITCHBOARD_PACKAGED_APP) : null;
const BINARY = PACKAGED ?? electronBinary(ROOT);
const XVFB = ['/usr/bin/Xvfb', '/usr/local/bin/Xvfb'].find((p) => fs.existsSync(p)) ?? null;
const needsDisplay = process.platform === 'linux' && !process.env.DISPLAY;

// A packaged app named but missing is a failure of the release, not a reason to skip.
const whyNot = PACKAGED
  ? null
  : !BINARY
    ? "no Electron binary here (set ELECTRON_PATH, or run `node node_modules/electron/install.js` where Electron's " +
      'download is reachable)'
    : needsDisplay && !XVFB
      ? 'no display (set DISPLAY, or install Xvfb: apt-get install xvfb)'
      : null;
if (whyNot) process.stdout.write(`The Electron smoke test did not run: ${whyNot}.\n`);

describe.skipIf(whyNot !== null)('the real desktop app (Electron smoke test)', () => {
  let xvfb: ChildProcess | null = null;
  let electronApp: ElectronApplication | null = null;
  let mock: MockProvider;
  let dir: string;
  let port: number;

  beforeAll(async () => {
    if (PACKAGED && !fs.existsSync(PACKAGED)) throw new Error(`SWITCHBOARD_PACKAGED_APP=${PACKAGED} does not exist`);
    if (!PACKAGED) {
      const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 });
      if (built.status !== 0) throw new Error('npm run build failed');
    }
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (needsDisplay) {
      const display = `:${90 + Math.floor(Math.random() * 9)}`;
      xvfb = spawn(XVFB!, [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 1000));
      env.DISPLAY = display;
    }
    mock = await startMockProvider({ name: 'alpha' });
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sb-electron-'));
    port = await freePort();
    await fsp.writeFile(
      path.join(dir, 'config.json'),
      JSON.stringify({ ...configFor({ alpha: mock.baseUrl }), listen_port: port }),
    );
    // The app's own state, as an earlier launch left it: updates off (a packaged app would ask GitHub otherwise).
    await fsp.mkdir(path.join(dir, 'userData'), { recursive: true });
    await fsp.writeFile(path.join(dir, 'userData/desktop-state.json'), JSON.stringify({ auto_update: 'off' }));
    electronApp = await _electron.launch({
      executablePath: BINARY!,
      args: [
        ...(PACKAGED ? [] : [ROOT]),
        `--user-data-dir=${path.join(dir, 'userData')}`,
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      ],
      env: { ...env, SWITCHBOARD_CONFIG: path.join(dir, 'config.json'), XDG_CONFIG_HOME: path.join(dir, 'xdg') },
      timeout: 60_000,
    });
  }, 400_000);

  afterAll(async () => {
    await electronApp?.close().catch(() => undefined);
    xvfb?.kill();
    await mock?.close();
    if (dir) await fsp.rm(dir, { recursive: true, force: true });
  });

  // The shell main.ts started, as the main process loaded it (the app's folder, or app.asar when packaged).
  const shellState = () =>
    electronApp!.evaluate(async ({ app }) => {
      const url = await import('node:url');
      const main = url.pathToFileURL(`${app.getAppPath()}/dist/main/electron/main.js`).href;
      return ((await import(main)) as { desktop: { state(): ShellState } }).desktop.state();
    });

  it('starts the engine, shows the UI in the window over IPC, and has its tray', async () => {
    const win = await electronApp!.firstWindow();
    await win.getByTestId('nav-overview').waitFor({ timeout: 30_000 });
    await eventually(async () => expect(await win.locator('nav .nav-foot').textContent()).toContain(`port ${port}`));
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(200);
    const state = await shellState();
    expect(state).toMatchObject({ running: true, port, window: { visible: true } });
    expect(state.tray?.labels).toContain('Quit Switchboard');
    expect(state.tray?.labels).toContain('Claude Code: routing rules');
    expect(state.tray?.tooltip).toMatch(/^Switchboard: .*\nLast minute: /);
    expect(state.auto_update).toBe('off'); // read from the user-data folder by electron-store
    expect(state.dock).toBe(process.platform === 'darwin' ? true : null);
    // The window's policy is in force on its file:// page: an injected inline script does not run.
    // (A string: this project's tsconfig has no DOM types.)
    const injected = `(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true';
      document.head.append(s);
      return window.__injected === true;
    })()`;
    expect(await win.evaluate(injected)).toBe(false);
  });

  it('Quit stops the server and ends the app', async () => {
    const exited = new Promise((r) => electronApp!.process().once('exit', r));
    await electronApp!.evaluate(({ app }) => app.quit());
    await exited;
    electronApp = null;
    expect(
      await fetch(`http://127.0.0.1:${port}/v1/models`).then(
        () => 'open',
        () => 'closed',
      ),
    ).toBe('closed');
  });
});
