// The Electron-free parts of the desktop shell, in plain Node: tray menu model, autostart, port-conflict and
// config-problems page data, desktop notifications, the window's link rules. The shell's lifecycle against a stand-in
// for Electron is shell-lifecycle.test.ts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fakeNotificationClass } from '../../test/support/electron-standin.ts';
import {
  applyStartOnLogin,
  autostartTarget,
  desktopExecArg,
  LINUX_ICON_NAME,
  linuxAutostartFile,
  linuxAutostartPath,
  startsHidden,
} from './autostart.ts';
import { configProblemsInfo } from './config-problems-page.ts';
import { portConflictInfo } from './port-conflict-page.ts';
import { desktopNotifier, notificationWanted } from './notifier.ts';
import type { Notification } from '../../shared/usage.ts';
import {
  RULES_DECIDE,
  type TrayState,
  trayAppItem,
  trayIconName,
  trayMenuModel,
  trayStatusLine,
  trayTooltip,
  trayUpdateItems,
  WINDOWS_TOOLTIP_MAX,
} from './tray-menu.ts';
import { isAppPage, isExternalLink } from './window.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const p = (state: 'ok' | 'failed' | 'unknown' | 'disabled', enabled = true) => ({ state, enabled });

describe('tray menu model', () => {
  it('has the status line, the actions in order and the checked state of start on login', () => {
    const model = trayMenuModel({
      port: 11434,
      providers: [p('ok'), p('ok'), p('failed'), p('disabled', false)],
      paused: false,
      startOnLogin: true,
      problem: null,
      today: null,
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
      trayMenuModel({ port: 1, providers: [], paused: true, startOnLogin: false, problem: null, today: null }).find(
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
        today: null,
      }),
    ).toBe('1 provider ok, 0 failed, 1 unchecked · port 8080 · paused');
    expect(
      trayStatusLine({
        port: null,
        providers: [],
        paused: false,
        startOnLogin: false,
        problem: 'port 11434 is taken',
        today: null,
      }),
    ).toBe('Not running: port 11434 is taken');
  });

  it('picks the icon for the tray theme: a template on macOS, the .ico on Windows, a glyph for the theme on Linux', () => {
    expect(trayIconName('darwin', true)).toBe('trayTemplate.png');
    expect(trayIconName('linux', true)).toBe('tray-light.png');
    expect(trayIconName('linux', false)).toBe('tray-dark.png');
    expect(trayIconName('win32', false)).toBe('icon.ico');
  });

  it('says when a hand edit left config.json invalid while running (the last good config in force)', () => {
    const s: TrayState = {
      port: 11434,
      providers: [],
      paused: false,
      startOnLogin: false,
      problem: null,
      today: null,
      configInvalid: true,
    };
    expect(trayMenuModel(s).slice(0, 3)).toEqual([
      { kind: 'status', label: '0 providers ok, 0 failed · port 11434' },
      { kind: 'status', label: 'config.json has problems: the last good config stays in force' },
      { kind: 'separator' },
    ]);
  });
});

describe('tray: updates', () => {
  const base: TrayState = { port: 1, providers: [], paused: false, startOnLogin: false, problem: null, today: null };
  const labels = (s: TrayState) => trayMenuModel(s).map((i) => ('label' in i ? i.label : '—'));

  it('has no update items where updates are off (development)', () => {
    expect(labels(base).some((l) => /update/i.test(l))).toBe(false);
    expect(labels({ ...base, update: null }).some((l) => /update/i.test(l))).toBe(false);
  });

  it('offers a check, says what it found, and offers the restart once an update is downloaded', () => {
    expect(labels({ ...base, update: { kind: 'idle' } }).slice(-4)).toEqual([
      '—',
      'Check for updates',
      '—',
      'Quit Switchboard',
    ]);
    expect(trayUpdateItems({ kind: 'checking' })).toEqual([
      { kind: 'status', label: 'Checking for updates…' },
      { kind: 'action', id: 'check-updates', label: 'Check for updates', enabled: false },
    ]);
    expect(trayUpdateItems({ kind: 'none' })[0]).toEqual({ kind: 'status', label: 'Switchboard is up to date' });
    expect(trayUpdateItems({ kind: 'downloading', version: '0.2.0' })[0]).toEqual({
      kind: 'status',
      label: 'Downloading update 0.2.0…',
    });
    expect(trayUpdateItems({ kind: 'error', message: 'net::ERR_NAME_NOT_RESOLVED' })).toEqual([
      { kind: 'status', label: 'Update check failed: net::ERR_NAME_NOT_RESOLVED' },
      { kind: 'action', id: 'check-updates', label: 'Check for updates', enabled: true },
    ]);
    expect(trayUpdateItems({ kind: 'ready', version: '0.2.0' })).toEqual([
      { kind: 'action', id: 'install-update', label: 'Restart to update to 0.2.0' },
    ]);
  });
});

