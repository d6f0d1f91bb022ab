// start_on_login: an XDG autostart .desktop file on Linux, app.setLoginItemSettings on Windows and macOS.
import path from 'node:path';

export type AutostartTarget = { execPath: string; args: string[] };

/**
 * The icon name the installed app's icon has: electron-builder installs it as its `executableName`
 * (electron-builder.yml's linux.executableName) under /usr/share/icons/hicolor, and names it so in its own .desktop.
 */
export const LINUX_ICON_NAME = 'switchboard-desktop';

/**
 * What start on login launches. From an AppImage, process.execPath lies inside the image's mount, which is gone once
 * it exits: $APPIMAGE is the file itself. Unpackaged (development), Electron's binary needs the app's folder.
 */
export function autostartTarget(o: {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  execPath: string;
  isPackaged: boolean;
  appPath: string;
}): AutostartTarget {
  const appImage = o.platform === 'linux' && o.isPackaged && o.env.APPIMAGE ? o.env.APPIMAGE : null;
  return {
    execPath: appImage ?? o.execPath,
    args: o.isPackaged ? ['--hidden'] : [o.appPath, '--hidden'],
  };
}

/**
 * Whether this launch starts in the tray only: `--hidden` (the autostart file, the Windows login item), or on macOS
 * a launch by the login item (macOS passes no arguments; `wasOpenedAtLogin` says it).
 */
export function startsHidden(argv: string[], platform: NodeJS.Platform, wasOpenedAtLogin: () => boolean): boolean {
  return argv.includes('--hidden') || (platform === 'darwin' && wasOpenedAtLogin());
}

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
    `Icon=${LINUX_ICON_NAME}`,
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
  setLoginItem: (settings: { openAtLogin: boolean; path?: string; args?: string[] }) => void;
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
  // macOS: a login item (SMAppService on macOS 13+); openAsHidden is deprecated there and arguments are not passed,
  // so the shell starts hidden when getLoginItemSettings().wasOpenedAtLogin says the login item opened it.
  d.setLoginItem(
    d.platform === 'darwin'
      ? { openAtLogin: enabled }
      : { openAtLogin: enabled, path: d.target.execPath, args: d.target.args },
  );
  return `login item ${enabled ? 'set' : 'cleared'}`;
}
