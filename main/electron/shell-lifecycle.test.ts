// The desktop shell run in Node (issue 15): shell.ts (what main.ts starts with the real Electron) against a stand-in
// for Electron's API that behaves as Electron documents and records every call (test/support/electron-standin.ts),
// with the real engine on a real port and a mock provider behind it. The lifecycle: start → engine listening → tray
// menu → close hides → second instance focuses → a port change moves the IPC client → bad config opens the problems
// page → quit stops the server; then window hardening, each OS's specifics and auto-update.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigDocument } from '../../shared/ipc.ts';
import { electronStandIn, electronStoreOn, FakeUpdater } from '../../test/support/electron-standin.ts';
import { type ShellRun, shellLauncher } from '../../test/support/desktop-shell.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort, holdPort } from '../../test/support/ports.ts';
import { configFor, eventually } from '../../test/support/serve-process.ts';
import { UI_CSP } from '../server/ui.ts';
import { LINUX_ICON_NAME } from './autostart.ts';
import { DESKTOP_STORE_OPTIONS } from './desktop-state.ts';
import { APP_ID, startShell } from './shell.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RENDERER = path.join(ROOT, 'renderer/index.html');

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ name: 'alpha' });
});
afterAll(() => mock?.close());

const shells = shellLauncher(() => mock.baseUrl);
const { launch } = shells;
const runs: ShellRun[] = shells.runs;
afterEach(() => shells.cleanup());

const isOpen = (port: number) =>
  fetch(`http://127.0.0.1:${port}/v1/models`).then(
    () => true,
    () => false,
  );