describe("tray: today's usage", () => {
  const running: TrayState = {
    port: 11434,
    providers: [p('ok')],
    paused: false,
    startOnLogin: false,
    problem: null,
    today: { requests: 142, cost_usd: 0.3712, unpriced: 0 },
  };

  it("shows today's requests and cost under the status line, and in the tooltip", () => {
    const model = trayMenuModel(running);
    expect(model.slice(0, 3)).toEqual([
      { kind: 'status', label: '1 provider ok, 0 failed · port 11434' },
      { kind: 'status', label: '142 requests · $0.37 today' },
      { kind: 'separator' },
    ]);
    expect(trayTooltip(running)).toBe('Switchboard: 1 provider ok, 0 failed · port 11434\n142 requests · $0.37 today');
  });

  it('says requests without a known price, a cost under a cent, and a day without requests', () => {
    const line = (today: TrayState['today']) => trayMenuModel({ ...running, today })[1];
    expect(line({ requests: 3, cost_usd: 0.0042, unpriced: 1 })).toEqual({
      kind: 'status',
      label: '3 requests · $0.0042 today · 1 without a known price',
    });
    expect(line({ requests: 1, cost_usd: 0, unpriced: 1 })).toMatchObject({
      label: '1 request · $0.00 today · 1 without a known price',
    });
    expect(line({ requests: 0, cost_usd: 0, unpriced: 0 })).toMatchObject({ label: 'No requests today' });
    expect(line({ requests: 12_345, cost_usd: 1234.5, unpriced: 0 })).toMatchObject({
      label: '12,345 requests · $1,234.50 today',
    });
  });

  it('leaves the usage line out while unknown or not running', () => {
    expect(trayMenuModel({ ...running, today: null })[1]).toEqual({ kind: 'separator' });
    expect(trayTooltip({ ...running, today: null })).toBe('Switchboard: 1 provider ok, 0 failed · port 11434');
    const stopped = { ...running, port: null, problem: 'port 11434 is taken' };
    expect(trayMenuModel(stopped)[1]).toEqual({ kind: 'separator' });
    expect(trayTooltip(stopped)).toBe('Switchboard: Not running: port 11434 is taken');
  });
});

