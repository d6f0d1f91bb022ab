// start_on_login between config.json and the system: applied with autostart.ts (login item, Run key, XDG file) and
// read back with login-item.ts. A change of start_on_login is always applied; a start applies it only where the
// system differs by itself (never over a login item the user turned off in the system's settings, or one waiting
// for their approval: Electron's setLoginItemSettings would turn it back on in Windows' Startup apps).
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { LoginItemState } from '../../shared/desktop.ts';
import { logger } from '../observability/logger.ts';
import { type AutostartTarget, applyStartOnLogin, autostartTarget, linuxAutostartPath } from './autostart.ts';
import type { ElectronApi } from './electron-api.ts';
import { describeLoginItem, type LoginItemReading, needsApplying } from './login-item.ts';

export type StartOnLoginOptions = {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  execPath: string;
};

export class StartOnLogin {
  constructor(
    private readonly e: Pick<ElectronApi, 'app'>,
    private readonly o: StartOnLoginOptions,
  ) {}

  /** What start on login launches (the AppImage itself, or Electron with the app's folder in development). */
  target(): AutostartTarget {
    return autostartTarget({ ...this.o, isPackaged: this.e.app.isPackaged, appPath: this.e.app.getAppPath() });
  }

  /** What the system says of the login item now (macOS status, Windows' Run key and Startup apps, the XDG file). */
  private async reading(): Promise<LoginItemReading> {
    const { e, o } = this;
    const target = this.target();
    if (o.platform === 'darwin') return { platform: 'darwin', settings: e.app.getLoginItemSettings() };
    if (o.platform === 'win32')
      return {
        platform: 'win32',
        settings: e.app.getLoginItemSettings({ path: target.execPath, args: target.args }),
        target,
      };
    const file = linuxAutostartPath(o.env, o.home);
    const text = await fsp.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    return { platform: 'linux', file, text, target };
  }

  /** The login item's state beside what start_on_login asks (`wanted`); `unknown` when the system could not say. */
  async read(wanted: boolean): Promise<LoginItemState> {
    try {
      return describeLoginItem(await this.reading(), wanted);
    } catch (err) {
      const message = `The system did not say whether Switchboard starts when you log in: ${(err as Error).message}`;
      return { state: 'unknown', wanted, message, settings_url: null };
    }
  }

  /** Applies start_on_login (`why`: a change, always; the start, only where the system differs by itself). */
  async apply(wanted: boolean, why: 'start' | 'change'): Promise<void> {
    const { e, o } = this;
    if (why === 'start' && !needsApplying((await this.read(wanted)).state, wanted)) return;
    await applyStartOnLogin(wanted, {
      platform: o.platform,
      env: o.env,
      home: o.home,
      target: this.target(),
      writeFile: async (f, t) => {
        await fsp.mkdir(path.dirname(f), { recursive: true });
        await fsp.writeFile(f, t, { mode: 0o644 });
      },
      removeFile: (f) => fsp.rm(f, { force: true }),
      setLoginItem: (s) => e.app.setLoginItemSettings(s),
    }).catch((err: Error) => logger.warn(`start on login was not applied: ${err.message}`));
  }
}
