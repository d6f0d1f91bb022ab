// The Electron-free parts of the desktop shell, in plain Node: tray menu model, autostart, port-conflict page data,
// and config.json's JSON schema for electron-store.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyStartOnLogin, desktopExecArg, linuxAutostartFile, linuxAutostartPath } from './autostart.ts';
import { configJsonSchemaProperties } from './config-schema.ts';
import { portConflictInfo } from './port-conflict-page.ts';
import { trayIconName, trayMenuModel, trayStatusLine } from './tray-menu.ts';

const p = (state: 'ok' | 'failed' | 'unknown' | 'disabled', enabled = true) => ({ state, enabled });

describe('tray menu model', () => {
  it('has the status line, the actions in order and the checked state of start on login', () => {
    const model = trayMenuModel({
      port: 11434,
      providers: [p('ok'), p('ok'), p('failed'), p('disabled', false)],
      paused: false,
      startOnLogin: true,
      problem: null,
    });
    expect(model[0]).toEqual({ kind: 'status', label: '2 providers ok, 1 failed · port 11434' });
    expect(
      model.filter((i) => i.kind !== 'separator' && i.kind !== 'status').map((i) => ('label' in i ? i.label : '')),
    ).toEqual(['Open Switchboard', 'Pause routing', 'Start on login', 'Open config folder', 'Quit Switchboard']);
    expect(model.find((i) => i.kind === 'checkbox')).toEqual({
      kind: 'checkbox',
      id: 'toggle-login',
      label: 'Start on login',
      checked: true,
    });
  });

  it('says Resume when paused, counts unchecked providers, and says why it is not running', () => {
    expect(
      trayMenuModel({ port: 1, providers: [], paused: true, startOnLogin: false, problem: null }).find(
        (i) => 'id' in i && i.id === 'toggle-pause',
      ),
    ).toMatchObject({ label: 'Resume routing' });
    expect(
      trayStatusLine({
        port: 8080,
        providers: [p('ok'), p('unknown')],
        paused: true,
        startOnLogin: false,
        problem: null,
      }),
    ).toBe('1 provider ok, 0 failed, 1 unchecked · port 8080 · paused');
    expect(
      trayStatusLine({ port: null, providers: [], paused: false, startOnLogin: false, problem: 'port 11434 is taken' }),
    ).toBe('Not running: port 11434 is taken');
  });

  it('picks the icon for the tray theme', () => {
    expect(trayIconName('darwin', true)).toBe('trayTemplate.png');
    expect(trayIconName('linux', true)).toBe('tray-light.png');
    expect(trayIconName('win32', false)).toBe('tray-dark.png');
  });
});

describe('start on login', () => {
  it('builds an XDG autostart file with a quoted Exec line', () => {
    const text = linuxAutostartFile({ execPath: '/opt/Switchboard/switchboard', args: ['--hidden', '/home/a b/app'] });
    expect(text).toContain('[Desktop Entry]\nType=Application\nName=Switchboard\n');
    expect(text).toContain('Exec=/opt/Switchboard/switchboard --hidden "/home/a b/app"\n');
    expect(desktopExecArg('say "$HOME"')).toBe('"say \\"\\$HOME\\""');
    expect(linuxAutostartFile({ execPath: '/x', args: ['100%'] })).toContain('Exec=/x "100%%"');
  });

  it('puts the file under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(linuxAutostartPath({ XDG_CONFIG_HOME: '/cfg' }, '/home/u')).toBe('/cfg/autostart/switchboard.desktop');
    expect(linuxAutostartPath({ XDG_CONFIG_HOME: 'relative' }, '/home/u')).toBe(
      '/home/u/.config/autostart/switchboard.desktop',
    );
  });

  it('writes and removes the file on Linux for real; uses the login item on Windows and macOS', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-autostart-'));
    const calls: unknown[] = [];
    const deps = {
      env: { XDG_CONFIG_HOME: dir },
      home: dir,
      target: { execPath: '/usr/bin/switchboard', args: ['--hidden'] },
      writeFile: async (f: string, t: string) => {
        await fs.mkdir(path.dirname(f), { recursive: true });
        await fs.writeFile(f, t);
      },
      removeFile: (f: string) => fs.rm(f, { force: true }),
      setLoginItem: (s: unknown) => void calls.push(s),
    };
    const file = path.join(dir, 'autostart', 'switchboard.desktop');
    await applyStartOnLogin(true, { ...deps, platform: 'linux' });
    expect(await fs.readFile(file, 'utf8')).toContain('Exec=/usr/bin/switchboard --hidden');
    await applyStartOnLogin(false, { ...deps, platform: 'linux' });
    await expect(fs.stat(file)).rejects.toThrow();
    expect(calls).toEqual([]);
    await applyStartOnLogin(true, { ...deps, platform: 'darwin' });
    await applyStartOnLogin(false, { ...deps, platform: 'win32' });
    expect(calls).toEqual([
      { openAtLogin: true, openAsHidden: true },
      { openAtLogin: false, path: '/usr/bin/switchboard', args: ['--hidden'] },
    ]);
    await fs.rm(dir, { recursive: true, force: true });
  });
});

describe('port conflict page', () => {
  it('names Ollama and offers both fixes', () => {
    const info = portConflictInfo(
      11434,
      { kind: 'ollama', version: '0.9.1' },
      '/home/u/.config/Switchboard/config.json',
      11435,
    );
    expect(info).toMatchObject({
      port: 11434,
      holder: 'Ollama 0.9.1',
      suggested_port: 11435,
      ollama: true,
      config_path: '/home/u/.config/Switchboard/config.json',
    });
    expect(info.message).toContain('in use by Ollama 0.9.1');
    expect(info.message).toContain('"listen_port": 11435');
    expect(info.message).toContain('OLLAMA_HOST');
  });
  it('names another process without the Ollama fix', () => {
    const info = portConflictInfo(8080, { kind: 'process', name: 'nginx', pid: 42 }, '/c.json', 8082);
    expect(info).toMatchObject({ holder: 'nginx (pid 42)', ollama: false, suggested_port: 8082 });
    expect(info.message).toContain('"listen_port": 8082');
  });
  it('says to pick a free port when none near was free, never naming a taken one', () => {
    const info = portConflictInfo(8080, { kind: 'unknown' }, '/c.json', null);
    expect(info.suggested_port).toBeNull();
    expect(info.message).not.toMatch(/808[1-9]/);
    expect(info.message).toContain('a free port');
  });
});

describe('config.json JSON schema for electron-store', () => {
  it('is derived from the shared zod schema: every top-level field, with its constraints', () => {
    const props = configJsonSchemaProperties() as Record<
      string,
      { type?: string; minimum?: number; maximum?: number; default?: unknown }
    >;
    expect(Object.keys(props)).toEqual(
      expect.arrayContaining(['listen_port', 'log_requests', 'start_on_login', 'providers', 'routing', 'app_rules']),
    );
    expect(props.listen_port).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535, default: 11434 });
    expect(props.start_on_login).toMatchObject({ type: 'boolean', default: false });
  });
});
