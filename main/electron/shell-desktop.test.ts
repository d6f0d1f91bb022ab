// The desktop shell's tray and window behaviours of issue 34, run as main.ts runs them (shell.ts against the Electron
// stand-in, the real engine on a real port, mock providers behind it): a tool's provider switched from the tray
// (config.json saved by the engine's store, a backup kept, the next request routed by it), pause and resume, the last
// minute in the tooltip; the window's place kept with electron-store across launches and brought back on screen when
// a monitor goes; the Dock icon on macOS only while the window is open; the login item's state read back per OS; and
// Settings' auto-update switch, kept in the desktop state and honoured at once and at the next launch.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellLauncher } from '../../test/support/desktop-shell.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { configFor, eventually } from '../../test/support/serve-process.ts';
import { MACOS_LOGIN_ITEMS_URL, WINDOWS_STARTUP_APPS_URL } from './login-item.ts';

let alpha: MockProvider;
let beta: MockProvider;
beforeAll(async () => {
  alpha = await startMockProvider({ name: 'alpha' });
  beta = await startMockProvider({ name: 'beta' });
});
afterAll(async () => {
  await alpha?.close();
  await beta?.close();
});

const shells = shellLauncher(() => alpha.baseUrl);
const { launch, quit } = shells;
afterEach(() => shells.cleanup());