const chat = (port: number) =>
  fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer app:shell-test' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('the desktop shell, start to quit', () => {
  it('start → listening → tray → close hides → second instance focuses → port change moves the IPC client → quit', async () => {
    const run = await launch();
    const { si, port } = run;
    // Engine listening on listen_port, in the same process.
    expect(run.handle.switchboard()?.port).toBe(port);
    expect((await chat(port)).status).toBe(200);
    // The window: shown (no --hidden), the built page, sandboxed and isolated.
    const win = si.window();
    expect(win.visible).toBe(true);
    expect(win.loaded).toBe(RENDERER);
    expect(win.options.webPreferences).toEqual({
      preload: path.join(run.dir, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    });
    // The tray menu, as built: status, actions in order; the tooltip.
    await eventually(() =>
      expect(si.trayLabels()[0]).toMatch(new RegExp(`^\\d providers? ok, 0 failed.* · port ${port}$`)),
    );
    expect(si.trayLabels().filter((l) => !l.includes('·') && !l.includes('request'))).toEqual([
      '—',
      'Open Switchboard',
      'Pause routing',
      '—',
      'Claude Code: routing rules',
      'Codex CLI: routing rules',
      'Gemini CLI: routing rules',
      '—',
      'Start on login',
      'Open config folder',
      '—',
      'Quit Switchboard',
    ]);
    expect(si.tray().tooltip).toMatch(/^Switchboard: .* · port \d+/);
    expect(si.tray().image.path).toBe(path.join(ROOT, 'assets/tray-dark.png'));
    expect(si.tray().image.isEmpty()).toBe(false);
    expect(run.handle.state()).toMatchObject({
      running: true,
      port,
      config_problems: null,
      window: { visible: true },
      tray: { tooltip: si.tray().tooltip, labels: si.trayLabels() },
    });

    // Closing the window hides it (the app stays in the tray); a second launch shows and focuses it.
    expect(win.close()).toBe(false);
    expect(win.visible).toBe(false);
    expect(win.destroyed).toBe(false);
    si.app.emit('second-instance', {}, ['/usr/bin/electron'], '/');
    expect(win.visible && win.focused).toBe(true);
    expect(si.windows).toHaveLength(1);

    // IPC answers from our window only.
    const status = await si.invoke('sb:getStatus');
    expect(status).toMatchObject({ ok: true, data: { listen_port: port } });
    expect(await si.invoke('sb:getStatus', undefined, { sender: {}, senderFrame: {} })).toMatchObject({
      ok: false,
      failure: { status: 403 },
    });

    // A port change saved from the window moves the server, and the IPC client (and its event streams) follow it.
    const port2 = await freePort();
    const doc = (await si.invoke('sb:getConfig')) as { ok: true; data: ConfigDocument };
    const saved = (await si.invoke('sb:saveConfig', {
      ...(doc.data.config as object),
      listen_port: port2,
    })) as { ok: true; data: ConfigDocument };
    expect(saved.ok).toBe(true);
    expect(saved.data.listen).toMatchObject({ outcome: 'moved', port: port2, previous_port: port });
    expect(await si.invoke('sb:getStatus')).toMatchObject({ ok: true, data: { listen_port: port2 } });
    await eventually(async () => expect(await isOpen(port)).toBe(false));
    // The request log's stream reconnects to the new port: once the old port's last connections are cut (2 s after
    // the move), a request there still reaches the window as a log event.
    await new Promise((r) => setTimeout(r, 2_500));
    const logs = () => win.webContents.sent.filter((m) => m.channel === 'sb:event:log').length;
    const before = logs();
    await eventually(
      async () => {
        expect((await chat(port2)).status).toBe(200);
        expect(logs()).toBeGreaterThan(before);
      },
      15_000,
      300,
    );
    await eventually(() => expect(si.trayLabels()[0]).toContain(`port ${port2}`));

    // Quit from the tray stops the server, then the app quits (the window closes, not hides).
    si.clickTray('Quit Switchboard');
    await run.handle.stopped;
    await eventually(() => expect(si.app.quitDone).toBe(true));
    expect(await isOpen(port2)).toBe(false);
    expect(win.destroyed).toBe(true);
    expect(si.tray().destroyed).toBe(true);
  });

  it('a second instance hands over and exits before making anything', async () => {
    const first = await launch();
    const si = electronStandIn({ otherInstance: true });
    const handle = startShell(si.electron, {
      configPath: first.configPath,
      version: '0.1.0',
      argv: [],
      platform: 'linux',
      env: {},
      home: first.dir,
      execPath: '/usr/bin/electron',
      paths: { renderer: RENDERER, preload: '/p.cjs', assets: path.join(ROOT, 'assets') },
      updater: () => null,
      desktopStore: () => electronStoreOn(si.app, DESKTOP_STORE_OPTIONS),
    });
    await handle.ready;
    expect(si.app.exitCode).toBe(0);
    expect(si.windows).toHaveLength(0);
    expect(si.trays).toHaveLength(0);
    expect(handle.switchboard()).toBeNull();
  });
});

