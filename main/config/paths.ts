// Where config.json lives on each platform (the same folder Electron's userData gives the desktop shell).
import os from 'node:os';
import path from 'node:path';

export const APP_DIR = 'Switchboard';

export type PathEnv = { platform: NodeJS.Platform; env: NodeJS.ProcessEnv; home: string };

const current = (): PathEnv => ({ platform: process.platform, env: process.env, home: os.homedir() });

/** The folder that holds config.json, admin-token, the request log and data/. */
export function defaultConfigDir(p: PathEnv = current()): string {
  const join = p.platform === 'win32' ? path.win32.join : path.posix.join;
  if (p.platform === 'win32') return join(p.env.APPDATA || join(p.home, 'AppData', 'Roaming'), APP_DIR);
  if (p.platform === 'darwin') return join(p.home, 'Library', 'Application Support', APP_DIR);
  const xdg = p.env.XDG_CONFIG_HOME;
  return join(xdg && path.isAbsolute(xdg) ? xdg : join(p.home, '.config'), APP_DIR);
}

/** config.json's path: --config, then SWITCHBOARD_CONFIG, then the platform default. */
export function resolveConfigPath(flag: string | undefined, p: PathEnv = current()): string {
  if (flag) return path.resolve(flag);
  if (p.env.SWITCHBOARD_CONFIG) return path.resolve(p.env.SWITCHBOARD_CONFIG);
  const dir = defaultConfigDir(p);
  return p.platform === 'win32' ? path.win32.join(dir, 'config.json') : path.posix.join(dir, 'config.json');
}
