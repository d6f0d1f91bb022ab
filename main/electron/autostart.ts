// start_on_login: an XDG autostart .desktop file on Linux, app.setLoginItemSettings on Windows and macOS.
import path from 'node:path';

export type AutostartTarget = { execPath: string; args: string[] };

/** Quotes one Exec argument per the Desktop Entry spec (double quotes; \ " ` $ escaped). */
export function desktopExecArg(arg: string): string {
  if (/^[A-Za-z0-9_./:=@+-]+$/.test(arg)) return arg;
  return `"${arg.replace(/([\\"`$])/g, '\\$1')}"`;
}

export function linuxAutostartFile(t: AutostartTarget): string {
  const exec = [t.execPath, ...t.args].map(desktopExecArg).join(' ').replace(/%/g, '%%');
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Switchboard',
    'Comment=Local LLM router',
    `Exec=${exec}`,
    'Icon=switchboard',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** $XDG_CONFIG_HOME/autostart/switchboard.desktop, or ~/.config/autostart/switchboard.desktop. */
export function linuxAutostartPath(env: NodeJS.ProcessEnv, home: string): string {
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return path.join(base, 'autostart', 'switchboard.desktop');
}

export type AutostartDeps = {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  target: AutostartTarget;
  writeFile: (file: string, text: string) => Promise<void>;
  removeFile: (file: string) => Promise<void>;
  /** Electron's app.setLoginItemSettings (Windows, macOS). */
  setLoginItem: (settings: { openAtLogin: boolean; openAsHidden?: boolean; path?: string; args?: string[] }) => void;
};

/** Applies start_on_login for real; returns what it did, for the log. */
export async function applyStartOnLogin(enabled: boolean, d: AutostartDeps): Promise<string> {
  if (d.platform === 'linux') {
    const file = linuxAutostartPath(d.env, d.home);
    if (enabled) {
      await d.writeFile(file, linuxAutostartFile(d.target));
      return `wrote ${file}`;
    }
    await d.removeFile(file);
    return `removed ${file}`;
  }
  d.setLoginItem({
    openAtLogin: enabled,
    ...(d.platform === 'darwin' ? { openAsHidden: true } : { path: d.target.execPath, args: d.target.args }),
  });
  return `login item ${enabled ? 'set' : 'cleared'}`;
}