describe('config.json problems (bug 10)', () => {
  it('an invalid file at start opens the window on the problems page; once fixed, the engine starts', async () => {
    const run = await launch({ configText: '{ "listen_port": "eleven" }', argv: ['electron', '--hidden'] });
    const { si } = run;
    expect(si.errorBoxes).toEqual([]); // no dialog, no exit: the window says it
    expect(si.app.exitCode).toBeNull();
    expect(run.handle.switchboard()).toBeNull();
    expect(si.window().visible).toBe(true); // even with --hidden: there is something to fix
    const info = (await si.invoke('sb:getAppInfo')) as { ok: true; data: Record<string, unknown> };
    expect(info.data).toMatchObject({
      shell: 'electron',
      port_conflict: null,
      config_problems: {
        config_path: run.configPath,
        problems: [expect.stringMatching(/^listen_port \(found "eleven"\) /)],
      },
    });
    expect((info.data.config_problems as { message: string }).message).toContain(
      'Switchboard starts as soon as the file is valid',
    );
    await eventually(() => expect(si.trayLabels()[0]).toBe('Not running: config.json is invalid'));

    // Fixed by hand: the shell starts the engine and reloads the page, which now finds it running.
    await fs.writeFile(
      run.configPath,
      JSON.stringify({ ...configFor({ alpha: mock.baseUrl }), listen_port: run.port }),
    );
    await eventually(() => expect(run.handle.switchboard()?.port).toBe(run.port), 10_000);
    expect((await chat(run.port)).status).toBe(200);
    await eventually(() => expect(si.window().webContents.reloads).toBeGreaterThan(0));
    expect(await si.invoke('sb:getAppInfo')).toMatchObject({ ok: true, data: { config_problems: null } });
    expect(await si.invoke('sb:getStatus')).toMatchObject({ ok: true, data: { listen_port: run.port } });
  });

  it('a port taken at start opens the conflict page; a new listen_port in config.json starts the engine there', async () => {
    const held = await holdPort();
    try {
      const config = { ...configFor({ alpha: mock.baseUrl }), listen_port: held.port };
      const run = await launch({ config });
      const { si } = run;
      expect(run.handle.state()).toMatchObject({ running: false, port_conflict: { port: held.port } });
      expect(await si.invoke('sb:getAppInfo')).toMatchObject({
        ok: true,
        data: { port_conflict: { port: held.port } },
      });
      await eventually(() => expect(si.trayLabels()[0]).toBe(`Not running: port ${held.port} is taken`));
      await fs.writeFile(run.configPath, JSON.stringify({ ...config, listen_port: run.port }));
      await eventually(() => expect(run.handle.state()).toMatchObject({ running: true, port: run.port }), 10_000);
      expect((await chat(run.port)).status).toBe(200);
      expect(await si.invoke('sb:getAppInfo')).toMatchObject({ ok: true, data: { port_conflict: null } });
    } finally {
      await held.close();
    }
  });

  it('a file that is not JSON says where it breaks', async () => {
    const run = await launch({ configText: '{ "listen_port": 11434, ' });
    const info = (await run.si.invoke('sb:getAppInfo')) as { data: { config_problems: { problems: string[] } } };
    expect(info.data.config_problems.problems.join(' ')).toContain('not valid JSON');
  });

  it('a bad hand edit while running keeps the last good config; the tray says so until it is fixed', async () => {
    const run = await launch();
    const { si, port } = run;
    const good = await fs.readFile(run.configPath, 'utf8');
    await fs.writeFile(run.configPath, '{ "listen_port": "eleven" ');
    await eventually(() =>
      expect(si.trayLabels()).toContain('config.json has problems: the last good config stays in force'),
    );
    expect((await chat(port)).status).toBe(200);
    expect(await si.invoke('sb:getStatus')).toMatchObject({ ok: true, data: { config_error: [expect.any(String)] } });
    await fs.writeFile(run.configPath, '{ "listen_port": [] }'); // and again: still no crash
    await new Promise((r) => setTimeout(r, 300));
    expect(si.errorBoxes).toEqual([]);
    await fs.writeFile(run.configPath, good.replace('"log_requests":false', '"log_requests":true'));
    await eventually(() =>
      expect(si.trayLabels()).not.toContain('config.json has problems: the last good config stays in force'),
    );
    expect(run.handle.switchboard()?.store.config.log_requests).toBe(true);
  });
});

describe('the tray', () => {
  it('is rebuilt only when what it shows changes', async () => {
    const run = await launch();
    const { si } = run;
    await eventually(() => expect(si.trayLabels()[1]).toMatch(/request/));
    const built = si.menus.length;
    await new Promise((r) => setTimeout(r, 600)); // six refreshes at 100 ms, nothing changed
    expect(si.menus.length).toBe(built);
    si.clickTray('Pause routing');
    await eventually(() => expect(si.trayLabels()).toContain('Resume routing'));
    expect(run.handle.switchboard()?.engine.paused).toBe(true);
    expect(si.menus.length).toBe(built + 1);
    expect(si.trayLabels()[0]).toMatch(/ · paused$/);
  });

  it('Start on login saves config.json through the engine (a backup kept) and writes the autostart file', async () => {
    const run = await launch();
    const { si } = run;
    si.clickTray('Start on login');
    const file = path.join(run.dir, 'xdg/autostart/switchboard.desktop');
    await eventually(async () =>
      expect(await fs.readFile(file, 'utf8')).toContain('Exec=/usr/bin/electron /opt/switchboard-app --hidden'),
    );
    expect(JSON.parse(await fs.readFile(run.configPath, 'utf8')).start_on_login).toBe(true);
    expect(await fs.readdir(path.join(run.dir, 'config-backups'))).toEqual([expect.stringMatching(/-save\.json$/)]);
    await eventually(() => expect(si.tray().menu?.items.find((i) => i.label === 'Start on login')?.checked).toBe(true));
    si.clickTray('Open config folder');
    expect(si.opened.paths).toEqual([run.dir]);
  });
});

