// Test support: starts the desktop shell (main/electron/shell.ts) against the Electron stand-in, as main.ts starts it
// with the real Electron: the real engine on a free port, config.json and the user-data folder (electron-store's
// desktop state) in a temp folder of the run, a scriptable autoUpdater. Used by the shell's lifecycle tests.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { DESKTOP_STORE_OPTIONS } from '../../main/electron/desktop-state.ts';
import { type ShellHandle, startShell } from '../../main/electron/shell.ts';
import {
  type ElectronStandIn,
  electronStandIn,
  electronStoreOn,
  FakeUpdater,
  type StandInOptions,
} from './electron-standin.ts';
import { freePort } from './ports.ts';
import { configFor, eventually } from './serve-process.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RENDERER = path.join(ROOT, 'renderer/index.html');

export type ShellRun = {
  si: ElectronStandIn;
  handle: ShellHandle;
  dir: string;
  configPath: string;
  updater: FakeUpdater;
  port: number;
};

export type LaunchOptions = {
  /** config.json (a function gets the free port the run listens on). */
  config?: Record<string, unknown> | ((port: number) => Record<string, unknown>);
  configText?: string;
  platform?: NodeJS.Platform;
  standIn?: StandInOptions;
  env?: NodeJS.ProcessEnv;
  argv?: string[];
  /** The run's folder (config.json, userData/, xdg/): pass an earlier run's to launch again on the same state. */
  dir?: string;
  /** Keep the config.json already in `dir`. */
  keepConfig?: boolean;
};

/** A launcher whose runs are quit and removed by `cleanup()` (an afterEach). */
export function shellLauncher(providerUrl: () => string) {
  const runs: ShellRun[] = [];

  async function launch(o: LaunchOptions = {}): Promise<ShellRun> {
    const dir = o.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'sb-shell-')));
    const configPath = path.join(dir, 'config.json');
    let port = await freePort();
    if (o.keepConfig) port = (JSON.parse(await fs.readFile(configPath, 'utf8')) as { listen_port: number }).listen_port;
    else if (o.configText !== undefined) await fs.writeFile(configPath, o.configText);
    else
      await fs.writeFile(
        configPath,
        JSON.stringify(
          typeof o.config === 'function'
            ? o.config(port)
            : (o.config ?? { ...configFor({ alpha: providerUrl() }), listen_port: port }),
        ),
      );
    const si = electronStandIn({
      platform: o.platform ?? 'linux',
      userData: path.join(dir, 'userData'),
      execPath: '/usr/bin/electron',
      ...o.standIn,
    });
    const updater = new FakeUpdater(si.app);
    const handle = startShell(si.electron, {
      configPath,
      version: '0.1.0',
      argv: o.argv ?? ['/usr/bin/electron', '/opt/switchboard-app'],
      platform: o.platform ?? 'linux',
      env: { XDG_CONFIG_HOME: path.join(dir, 'xdg'), ...o.env },
      home: dir,
      execPath: '/usr/bin/electron',
      paths: { renderer: RENDERER, preload: path.join(dir, 'preload.cjs'), assets: path.join(ROOT, 'assets') },
      updater: () => updater,
      desktopStore: () => electronStoreOn(si.app, DESKTOP_STORE_OPTIONS),
      trayRefreshMs: 100,
    });
    const run = { si, handle, dir, configPath, updater, port };
    runs.push(run);
    await handle.ready;
    return run;
  }

  /** Quits as the tray's Quit does and waits until the server is stopped and the app has quit. */
  async function quit(run: ShellRun): Promise<void> {
    run.si.app.quit();
    await run.handle.stopped;
    await eventually(() => expect(run.si.app.quitDone).toBe(true));
  }

  async function cleanup(): Promise<void> {
    for (const run of runs.splice(0)) {
      if (!run.si.app.quitDone && run.si.app.exitCode === null) await quit(run);
      await fs.rm(run.dir, { recursive: true, force: true });
    }
  }

  return { launch, quit, cleanup, runs };
}
