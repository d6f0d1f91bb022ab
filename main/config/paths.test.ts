import { describe, expect, it } from 'vitest';
import { defaultConfigDir, resolveConfigPath } from './paths.ts';

describe('config paths', () => {
  it('uses %APPDATA%\\Switchboard on Windows', () => {
    expect(
      defaultConfigDir({
        platform: 'win32',
        env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' },
        home: 'C:\\Users\\ann',
      }),
    ).toBe('C:\\Users\\ann\\AppData\\Roaming\\Switchboard');
  });
  it('uses Application Support on macOS', () => {
    expect(defaultConfigDir({ platform: 'darwin', env: {}, home: '/Users/ann' })).toBe(
      '/Users/ann/Library/Application Support/Switchboard',
    );
  });
  it('uses XDG_CONFIG_HOME or ~/.config on Linux', () => {
    expect(defaultConfigDir({ platform: 'linux', env: {}, home: '/home/ann' })).toBe('/home/ann/.config/Switchboard');
    expect(defaultConfigDir({ platform: 'linux', env: { XDG_CONFIG_HOME: '/xdg' }, home: '/home/ann' })).toBe(
      '/xdg/Switchboard',
    );
    expect(defaultConfigDir({ platform: 'linux', env: { XDG_CONFIG_HOME: 'relative' }, home: '/home/ann' })).toBe(
      '/home/ann/.config/Switchboard',
    );
  });
  it('lets --config win over SWITCHBOARD_CONFIG over the default', () => {
    const p = { platform: 'linux' as const, env: { SWITCHBOARD_CONFIG: '/etc/sb.json' }, home: '/home/ann' };
    expect(resolveConfigPath('/tmp/c.json', p)).toBe('/tmp/c.json');
    expect(resolveConfigPath(undefined, p)).toBe('/etc/sb.json');
    expect(resolveConfigPath(undefined, { ...p, env: {} })).toBe('/home/ann/.config/Switchboard/config.json');
  });
});