describe('window hardening', () => {
  it('blocks navigation away and new windows; http(s) links open in the browser, nothing else does', async () => {
    const { si } = await launch();
    const wc = si.window().webContents;
    expect(wc.navigate(`${pathToFileURL(RENDERER).href}#/logs`)).toBe(true); // the app's own routes
    expect(wc.navigate('https://example.com/docs')).toBe(false);
    expect(wc.navigate('file:///etc/passwd')).toBe(false);
    expect(wc.navigate('javascript:alert(1)')).toBe(false);
    expect(wc.openWindow('https://github.com/')).toEqual({ action: 'deny' });
    expect(wc.openWindow('smb://host/share')).toEqual({ action: 'deny' });
    expect(wc.openWindow('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(wc.attachWebview()).toBe(false);
    expect(si.opened.external).toEqual(['https://example.com/docs', 'https://github.com/']);
  });

  it("sends the UI's Content-Security-Policy with every response and refuses permissions but the clipboard", async () => {
    const { si } = await launch();
    expect(si.responseHeaders(pathToFileURL(RENDERER).href)).toEqual({
      'content-type': ['text/html'],
      'Content-Security-Policy': [UI_CSP],
    });
    expect(si.permission('clipboard-sanitized-write')).toBe(true);
    for (const p of ['media', 'geolocation', 'notifications', 'openExternal']) expect(si.permission(p)).toBe(false);
    // The page carries the same policy (minus frame-ancestors, which a <meta> cannot set) for file:// loads.
    const html = await fs.readFile(RENDERER, 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(UI_CSP.replace("frame-ancestors 'none'; ", ''));
  });
});

describe('each desktop', () => {
  it('macOS: Dock click reopens the window, template tray icon, login item without openAsHidden', async () => {
    const run = await launch({ platform: 'darwin' });
    const { si } = run;
    const win = si.window();
    win.close();
    expect(win.visible).toBe(false);
    si.app.emit('activate', {}, false);
    expect(win.visible).toBe(true);
    expect(si.tray().image.path).toBe(path.join(ROOT, 'assets/trayTemplate.png'));
    expect(si.tray().image.template).toBe(true);
    expect(si.tray().image.isEmpty()).toBe(false);
    si.nativeTheme.setDark(true); // the system tints a template image itself
    expect(si.tray().image.path).toBe(path.join(ROOT, 'assets/trayTemplate.png'));
    si.clickTray('Start on login');
    await eventually(() => expect(si.loginItems.at(-1)).toEqual({ openAtLogin: true }));
  });

  it('macOS: a launch by the login item starts in the tray only', async () => {
    const { si } = await launch({ platform: 'darwin', standIn: { wasOpenedAtLogin: true } });
    expect(si.windows).toHaveLength(0);
    si.clickTray('Open Switchboard');
    expect(si.window().visible).toBe(true);
  });

  it('Windows: the .ico in the tray and the window, the app id for notifications, the login item with --hidden', async () => {
    const { si } = await launch({ platform: 'win32', standIn: { packaged: true } });
    expect(si.app.userModelId).toBe(APP_ID);
    expect(si.tray().image.path).toBe(path.join(ROOT, 'assets/icon.ico'));
    expect(si.tray().image.isEmpty()).toBe(false);
    expect(si.window().options.icon).toBe(path.join(ROOT, 'assets/icon.ico'));
    // start_on_login is off and the system has no login item: nothing to change at start.
    expect(si.loginItems).toEqual([]);
  });

  it('Linux: from an AppImage, start on login runs $APPIMAGE; the tray icon follows the theme; --hidden', async () => {
    const appImage = '/home/u/Apps/Switchboard-0.1.0.AppImage';
    const run = await launch({
      standIn: { packaged: true, dark: true },
      env: { APPIMAGE: appImage },
      argv: ['/tmp/.mount_Switch/switchboard-desktop', '--hidden'],
    });
    const { si } = run;
    expect(si.windows).toHaveLength(0); // --hidden: the tray only
    expect(si.tray().image.path).toBe(path.join(ROOT, 'assets/tray-light.png'));
    si.nativeTheme.setDark(false);
    expect(si.tray().image.path).toBe(path.join(ROOT, 'assets/tray-dark.png'));
    si.clickTray('Start on login');
    const text = await eventually(() => fs.readFile(path.join(run.dir, 'xdg/autostart/switchboard.desktop'), 'utf8'));
    expect(text).toContain(`Exec=${appImage} --hidden\n`);
    expect(text).toContain(`Icon=${LINUX_ICON_NAME}\n`);
  });
});

describe('auto-update', () => {
  it('is off in development: no updater, nothing in the tray', async () => {
    let asked = 0;
    const si = electronStandIn({ packaged: false });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-shell-'));
    const configPath = path.join(dir, 'config.json');
    await fs.writeFile(
      configPath,
      JSON.stringify({ ...configFor({ alpha: mock.baseUrl }), listen_port: await freePort() }),
    );
    const handle = startShell(si.electron, {
      configPath,
      version: '0.1.0',
      argv: [],
      platform: 'linux',
      env: { XDG_CONFIG_HOME: path.join(dir, 'xdg') },
      home: dir,
      execPath: '/usr/bin/electron',
      paths: { renderer: RENDERER, preload: '/p.cjs', assets: path.join(ROOT, 'assets') },
      updater: () => {
        asked++;
        return new FakeUpdater(si.app);
      },
      desktopStore: () => electronStoreOn(si.app, DESKTOP_STORE_OPTIONS),
    });
    runs.push({ si, handle, dir, configPath, updater: new FakeUpdater(), port: 0 });
    await handle.ready;
    expect(asked).toBe(0);
    expect(si.trayLabels().some((l) => /update/i.test(l))).toBe(false);
  });

  it('packaged: checks at start, downloads, offers "Restart to update", which stops the server and installs', async () => {
    const port = await freePort();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-shell-'));
    const run = await launch({
      dir,
      standIn: { packaged: true },
      config: { ...configFor({ alpha: mock.baseUrl }), listen_port: port },
    });
    const { si, updater } = run;
    // The first check found nothing (the stand-in's default).
    await eventually(() => expect(si.trayLabels()).toContain('Switchboard is up to date'));
    expect(updater.checks).toBe(1);
    expect(updater.autoDownload).toBe(true);
    // "Check for updates" finds 0.2.0, downloads it, then offers the restart.
    updater.next = { version: '0.2.0' };
    si.clickTray('Check for updates');
    await eventually(() => expect(si.trayLabels()).toContain('Restart to update to 0.2.0'));
    expect(si.notifications).toEqual([
      {
        title: 'Switchboard 0.2.0 is ready',
        body: 'Restart to update from the tray menu.',
        shown: true,
        click: expect.any(Function),
      },
    ]);
    si.clickTray('Restart to update to 0.2.0');
    expect(updater.installs).toEqual([{ isSilent: false, isForceRunAfter: true }]);
    await run.handle.stopped;
    await eventually(() => expect(si.app.quitDone).toBe(true));
    expect(await isOpen(port)).toBe(false);
  });

  it('a failed check is said in the tray and can be tried again', async () => {
    const run = await launch({ standIn: { packaged: true } });
    const { si, updater } = run;
    await eventually(() => expect(si.trayLabels()).toContain('Switchboard is up to date'));
    updater.next = new Error('net::ERR_INTERNET_DISCONNECTED\n    at stack');
    si.clickTray('Check for updates');
    await eventually(() => expect(si.trayLabels()).toContain('Update check failed: net::ERR_INTERNET_DISCONNECTED'));
    updater.next = 'none';
    si.clickTray('Check for updates');
    await eventually(() => expect(si.trayLabels()).toContain('Switchboard is up to date'));
    expect(updater.checks).toBe(3);
  });
});