describe('tray: tools, the last minute, the login item (issue 34)', () => {
  const running: TrayState = {
    port: 11434,
    providers: [p('ok')],
    paused: false,
    startOnLogin: true,
    problem: null,
    today: { requests: 142, cost_usd: 0.3712, unpriced: 0 },
  };
  const claude = {
    app: 'claude-code',
    label: 'Claude Code',
    provider: 'alpha',
    choices: [
      { name: 'alpha', enabled: true },
      { name: 'beta', enabled: true },
    ],
  };

  it("a tool's submenu: the routing rules or a provider, the current one checked, and what the choice does", () => {
    expect(trayAppItem(claude)).toEqual({
      kind: 'submenu',
      label: 'Claude Code: alpha',
      items: [
        {
          kind: 'radio',
          action: { id: 'set-app-provider', app: 'claude-code', provider: null },
          label: RULES_DECIDE,
          checked: false,
        },
        {
          kind: 'radio',
          action: { id: 'set-app-provider', app: 'claude-code', provider: 'alpha' },
          label: 'alpha',
          checked: true,
        },
        {
          kind: 'radio',
          action: { id: 'set-app-provider', app: 'claude-code', provider: 'beta' },
          label: 'beta',
          checked: false,
        },
        { kind: 'separator' },
        { kind: 'status', label: "Serves Claude Code's models that no routing rule matches" },
      ],
    });
    const disabled = trayAppItem({ ...claude, provider: 'old', choices: [{ name: 'old', enabled: false }] });
    expect(disabled.kind === 'submenu' && disabled.items[1]).toMatchObject({
      label: 'old (disabled)',
      checked: true,
      enabled: false,
    });
    const none = trayAppItem({ ...claude, provider: null, choices: [] });
    expect(none).toMatchObject({ label: 'Claude Code: routing rules' });
    expect(none.kind === 'submenu' && none.items.map((i) => ('label' in i ? i.label : '—'))).toEqual([
      RULES_DECIDE,
      'No provider is enabled',
      '—',
      "Serves Claude Code's models that no routing rule matches",
    ]);
  });

  it('lists the tools while running, between pause and start on login; not while stopped', () => {
    const labels = (s: TrayState) => trayMenuModel(s).map((i) => ('label' in i ? i.label : '—'));
    expect(labels({ ...running, apps: [claude] }).slice(4, 9)).toEqual([
      'Pause routing',
      '—',
      'Claude Code: alpha',
      '—',
      'Start on login',
    ]);
    expect(labels({ ...running, port: null, problem: 'port 11434 is taken', apps: [claude] })).not.toContain(
      'Claude Code: alpha',
    );
  });

  it("the tooltip: status, the last minute's requests and errors, then today", () => {
    const s = { ...running, lastMinute: { requests: 12, errors: 1 } };
    expect(trayTooltip(s)).toBe(
      'Switchboard: 1 provider ok, 0 failed · port 11434\nLast minute: 12 requests, 1 error\n142 requests · $0.37 today',
    );
    expect(trayTooltip({ ...s, lastMinute: { requests: 1, errors: 0 } })).toContain('Last minute: 1 request, 0 errors');
    expect(trayTooltip({ ...s, port: null, problem: 'config.json is invalid' })).toBe(
      'Switchboard: Not running: config.json is invalid',
    );
  });

  it('on Windows the tooltip fits 127 characters: today goes first, then the rest is cut', () => {
    const busy: TrayState = {
      ...running,
      providers: [p('ok'), p('failed'), p('unknown'), p('unknown')],
      paused: true,
      lastMinute: { requests: 12_345, errors: 1_234 },
      today: { requests: 1_234_567, cost_usd: 12_345.67, unpriced: 12_345 },
      platform: 'win32',
    };
    const tip = trayTooltip(busy);
    expect(tip.length).toBeLessThanOrEqual(WINDOWS_TOOLTIP_MAX);
    expect(tip).toBe(
      'Switchboard: 1 provider ok, 1 failed, 2 unchecked · port 11434 · paused\nLast minute: 12,345 requests, 1,234 errors',
    );
    expect(trayTooltip({ ...busy, platform: 'darwin' })).toContain('today');
  });

  it('says when the system differs from start on login, with its settings page', () => {
    const model = trayMenuModel({
      ...running,
      loginItem: {
        state: 'requires-approval',
        wanted: true,
        message: '…',
        settings_url: 'x-apple.systempreferences:com.apple.LoginItems-Settings.extension',
      },
    });
    const at = model.findIndex((i) => 'id' in i && i.id === 'toggle-login');
    expect(model.slice(at + 1, at + 3)).toEqual([
      { kind: 'status', label: 'Start on login needs your approval in System Settings' },
      { kind: 'action', id: 'open-login-settings', label: 'Open login item settings…' },
    ]);
    const fine = trayMenuModel({
      ...running,
      loginItem: { state: 'enabled', wanted: true, message: '…', settings_url: null },
    });
    expect(fine.some((i) => 'id' in i && i.id === 'open-login-settings')).toBe(false);
  });

  it('check-only updates: the version found, with Download', () => {
    expect(trayUpdateItems({ kind: 'available', version: '0.2.0' })).toEqual([
      { kind: 'action', id: 'download-update', label: 'Download update 0.2.0' },
      { kind: 'action', id: 'check-updates', label: 'Check for updates', enabled: true },
    ]);
  });
});