const chat = (port: number, app: string, model = 'some-model') =>
  fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer app:${app}` },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

const twoProviders = (port: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...configFor({ alpha: alpha.baseUrl, beta: beta.baseUrl }, extra),
  listen_port: port,
});

type Ok<T> = { ok: true; data: T };

describe("the tray: a tool's provider, pause, the last minute", () => {
  it("switches the provider that serves Claude Code: saved through the engine's store, the next request follows", async () => {
    const run = await launch({ config: (port) => twoProviders(port) });
    const { si, port } = run;
    await eventually(() => expect(si.trayLabels()).toContain('Claude Code: routing rules'));
    const submenu = si.trayItem('Claude Code: routing rules')!.submenu!;
    expect(submenu.map((i) => [i.label, i.type, i.checked])).toEqual([
      ['Routing rules decide', 'radio', true],
      ['alpha', 'radio', false],
      ['beta', 'radio', false],
      [undefined, 'separator', undefined],
      ["Serves Claude Code's models that no routing rule matches", undefined, undefined],
    ]);

    const served = () => run.handle.switchboard()!.requestLog.recent(1)[0]?.provider;
    expect((await chat(port, 'claude-code')).status).toBe(200);
    expect(served()).toBe('alpha'); // routing.default_provider

    si.clickTray('Claude Code: routing rules', 'beta');
    await eventually(() => expect(si.trayLabels()).toContain('Claude Code: beta'));
    const saved = JSON.parse(await fs.readFile(run.configPath, 'utf8')) as Record<string, unknown>;
    expect(saved.app_rules).toEqual([{ app: 'claude-code', default_provider: 'beta' }]);
    expect(saved.providers).toEqual(twoProviders(port).providers); // keys included
    expect(await fs.readdir(path.join(run.dir, 'config-backups'))).toEqual([expect.stringMatching(/-save\.json$/)]);
    expect(si.trayItem('Claude Code: beta', 'beta')?.checked).toBe(true);
    expect((await chat(port, 'claude-code')).status).toBe(200);
    expect(served()).toBe('beta');
    expect((await chat(port, 'codex')).status).toBe(200);
    expect(served()).toBe('alpha'); // other tools keep the rules

    // Back to the rules: the rule goes (it overrode no model).
    si.clickTray('Claude Code: beta', 'Routing rules decide');
    await eventually(() => expect(si.trayLabels()).toContain('Claude Code: routing rules'));
    expect(JSON.parse(await fs.readFile(run.configPath, 'utf8')).app_rules).toEqual([]);
    expect((await chat(port, 'claude-code')).status).toBe(200);
    expect(served()).toBe('alpha');
  });

  it('a config.json broken by hand is said, and nothing is written', async () => {
    const run = await launch({ config: (port) => twoProviders(port) });
    const { si } = run;
    await eventually(() => expect(si.trayLabels()).toContain('Codex CLI: routing rules'));
    await fs.writeFile(run.configPath, '{ "listen_port": "eleven" }');
    await eventually(() =>
      expect(si.trayLabels()).toContain('config.json has problems: the last good config stays in force'),
    );
    si.clickTray('Codex CLI: routing rules', 'beta');
    await eventually(() => expect(si.errorBoxes).toHaveLength(1));
    expect(si.errorBoxes[0]!.title).toBe("codex's provider was not changed");
    expect(si.errorBoxes[0]!.content).toContain('listen_port');
    expect(await fs.readFile(run.configPath, 'utf8')).toBe('{ "listen_port": "eleven" }');
  });

  it("pauses and resumes routing; the tooltip counts the last minute's requests and errors", async () => {
    const run = await launch({ config: (port) => twoProviders(port) });
    const { si, port } = run;
    await eventually(() => expect(si.tray().tooltip).toContain('Last minute: 0 requests, 0 errors'));
    expect((await chat(port, 'shell-test')).status).toBe(200);
    si.clickTray('Pause routing');
    await eventually(() => expect(si.trayLabels()).toContain('Resume routing'));
    expect(si.tray().tooltip).toMatch(/ · paused\n/);
    const paused = await chat(port, 'shell-test');
    expect(paused.status).toBe(503);
    expect(((await paused.json()) as { error: { code: string } }).error.code).toBe('routing_paused');
    expect(await si.invoke('sb:getStatus')).toMatchObject({ ok: true, data: { paused: true } }); // the window sees it
    si.clickTray('Resume routing');
    await eventually(() => expect(si.trayLabels()).toContain('Pause routing'));
    expect((await chat(port, 'shell-test')).status).toBe(200);
    await eventually(() => expect(si.tray().tooltip).toContain('Last minute: 3 requests, 1 error'));
    const menus = si.menus.length;
    await new Promise((r) => setTimeout(r, 400)); // the tooltip moves on its own; the menu is not rebuilt for it
    expect(si.menus.length).toBe(menus);
  });
});

describe('the window remembered with electron-store', () => {
  const storeFile = (dir: string) => path.join(dir, 'userData', 'desktop-state.json');

  it('keeps its place and size across launches, maximized too, in desktop-state.json (not config.json)', async () => {
    const displays = [
      { x: 0, y: 0, width: 1440, height: 900 },
      { x: 1440, y: 0, width: 2560, height: 1440 },
    ];
    const first = await launch({ standIn: { displays } });
    const win = first.si.window();
    expect(win.options).toMatchObject({ width: 1100, height: 760, minWidth: 640, minHeight: 480 });
    win.moveTo(1700, 200);
    win.resizeTo(1300, 900);
    await eventually(async () =>
      expect(JSON.parse(await fs.readFile(storeFile(first.dir), 'utf8'))).toEqual({
        window: { x: 1700, y: 200, width: 1300, height: 900, maximized: false },
      }),
    );
    expect(JSON.parse(await fs.readFile(first.configPath, 'utf8'))).not.toHaveProperty('window');
    win.maximize();
    await quit(first);

    const second = await launch({ dir: first.dir, keepConfig: true, standIn: { displays } });
    const again = second.si.window();
    expect(again.options).toMatchObject({ x: 1700, y: 200, width: 1300, height: 900 });
    expect(again.isMaximized()).toBe(true);
    expect(second.handle.state().window).toEqual({
      visible: true,
      bounds: { x: 1700, y: 200, width: 1300, height: 900 },
      maximized: true,
    });
  });

  it('opens on the primary display when the monitor it was left on is gone', async () => {
    const first = await launch({
      standIn: {
        displays: [
          { x: 0, y: 0, width: 1440, height: 900 },
          { x: 1440, y: 0, width: 2560, height: 1440 },
        ],
      },
    });
    first.si.window().moveTo(2000, 300);
    first.si.window().close(); // hides to the tray: the place is saved at once
    await eventually(async () =>
      expect(JSON.parse(await fs.readFile(storeFile(first.dir), 'utf8')).window).toMatchObject({ x: 2000, y: 300 }),
    );
    await quit(first);
    const second = await launch({ dir: first.dir, keepConfig: true }); // the laptop alone: 1920×1080 by default
    expect(second.si.window().getNormalBounds()).toEqual({ x: 410, y: 173, width: 1100, height: 760 });
  });

  it('comes back on screen when its monitor is unplugged while it is open or hidden in the tray', async () => {
    const two = [
      { x: 0, y: 0, width: 1440, height: 900 },
      { x: 1440, y: 0, width: 2560, height: 1440 },
    ];
    const { si } = await launch({ standIn: { displays: two } });
    const win = si.window();
    win.moveTo(2000, 300);
    si.screen.setDisplays([two[0]!]);
    expect(win.getNormalBounds()).toMatchObject({ x: 170, y: 83 }); // moved at once
    win.moveTo(2000, 300);
    win.close(); // hidden in the tray, off screen again
    si.clickTray('Open Switchboard');
    expect(win.visible).toBe(true);
    expect(win.getNormalBounds()).toMatchObject({ x: 170, y: 83 });
  });

  it('a damaged desktop-state.json opens the window at its defaults, and is written anew', async () => {
    const first = await launch();
    await quit(first);
    await fs.writeFile(storeFile(first.dir), '{ "window": { "width": "wide"');
    const second = await launch({ dir: first.dir, keepConfig: true });
    expect(second.si.window().options).toMatchObject({ width: 1100, height: 760 });
    expect(second.si.errorBoxes).toEqual([]);
    second.si.window().moveTo(10, 40);
    await eventually(async () =>
      expect(JSON.parse(await fs.readFile(storeFile(first.dir), 'utf8')).window).toMatchObject({ x: 10, y: 40 }),
    );
  });
});

describe('macOS: a menu bar app, the Dock icon only while the window is open', () => {
  it('shows the Dock icon with the window and takes it away when the window hides', async () => {
    const { si, handle } = await launch({ platform: 'darwin' });
    const dock = si.app.dock!;
    expect(dock.visible).toBe(true);
    expect(handle.state().dock).toBe(true);
    si.window().close();
    expect(dock.visible).toBe(false);
    si.app.emit('activate', {}, false);
    expect(dock.visible).toBe(true);
    si.window().close();
    si.clickTray('Open Switchboard');
    expect(dock.visible).toBe(true);
    expect(dock.shown).toEqual([true, false, true, false, true]);
  });

  it('starts without a Dock icon when it starts in the menu bar (login item, --hidden)', async () => {
    const { si, handle } = await launch({ platform: 'darwin', standIn: { wasOpenedAtLogin: true } });
    expect(si.windows).toHaveLength(0);
    expect(si.app.dock!.visible).toBe(false);
    expect(handle.state().dock).toBe(false);
  });

  it('has no Dock elsewhere', async () => {
    const { handle, si } = await launch({ platform: 'win32' });
    expect(si.app.dock).toBeUndefined();
    expect(handle.state().dock).toBeNull();
  });
});

describe('start on login, read back from the system', () => {
  it('macOS 13+: waits for approval in System Settings, says so with the page to open, then is enabled', async () => {
    const { si } = await launch({ platform: 'darwin', standIn: { loginItemNeedsApproval: true } });
    si.clickTray('Start on login');
    await eventually(() => expect(si.trayLabels()).toContain('Start on login needs your approval in System Settings'));
    const settings = (await si.invoke('sb:getDesktopSettings')) as Ok<{ login_item: Record<string, unknown> }>;
    expect(settings.data.login_item).toMatchObject({
      state: 'requires-approval',
      wanted: true,
      settings_url: MACOS_LOGIN_ITEMS_URL,
    });
    si.clickTray('Open login item settings…');
    expect(si.opened.external).toEqual([MACOS_LOGIN_ITEMS_URL]);
    si.app.approveLoginItem();
    await eventually(() =>
      expect(si.trayLabels()).not.toContain('Start on login needs your approval in System Settings'),
    );
    expect(await si.invoke('sb:getDesktopSettings')).toMatchObject({
      ok: true,
      data: { login_item: { state: 'enabled', message: 'Switchboard starts when you log in.' } },
    });
  });

  it("Windows: turned off in Startup apps is said, and a start does not turn it back on over the user's choice", async () => {
    const first = await launch({ platform: 'win32', standIn: { packaged: true } });
    first.si.clickTray('Start on login');
    await eventually(() =>
      expect(first.si.loginItems).toEqual([{ openAtLogin: true, path: '/usr/bin/electron', args: ['--hidden'] }]),
    );
    first.si.app.disableInStartupApps();
    await eventually(() => expect(first.si.trayLabels()).toContain('Start on login is turned off in Startup apps'));
    first.si.clickTray('Open login item settings…');
    expect(first.si.opened.external).toEqual([WINDOWS_STARTUP_APPS_URL]);
    // The next launch reads the same Run key: it leaves it as the user set it.
    await quit(first);
    const second = await launch({
      platform: 'win32',
      standIn: { packaged: true, runKey: first.si.app.runKey },
      dir: first.dir,
      keepConfig: true,
    });
    await eventually(() => expect(second.si.trayLabels()).toContain('Start on login is turned off in Startup apps'));
    expect(second.si.loginItems).toEqual([]);
  });

  it('Linux: the autostart file turned off by the desktop is said and left alone at the next start', async () => {
    const first = await launch();
    first.si.clickTray('Start on login');
    const file = path.join(first.dir, 'xdg/autostart/switchboard.desktop');
    await eventually(async () => expect(await fs.readFile(file, 'utf8')).toContain('--hidden'));
    await eventually(async () =>
      expect(await first.si.invoke('sb:getDesktopSettings')).toMatchObject({
        data: { login_item: { state: 'enabled', settings_url: null } },
      }),
    );
    const off = (await fs.readFile(file, 'utf8')).replace(
      'X-GNOME-Autostart-enabled=true',
      'X-GNOME-Autostart-enabled=false',
    );
    await fs.writeFile(file, off);
    await eventually(() => expect(first.si.trayLabels()).toContain('Start on login is turned off by the desktop'));
    await quit(first);
    const second = await launch({ dir: first.dir, keepConfig: true });
    await eventually(() => expect(second.si.trayLabels()).toContain('Start on login is turned off by the desktop'));
    expect(await fs.readFile(file, 'utf8')).toBe(off);
  });
});

describe("Settings' auto-update switch", () => {
  it('is kept in the desktop state and honoured at once: check only says what it found, Download fetches it', async () => {
    const run = await launch({ standIn: { packaged: true } });
    const { si, updater } = run;
    await eventually(() => expect(si.trayLabels()).toContain('Switchboard is up to date'));
    expect(await si.invoke('sb:getDesktopSettings')).toMatchObject({
      ok: true,
      data: { auto_update: 'download', updates_supported: true },
    });
    const set = (await si.invoke('sb:setAutoUpdate', { mode: 'check' })) as Ok<{ auto_update: string }>;
    expect(set.data.auto_update).toBe('check');
    expect(updater.autoDownload).toBe(false);
    expect(JSON.parse(await fs.readFile(path.join(run.dir, 'userData/desktop-state.json'), 'utf8'))).toEqual({
      auto_update: 'check',
    });
    updater.next = { version: '0.2.0' };
    si.clickTray('Check for updates');
    await eventually(() => expect(si.trayLabels()).toContain('Download update 0.2.0'));
    expect(updater.downloads).toBe(0);
    expect(si.notifications.map((n) => n.title)).toEqual(['Switchboard 0.2.0 is available']);
    si.clickTray('Download update 0.2.0');
    await eventually(() => expect(si.trayLabels()).toContain('Restart to update to 0.2.0'));
    expect(si.notifications.map((n) => n.title)).toEqual([
      'Switchboard 0.2.0 is available',
      'Switchboard 0.2.0 is ready',
    ]);
  });

  it('off is read at the next launch: no check of its own; a bad request is refused', async () => {
    const first = await launch({ standIn: { packaged: true } });
    expect(await first.si.invoke('sb:setAutoUpdate', { mode: 'sometimes' })).toMatchObject({
      ok: false,
      failure: { status: 400, error: { code: 'invalid_request' } },
    });
    expect(await first.si.invoke('sb:setAutoUpdate', { mode: 'off' })).toMatchObject({ ok: true });
    await quit(first);
    const second = await launch({ standIn: { packaged: true }, dir: first.dir, keepConfig: true });
    await new Promise((r) => setTimeout(r, 200));
    expect(second.updater.checks).toBe(0);
    expect(second.si.trayLabels()).toContain('Check for updates');
    expect(await second.si.invoke('sb:getDesktopSettings')).toMatchObject({ data: { auto_update: 'off' } });
  });

  it('in development there are no updates to switch, and Settings says so', async () => {
    const { si } = await launch();
    expect(await si.invoke('sb:getDesktopSettings')).toMatchObject({
      ok: true,
      data: { auto_update: 'download', updates_supported: false },
    });
  });
});
