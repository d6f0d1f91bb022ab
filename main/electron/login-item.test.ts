// Start on login read back from each system (login-item.ts): what the state is, what it says, when a start re-applies.
import { describe, expect, it } from 'vitest';
import { linuxAutostartFile } from './autostart.ts';
import {
  describeLoginItem,
  loginItemStateOf,
  loginItemTrayLine,
  MACOS_LOGIN_ITEMS_URL,
  needsApplying,
  WINDOWS_STARTUP_APPS_URL,
} from './login-item.ts';

const target = { execPath: 'C:\\Users\\u\\AppData\\Local\\Programs\\Switchboard\\Switchboard.exe', args: ['--hidden'] };
const item = (enabled: boolean, path = target.execPath) => ({
  name: 'dev.switchboard.app',
  path,
  args: ['--hidden'],
  scope: 'user' as const,
  enabled,
});

describe('the login item per OS', () => {
  it('macOS 13+: the SMAppService status as it is; before 13, only whether it is set', () => {
    for (const status of ['enabled', 'requires-approval', 'not-registered', 'not-found'] as const)
      expect(loginItemStateOf({ platform: 'darwin', settings: { openAtLogin: status === 'enabled', status } })).toBe(
        status,
      );
    expect(loginItemStateOf({ platform: 'darwin', settings: { openAtLogin: true } })).toBe('enabled');
    expect(loginItemStateOf({ platform: 'darwin', settings: { openAtLogin: false } })).toBe('not-registered');
  });

  it("Windows: this executable's Run key entry, and whether Startup apps allows it (path case ignored)", () => {
    const win = (launchItems: ReturnType<typeof item>[]) =>
      loginItemStateOf({ platform: 'win32', settings: { openAtLogin: false, launchItems }, target });
    expect(win([item(true)])).toBe('enabled');
    expect(win([item(true, target.execPath.toUpperCase())])).toBe('enabled');
    expect(win([item(false)])).toBe('disabled');
    expect(win([])).toBe('not-registered');
    expect(win([item(true, 'C:\\Other\\app.exe')])).toBe('not-registered');
  });

  it('Linux: the autostart file missing, ours, turned off by the desktop, or starting another program', () => {
    const t = { execPath: '/home/u/Apps/Switchboard.AppImage', args: ['--hidden'] };
    const linux = (text: string | null) =>
      loginItemStateOf({ platform: 'linux', file: '/home/u/.config/autostart/switchboard.desktop', text, target: t });
    const ours = linuxAutostartFile(t);
    expect(linux(null)).toBe('not-registered');
    expect(linux(ours)).toBe('enabled');
    expect(linux(ours.replace('X-GNOME-Autostart-enabled=true', 'X-GNOME-Autostart-enabled=false'))).toBe('disabled');
    expect(linux(`${ours}Hidden=true\n`)).toBe('disabled');
    expect(linux(ours.replace('/home/u/Apps/', '/home/u/Downloads/'))).toBe('not-found');
  });
});

describe('what it says and when a start applies start_on_login again', () => {
  it('says where to approve or turn it on, with the settings page to open', () => {
    const approval = describeLoginItem(
      { platform: 'darwin', settings: { openAtLogin: false, status: 'requires-approval' } },
      true,
    );
    expect(approval).toEqual({
      state: 'requires-approval',
      wanted: true,
      message: 'Start on login waits for your approval: allow Switchboard in System Settings › General › Login Items.',
      settings_url: MACOS_LOGIN_ITEMS_URL,
    });
    expect(loginItemTrayLine(approval)).toBe('Start on login needs your approval in System Settings');
    const off = describeLoginItem(
      { platform: 'win32', settings: { openAtLogin: true, launchItems: [item(false)] }, target },
      true,
    );
    expect(off.settings_url).toBe(WINDOWS_STARTUP_APPS_URL);
    expect(off.message).toContain('turned off in Settings › Apps › Startup');
    expect(loginItemTrayLine(off)).toBe('Start on login is turned off in Startup apps');
    const fine = describeLoginItem({ platform: 'darwin', settings: { openAtLogin: true, status: 'enabled' } }, true);
    expect(fine.message).toBe('Switchboard starts when you log in.');
    expect(loginItemTrayLine(fine)).toBeNull();
    const notWanted = describeLoginItem(
      { platform: 'darwin', settings: { openAtLogin: false, status: 'not-registered' } },
      false,
    );
    expect(loginItemTrayLine(notWanted)).toBeNull();
  });

  it("never applies over the user's own choice in the system (turned off, or waiting for approval)", () => {
    expect(needsApplying('disabled', true)).toBe(false);
    expect(needsApplying('requires-approval', true)).toBe(false);
    expect(needsApplying('enabled', true)).toBe(false);
    expect(needsApplying('not-registered', true)).toBe(true);
    expect(needsApplying('not-found', true)).toBe(true); // the app moved: registered again from here
    expect(needsApplying('not-registered', false)).toBe(false);
    expect(needsApplying('enabled', false)).toBe(true);
    expect(needsApplying('requires-approval', false)).toBe(true);
  });
});