const notice = (kind: Notification['kind'], over: Partial<Notification> = {}): Notification => ({
  kind,
  time: '2025-01-02T03:04:05.000Z',
  title: 'Provider openai is down',
  message: 'openai failed 5 times in a row (connect ECONNREFUSED); requests go to anthropic.',
  provider: 'openai',
  app: null,
  ...over,
});

describe('desktop notifications', () => {
  it('shows each notice as a notification with its title and message; a click opens the window', () => {
    const { Notification, made } = fakeNotificationClass();
    let opened = 0;
    const notify = desktopNotifier({ Notification, switches: () => undefined, onClick: () => opened++ });
    expect(notify(notice('provider_down'))).toBe(true);
    expect(
      notify(notice('budget_warning', { title: 'Budget at 80%', message: 'cursor spent $8.00 of $10.00 today.' })),
    ).toBe(true);
    expect(made.map(({ title, body, shown }) => ({ title, body, shown }))).toEqual([
      {
        title: 'Provider openai is down',
        body: 'openai failed 5 times in a row (connect ECONNREFUSED); requests go to anthropic.',
        shown: true,
      },
      { title: 'Budget at 80%', body: 'cursor spent $8.00 of $10.00 today.', shown: true },
    ]);
    made[0]!.click!();
    expect(opened).toBe(1);
  });

  it('shows nothing when notifications.enabled is false or the kind is switched off, read at each notice', () => {
    const { Notification, made } = fakeNotificationClass();
    let switches: Record<string, unknown> = { enabled: false };
    const notify = desktopNotifier({ Notification, switches: () => switches });
    expect(notify(notice('provider_down'))).toBe(false);
    switches = { enabled: true, provider_health: false };
    expect(notify(notice('provider_up'))).toBe(false);
    expect(notify(notice('failover'))).toBe(true);
    switches = { failover: false, budgets: false };
    expect(notify(notice('failover'))).toBe(false);
    expect(notify(notice('budget_exceeded'))).toBe(false);
    expect(notify(notice('provider_down'))).toBe(true);
    expect(made.map((m) => m.shown)).toEqual([true, true]);
  });

  it('shows nothing where the system has no notifications', () => {
    const { Notification, made } = fakeNotificationClass(false);
    expect(desktopNotifier({ Notification, switches: () => undefined })(notice('failover'))).toBe(false);
    expect(made).toEqual([]);
  });

  it('maps every kind to its switch', () => {
    const off = (k: string) => ({ [k]: false });
    expect(notificationWanted({ kind: 'provider_down' }, off('provider_health'))).toBe(false);
    expect(notificationWanted({ kind: 'provider_up' }, off('provider_health'))).toBe(false);
    expect(notificationWanted({ kind: 'failover' }, off('failover'))).toBe(false);
    expect(notificationWanted({ kind: 'budget_warning' }, off('budgets'))).toBe(false);
    expect(notificationWanted({ kind: 'budget_exceeded' }, off('budgets'))).toBe(false);
    expect(notificationWanted({ kind: 'budget_exceeded' }, undefined)).toBe(true);
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
      { openAtLogin: true }, // macOS: no openAsHidden (deprecated); the launch is known by wasOpenedAtLogin
      { openAtLogin: false, path: '/usr/bin/switchboard', args: ['--hidden'] },
    ]);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('launches $APPIMAGE from an AppImage (its mount is gone after exit), the binary and the app folder unpackaged', () => {
    const base = { execPath: '/tmp/.mount_SwitchX/switchboard-desktop', appPath: '/src/switchboard' };
    expect(
      autostartTarget({ ...base, platform: 'linux', env: { APPIMAGE: '/home/u/S.AppImage' }, isPackaged: true }),
    ).toEqual({ execPath: '/home/u/S.AppImage', args: ['--hidden'] });
    expect(autostartTarget({ ...base, platform: 'linux', env: {}, isPackaged: true })).toEqual({
      execPath: base.execPath,
      args: ['--hidden'],
    });
    expect(autostartTarget({ ...base, platform: 'linux', env: { APPIMAGE: '/x' }, isPackaged: false })).toEqual({
      execPath: base.execPath,
      args: ['/src/switchboard', '--hidden'],
    });
  });

  it("names the icon the package installs (electron-builder.yml's executableName)", async () => {
    const yml = await fs.readFile(path.join(ROOT, 'electron-builder.yml'), 'utf8');
    expect(/^\s+executableName: (\S+)$/m.exec(yml)?.[1]).toBe(LINUX_ICON_NAME);
    expect(linuxAutostartFile({ execPath: '/x', args: [] })).toContain(`\nIcon=${LINUX_ICON_NAME}\n`);
  });

  it('starts hidden with --hidden, and on macOS when the login item opened it', () => {
    expect(startsHidden(['electron', '--hidden'], 'linux', () => false)).toBe(true);
    expect(startsHidden(['electron'], 'darwin', () => true)).toBe(true);
    expect(startsHidden(['electron'], 'darwin', () => false)).toBe(false);
    expect(startsHidden(['electron'], 'win32', () => true)).toBe(false);
  });
});

