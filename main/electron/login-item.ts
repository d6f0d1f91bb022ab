// Start on login as the system sees it, read back after Switchboard asked for it (autostart.ts writes it):
// - macOS 13+: the login item's SMAppService status (`app.getLoginItemSettings().status`): enabled, requires-approval
//   (the user must allow it in System Settings › General › Login Items), not-registered, not-found; before 13, only
//   whether it is set (`openAtLogin`);
// - Windows: the Run key's entry for this executable and whether Startup apps (Task Manager, Settings › Apps ›
//   Startup) allows it (`launchItems[].enabled`, `executableWillLaunchAtLogin`);
// - Linux: the XDG autostart file: missing, ours, pointing at another program (an AppImage that moved), or turned off
//   by the desktop's Startup Applications (`Hidden=true`, `X-GNOME-Autostart-enabled=false`).
import type { LoginItemState } from '../../shared/desktop.ts';
import type { AutostartTarget } from './autostart.ts';
import { linuxAutostartFile } from './autostart.ts';
import type { LoginItemSettingsLike } from './electron-api.ts';

/** System Settings › General › Login Items (macOS 13+). */
export const MACOS_LOGIN_ITEMS_URL = 'x-apple.systempreferences:com.apple.LoginItems-Settings.extension';
/** Settings › Apps › Startup (Windows 10 1803+ and 11). */
export const WINDOWS_STARTUP_APPS_URL = 'ms-settings:startupapps';

export type LoginItemReading =
  | { platform: 'darwin'; settings: LoginItemSettingsLike }
  | { platform: 'win32'; settings: LoginItemSettingsLike; target: AutostartTarget }
  | { platform: 'linux'; file: string; text: string | null; target: AutostartTarget };

type State = LoginItemState['state'];

/** An autostart file a desktop's Startup Applications turned off. */
function linuxTurnedOff(text: string): boolean {
  return /^Hidden\s*=\s*true\s*$/im.test(text) || /^X-GNOME-Autostart-enabled\s*=\s*false\s*$/im.test(text);
}

function execLine(text: string): string | null {
  return /^Exec\s*=(.*)$/m.exec(text)?.[1]?.trim() ?? null;
}

/** The state alone, per OS. */
export function loginItemStateOf(r: LoginItemReading): State {
  if (r.platform === 'darwin') {
    if (r.settings.status) return r.settings.status;
    return r.settings.openAtLogin ? 'enabled' : 'not-registered'; // before macOS 13
  }
  if (r.platform === 'win32') {
    const items = (r.settings.launchItems ?? []).filter(
      (i) => i.path.toLowerCase() === r.target.execPath.toLowerCase(),
    );
    if (items.length === 0) return r.settings.openAtLogin ? 'enabled' : 'not-registered';
    return items.some((i) => i.enabled) ? 'enabled' : 'disabled';
  }
  if (r.text === null) return 'not-registered';
  if (linuxTurnedOff(r.text)) return 'disabled';
  return execLine(r.text) === execLine(linuxAutostartFile(r.target)) ? 'enabled' : 'not-found';
}

/** The state with what it means for start_on_login (`wanted`), in words, and where to fix it. */
export function describeLoginItem(r: LoginItemReading, wanted: boolean): LoginItemState {
  const state = loginItemStateOf(r);
  const url =
    r.platform === 'darwin' ? MACOS_LOGIN_ITEMS_URL : r.platform === 'win32' ? WINDOWS_STARTUP_APPS_URL : null;
  const where =
    r.platform === 'darwin'
      ? 'System Settings › General › Login Items'
      : r.platform === 'win32'
        ? 'Settings › Apps › Startup (or Task Manager › Startup apps)'
        : `your desktop's Startup Applications (${r.file})`;
  const say = (message: string, settings_url: string | null = null): LoginItemState => ({
    state,
    wanted,
    message,
    settings_url,
  });
  switch (state) {
    case 'enabled':
      return wanted
        ? say('Switchboard starts when you log in.')
        : say(
            `Start on login is off here, but the system still starts Switchboard at login: turn it off in ${where}.`,
            url,
          );
    case 'requires-approval':
      return say(
        wanted
          ? `Start on login waits for your approval: allow Switchboard in ${where}.`
          : `A login item is registered and waits for approval in ${where}; leave it off there.`,
        url,
      );
    case 'not-registered':
      return wanted
        ? say('Start on login is on, but the system has no login item for Switchboard: turn it off and on again.')
        : say('Switchboard does not start when you log in.');
    case 'not-found':
      return say(
        r.platform === 'linux'
          ? `The autostart file ${r.file} starts another program than this Switchboard: turn start on login off and on again.`
          : 'macOS cannot find the app its login item names (it moved or was replaced): turn start on login off and on again.',
        url,
      );
    case 'disabled':
      return wanted
        ? say(`Start on login is turned off in ${where}: turn Switchboard on there.`, url)
        : say('Switchboard does not start when you log in.');
    default:
      return say('The system did not say whether Switchboard starts when you log in.');
  }
}

/** Whether a start of the shell should (re)apply start_on_login: only where the system differs from it by itself. */
export function needsApplying(state: State, wanted: boolean): boolean {
  if (!wanted) return state === 'enabled' || state === 'requires-approval' || state === 'not-found';
  // Turned off by the user in the system's own settings, or waiting for their approval: theirs to change, not ours.
  return state === 'not-registered' || state === 'not-found' || state === 'unknown';
}

/** The tray's line when the login item is not what start_on_login asks for (null when it is). */
export function loginItemTrayLine(s: LoginItemState): string | null {
  if (!s.wanted) return s.state === 'enabled' ? 'The system still starts Switchboard at login' : null;
  switch (s.state) {
    case 'enabled':
      return null;
    case 'requires-approval':
      return 'Start on login needs your approval in System Settings';
    case 'disabled':
      return s.settings_url
        ? 'Start on login is turned off in Startup apps'
        : 'Start on login is turned off by the desktop';
    case 'not-found':
      return 'Start on login points at another copy of the app';
    case 'not-registered':
      return 'Start on login did not register with the system';
    default:
      return 'Start on login: the system did not say';
  }
}
