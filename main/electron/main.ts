// The Electron entry: hands Electron's real API (and electron-updater's autoUpdater) to the shell (shell.ts), which
// the lifecycle tests run against a stand-in that records every call (test/support/electron-standin.ts). The paths
// are the build's: dist/main/electron → dist/renderer, dist/preload, assets/.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import {
  BrowserWindow,
  Menu,
  Notification,
  Tray,
  app,
  dialog,
  ipcMain,
  nativeImage,
  nativeTheme,
  screen,
  session,
  shell,
} from 'electron';
import ElectronStore from 'electron-store';
import electronUpdater from 'electron-updater';
import { resolveConfigPath } from '../config/paths.ts';
import { VERSION } from '../version.ts';
import { DESKTOP_STORE_OPTIONS } from './desktop-state.ts';
import { startShell } from './shell.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// undici's reply parser (llhttp, WebAssembly) stays in Liftoff's code: TurboFan's recompile of it costs ~35 MiB of
// malloc on the first proxied request (scripts/cli-loader.mjs sets the same flag for `serve`; docs/PERFORMANCE.md).
v8.setFlagsFromString('--liftoff-only');

// `--user-data-dir=<folder>` (Chromium's switch) moves the app's own state too: electron-store's desktop state and the
// single-instance lock (the smoke test starts the packaged app on a folder of its own).
const userDataDir = process.argv.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
if (userDataDir) app.setPath('userData', path.resolve(userDataDir));

/** The running shell: its state() is what the smoke test (electron.smoke.test.ts) checks in the real app. */
export const desktop = startShell(
  { app, BrowserWindow, Tray, Menu, ipcMain, dialog, shell, nativeTheme, nativeImage, screen, Notification, session },
  {
    configPath: resolveConfigPath(undefined),
    version: VERSION,
    argv: process.argv,
    platform: process.platform,
    env: process.env,
    home: os.homedir(),
    execPath: process.execPath,
    paths: {
      renderer: path.resolve(HERE, '../../renderer/index.html'), // dist/renderer in a packaged build
      preload: path.resolve(HERE, '../../preload/preload.cjs'),
      assets: path.resolve(HERE, '../../../assets'),
    },
    // Asked for only when packaged: electron-updater reads app-update.yml, which electron-builder writes from `publish`.
    updater: () => electronUpdater.autoUpdater,
    // The app's own state (window, auto-update switch) in <userData>/desktop-state.json; config.json stays the engine's.
    desktopStore: () => new ElectronStore<Record<string, unknown>>(DESKTOP_STORE_OPTIONS),
  },
);