describe('the window: links', () => {
  it('opens only http(s) links outside, and allows only its own page at any route', () => {
    expect(['https://a.b/c', 'http://localhost:1/'].map(isExternalLink)).toEqual([true, true]);
    expect(['file:///etc/passwd', 'javascript:alert(1)', 'smb://h/s', 'not a url'].map(isExternalLink)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(isAppPage('file:///opt/app/index.html#/logs', '/opt/app/index.html')).toBe(true);
    expect(isAppPage('file:///opt/app/other.html', '/opt/app/index.html')).toBe(false);
    expect(isAppPage('https://evil.example/opt/app/index.html', '/opt/app/index.html')).toBe(false);
  });
});

describe('config problems page', () => {
  it('lists each problem in words, says where the file is and that fixing it starts Switchboard', () => {
    const info = configProblemsInfo('/home/u/.config/Switchboard/config.json', [
      { path: 'listen_port', value: 'eleven', message: 'must be a number' },
      { path: 'providers[0].base_url', value: undefined, message: 'is required' },
    ]);
    expect(info).toEqual({
      config_path: '/home/u/.config/Switchboard/config.json',
      problems: ['listen_port (found "eleven") must be a number', 'providers[0].base_url is required'],
      message:
        'Switchboard did not start: /home/u/.config/Switchboard/config.json has 2 problems. Fix them in the file and ' +
        'save it: Switchboard starts as soon as the file is valid. Or put back an earlier version with ' +
        '`switchboard config restore latest` (the file is never overwritten meanwhile).',
    });
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

describe('electron-builder.yml', () => {
  it("is valid against electron-builder's own schema; icons per OS, GitHub releases, no secret, no deb depends", async () => {
    const { Ajv } = await import('ajv');
    const YAML = await import('yaml');
    const text = await fs.readFile(path.join(ROOT, 'electron-builder.yml'), 'utf8');
    const cfg = YAML.parse(text) as Record<string, Record<string, unknown> | undefined>;
    const schema = JSON.parse(await fs.readFile(path.join(ROOT, 'node_modules/app-builder-lib/scheme.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(cfg), JSON.stringify(validate.errors)).toBe(true);
    // koffi (serve's malloc_trim, never loaded in Electron) stays out of the app.
    expect(cfg.files).toEqual(expect.arrayContaining(['!node_modules/koffi/**', '!node_modules/@koromix/**']));
    expect(cfg.deb?.depends).toBeUndefined(); // electron-builder's list stays (libappindicator3-1 only recommended)
    expect(cfg.win?.icon).toBe('assets/icon.ico');
    expect(cfg.mac?.icon).toBe('assets/icon-1024.png');
    expect(cfg.mac?.hardenedRuntime).toBe(true);
    expect(cfg.publish).toEqual([{ provider: 'github', releaseType: 'release' }]);
    for (const icon of [cfg.win?.icon, cfg.mac?.icon, cfg.linux?.icon]) {
      await expect(fs.stat(path.join(ROOT, icon as string))).resolves.toBeTruthy();
    }
    // Signing and notarization come from the environment only.
    expect(text).not.toMatch(/^\s*(cscLink|cscKeyPassword|certificatePassword|appleId|password|token)\s*:/im);
    for (const v of ['CSC_LINK', 'CSC_KEY_PASSWORD', 'APPLE_API_KEY', 'APPLE_ID', 'WIN_CSC_LINK', 'GH_TOKEN']) {
      expect(text).toContain(v);
    }
  });
});
