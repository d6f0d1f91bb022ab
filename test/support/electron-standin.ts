// A stand-in for the part of Electron's API the desktop shell uses (main/electron/electron-api.ts, the same types the
// real module is checked against), to run the shell in Node. Each piece behaves as Electron documents it where the
// shell depends on it, and records what was done to it:
// - app: whenReady() resolves on the next turn; requestSingleInstanceLock() is false for a second instance; quit()
//   emits before-quit (cancellable), then closes every window (a prevented close cancels the quit), then will-quit and
//   quit; exit() ends at once without events; second-instance and activate are emitted by the test; getPath('userData')
//   (moved by setPath) and getVersion() (what electron-store reads); app.dock on macOS only (undefined elsewhere, as Electron's), hidden
//   at start as an LSUIElement app's is; the login item per OS: macOS 13+ `status` (registering gives `enabled`, or
//   `requires-approval` until approveLoginItem()), Windows' Run key items (`launchItems`, openAtLogin only for the
//   same path and arguments, `enabled` false once disableInStartupApps()), nothing on Linux (Electron has no login
//   items there);
// - BrowserWindow: each new window's web contents is announced with app's web-contents-created; without x and y it is
//   centred on the primary display's work area; setBounds, maximize and the user's moveTo/resizeTo emit move, resize,
//   maximize and unmaximize as Electron does, and getNormalBounds() keeps the bounds a maximized window restores to;
//   show() and hide() emit show and hide when the window's visibility changes;
//   close() emits a cancellable close, then closed; loadFile records the page; its web contents record what was sent,
//   keep the window open handler, and navigate() emits will-navigate as a link click would;
// - screen: the displays (the first is the primary; the work area leaves out a 25 px menu bar), usable only once the
//   app is ready; setDisplays() plugs and unplugs monitors (display-added, display-removed);
// - Tray, Menu.buildFromTemplate (the built menus are kept: click an item, in a submenu too, as a user would; a radio
//   item clicked becomes the checked one of its group), ipcMain.handle (invoke() calls a handler with an event from a
//   sender) and ipcMain.on, dialog, shell, nativeTheme (setDark() emits updated), nativeImage.createFromPath (an image
//   of a missing file is empty, as Electron's), Notification, the default session's onHeadersReceived and permission
//   handler;
// - an electron-updater autoUpdater whose next check is scripted (with autoDownload off, downloadUpdate() fetches
//   what the check found).
// Test-only, never shipped.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Conf from 'conf';
import type {
  DisplayLike,
  ElectronApi,
  LoginItemSettingsInput,
  LoginItemSettingsLike,
  MenuItemTemplate,
  NotificationCtor,
  Rect,
  Updater,
} from '../../main/electron/electron-api.ts';

/** An event a listener may cancel, as Electron passes it. */
export class StandInEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

/** A stand-in for Electron's Notification class: records what was made, shown and listened to. */
export function fakeNotificationClass(supported = true) {
  const made: { title: string; body: string; shown: boolean; click?: () => void }[] = [];
  class FakeNotification {
    static isSupported = () => supported;
    private readonly rec: (typeof made)[number];
    constructor(o: { title: string; body: string }) {
      this.rec = { title: o.title, body: o.body, shown: false };
      made.push(this.rec);
    }
    show() {
      this.rec.shown = true;
    }
    on(_event: 'click', listener: () => void) {
      this.rec.click = listener;
      return this;
    }
  }
  return { Notification: FakeNotification satisfies NotificationCtor, made };
}

export class FakeImage {
  template = false;
  constructor(readonly path: string) {}
  isEmpty(): boolean {
    try {
      return fs.statSync(this.path).size === 0;
    } catch {
      return true;
    }
  }
  setTemplateImage(option: boolean): void {
    this.template = option;
  }
}

export class FakeWebContents extends EventEmitter {
  readonly mainFrame = { frame: 'main' };
  readonly sent: { channel: string; payload: unknown }[] = [];
  url = '';
  reloads = 0;
  destroyed = false;
  openHandler: ((details: { url: string }) => { action: 'deny' } | { action: 'allow' }) | null = null;
  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    this.sent.push({ channel, payload: args[0] });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  reload(): void {
    this.reloads++;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void {
    this.openHandler = handler;
  }
  /** A navigation the page starts (a link, location.href =): true when no will-navigate listener prevented it. */
  navigate(url: string): boolean {
    const ev = new StandInEvent();
    this.emit('will-navigate', ev, url);
    if (!ev.defaultPrevented) this.url = url;
    return !ev.defaultPrevented;
  }
  /** window.open or a target=_blank link: what the window open handler answered. */
  openWindow(url: string): { action: string } {
    return this.openHandler ? this.openHandler({ url }) : { action: 'allow' };
  }
  /** A <webview> the page tries to attach: true when allowed. */
  attachWebview(): boolean {
    const ev = new StandInEvent();
    this.emit('will-attach-webview', ev, {}, {});
    return !ev.defaultPrevented;
  }
}

export type StandInOptions = {
  packaged?: boolean;
  /** Another instance holds the single-instance lock. */
  otherInstance?: boolean;
  dark?: boolean;
  notificationsSupported?: boolean;
  /** macOS: this launch came from the login item. */
  wasOpenedAtLogin?: boolean;
  /** The OS Electron runs on: app.dock and the login item's answers follow it (default linux). */
  platform?: NodeJS.Platform;
  /** app.getPath('userData') (default: a folder of its own under the system's temp folder). */
  userData?: string;
  /** The monitors, the first being the primary (default one 1920×1080 at 0,0). */
  displays?: Rect[];
  /** macOS 13+: registering the login item needs the user's approval in System Settings (default: approved). */
  loginItemNeedsApproval?: boolean;
  /** macOS before 13: getLoginItemSettings() has no `status`. */
  macosBefore13?: boolean;
  /** process.execPath as Electron sees it (Windows' login item compares against it by default). */
  execPath?: string;
  /** Windows: the Run key as an earlier launch left it (the registry outlives the app). */
  runKey?: { path: string; args: string[]; enabled: boolean }[];
};

let userDataCount = 0;

/** A display of these bounds whose work area leaves out a 25 px menu bar at the top. */
const display = (bounds: Rect, id: number): DisplayLike => ({
  id,
  bounds: { ...bounds },
  workArea: { x: bounds.x, y: bounds.y + 25, width: bounds.width, height: bounds.height - 25 },
});

export function electronStandIn(o: StandInOptions = {}) {
  const calls: string[] = [];
  const windows: FakeBrowserWindow[] = [];
  const trays: FakeTray[] = [];
  const menus: { items: MenuItemTemplate[] }[] = [];
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const listeners = new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>();
  const errorBoxes: { title: string; content: string }[] = [];
  const opened: { external: string[]; paths: string[] } = { external: [], paths: [] };
  const loginItems: LoginItemSettingsInput[] = [];
  const session = {
    headersListener: null as
      | null
      | ((
          details: { url: string; responseHeaders?: Record<string, string[]> },
          cb: (r: { responseHeaders?: Record<string, string | string[]> }) => void,
        ) => void),
    permissionHandler: null as null | ((wc: unknown, permission: string, cb: (granted: boolean) => void) => void),
  };
  const notifications = fakeNotificationClass(o.notificationsSupported ?? true);

  const platform = o.platform ?? 'linux';
  const execPath = o.execPath ?? '/usr/bin/electron';
  let userData = o.userData ?? path.join(os.tmpdir(), `sb-standin-${process.pid}-${++userDataCount}`, 'Switchboard');
  let ready = false;

  /** macOS: the Dock icon (an LSUIElement app starts without one). */
  class FakeDock {
    visible = false;
    readonly shown: boolean[] = [];
    show(): Promise<void> {
      this.visible = true;
      this.shown.push(true);
      return Promise.resolve();
    }
    hide(): void {
      this.visible = false;
      this.shown.push(false);
    }
    isVisible(): boolean {
      return this.visible;
    }
  }

  class FakeApp extends EventEmitter {
    isPackaged = o.packaged ?? false;
    exitCode: number | null = null;
    quitDone = false;
    userModelId: string | null = null;
    readonly dock = platform === 'darwin' ? new FakeDock() : undefined;
    /** macOS: the login item's SMAppService status. */
    macLoginItem: 'not-registered' | 'enabled' | 'requires-approval' | 'not-found' = 'not-registered';
    /** Windows: the Run key's entries this app wrote, and whether Startup apps allows each. */
    runKey: { path: string; args: string[]; enabled: boolean }[] = (o.runKey ?? []).map((i) => ({ ...i }));
    private readonly wasOpenedAtLogin = o.wasOpenedAtLogin ?? false;
    private readyPromise = new Promise<void>((resolve) =>
      setImmediate(() => {
        ready = true;
        resolve();
      }),
    );
    requestSingleInstanceLock(): boolean {
      calls.push('app.requestSingleInstanceLock');
      return !o.otherInstance;
    }
    whenReady(): Promise<void> {
      return this.readyPromise;
    }
    quit(): void {
      calls.push('app.quit');
      const before = new StandInEvent();
      this.emit('before-quit', before);
      if (before.defaultPrevented) return;
      for (const w of windows.filter((x) => !x.destroyed)) if (!w.close()) return; // a prevented close cancels it
      const will = new StandInEvent();
      this.emit('will-quit', will);
      if (will.defaultPrevented) return;
      this.quitDone = true;
      this.exitCode = 0;
      this.emit('quit', new StandInEvent(), 0);
    }
    exit(exitCode = 0): void {
      calls.push(`app.exit(${exitCode})`);
      this.exitCode = exitCode;
      for (const w of windows) w.destroyed = true;
    }
    getAppPath(): string {
      return '/opt/switchboard-app';
    }
    setAppUserModelId(id: string): void {
      this.userModelId = id;
    }
    getPath(name: 'userData'): string {
      if (name !== 'userData') throw new Error(`the stand-in knows the userData path only, not ${String(name)}`);
      return userData;
    }
    /** Before ready, as Electron allows for userData (the stand-in knows no other path). */
    setPath(name: 'userData', p: string): void {
      if (name !== 'userData') throw new Error(`the stand-in knows the userData path only, not ${String(name)}`);
      userData = p;
    }
    getVersion(): string {
      return '0.1.0';
    }
    setLoginItemSettings(settings: LoginItemSettingsInput): void {
      loginItems.push(settings);
      if (platform === 'darwin') {
        // SMAppService.mainAppService register / unregister.
        this.macLoginItem = !settings.openAtLogin
          ? 'not-registered'
          : o.loginItemNeedsApproval
            ? 'requires-approval'
            : 'enabled';
      } else if (platform === 'win32') {
        const itemPath = settings.path ?? execPath;
        this.runKey = this.runKey.filter((i) => i.path !== itemPath);
        if (settings.openAtLogin) this.runKey.push({ path: itemPath, args: settings.args ?? [], enabled: true });
      }
    }
    getLoginItemSettings(options?: { path?: string; args?: string[] }): LoginItemSettingsLike {
      if (platform === 'darwin') {
        const openAtLogin = this.macLoginItem === 'enabled';
        return o.macosBefore13
          ? { openAtLogin, wasOpenedAtLogin: this.wasOpenedAtLogin }
          : { openAtLogin, wasOpenedAtLogin: this.wasOpenedAtLogin, status: this.macLoginItem };
      }
      if (platform === 'win32') {
        const itemPath = options?.path ?? execPath;
        const args = JSON.stringify(options?.args ?? []);
        const mine = this.runKey.filter((i) => i.path === itemPath);
        return {
          openAtLogin: mine.some((i) => JSON.stringify(i.args) === args),
          executableWillLaunchAtLogin: mine.some((i) => i.enabled),
          launchItems: mine.map((i) => ({
            name: 'dev.switchboard.app',
            path: i.path,
            args: i.args,
            scope: 'user' as const,
            enabled: i.enabled,
          })),
        };
      }
      return { openAtLogin: false }; // Linux: Electron has no login items
    }
    /** macOS: the user allows the login item in System Settings › General › Login Items. */
    approveLoginItem(): void {
      if (this.macLoginItem === 'requires-approval') this.macLoginItem = 'enabled';
    }
    /** Windows: the user turns the app off in Task Manager's (or Settings') Startup apps. */
    disableInStartupApps(): void {
      for (const i of this.runKey) i.enabled = false;
    }
  }
  const app = new FakeApp();

  class FakeBrowserWindow extends EventEmitter {
    readonly webContents = new FakeWebContents();
    visible = false;
    focused = false;
    destroyed = false;
    minimized = false;
    maximized = false;
    loaded: string | null = null;
    /** The normal (not maximized) bounds. */
    private normal: Rect;
    constructor(readonly options: ConstructorParameters<ElectronApi['BrowserWindow']>[0]) {
      super();
      calls.push('new BrowserWindow');
      const { width, height } = options;
      if (options.x !== undefined && options.y !== undefined) {
        this.normal = { x: options.x, y: options.y, width, height };
      } else {
        const wa = screen.getPrimaryDisplay().workArea; // Electron centres a window given no position
        this.normal = {
          x: wa.x + Math.round((wa.width - width) / 2),
          y: wa.y + Math.round((wa.height - height) / 2),
          width,
          height,
        };
      }
      windows.push(this);
      app.emit('web-contents-created', new StandInEvent(), this.webContents);
    }
    getNormalBounds(): Rect {
      return { ...this.normal };
    }
    getBounds(): Rect {
      if (!this.maximized) return { ...this.normal };
      const centre = { x: this.normal.x + this.normal.width / 2, y: this.normal.y + this.normal.height / 2 };
      const on =
        screen
          .getAllDisplays()
          .find(
            (d) =>
              centre.x >= d.bounds.x &&
              centre.x < d.bounds.x + d.bounds.width &&
              centre.y >= d.bounds.y &&
              centre.y < d.bounds.y + d.bounds.height,
          ) ?? screen.getPrimaryDisplay();
      return { ...on.workArea };
    }
    setBounds(b: Partial<Rect>): void {
      const before = this.normal;
      this.normal = { ...before, ...b };
      if (this.normal.x !== before.x || this.normal.y !== before.y) this.emit('move');
      if (this.normal.width !== before.width || this.normal.height !== before.height) this.emit('resize');
    }
    /** The user drags the window to (x, y). */
    moveTo(x: number, y: number): void {
      this.setBounds({ x, y });
    }
    /** The user drags the window's edge to this size. */
    resizeTo(width: number, height: number): void {
      this.setBounds({ width, height });
    }
    maximize(): void {
      if (this.maximized) return;
      this.maximized = true;
      this.emit('maximize');
      this.emit('resize');
    }
    unmaximize(): void {
      if (!this.maximized) return;
      this.maximized = false;
      this.emit('unmaximize');
      this.emit('resize');
    }
    isMaximized(): boolean {
      return this.maximized;
    }
    loadFile(filePath: string, options?: { hash?: string }): Promise<void> {
      this.loaded = filePath;
      this.webContents.url = pathToFileURL(filePath).href + (options?.hash ? `#${options.hash}` : '');
      return Promise.resolve();
    }
    show(): void {
      const was = this.visible;
      this.visible = true;
      if (!was) this.emit('show');
    }
    hide(): void {
      const was = this.visible;
      this.visible = false;
      this.focused = false;
      if (was) this.emit('hide');
    }
    focus(): void {
      this.focused = true;
    }
    restore(): void {
      this.minimized = false;
    }
    isMinimized(): boolean {
      return this.minimized;
    }
    isVisible(): boolean {
      return this.visible;
    }
    isDestroyed(): boolean {
      return this.destroyed;
    }
    /** The close button (or a quit): true when the window really closed. */
    close(): boolean {
      const ev = new StandInEvent();
      this.emit('close', ev);
      if (ev.defaultPrevented) return false;
      this.destroyed = this.webContents.destroyed = true;
      this.visible = false;
      this.emit('closed');
      return true;
    }
  }

  class FakeTray extends EventEmitter {
    menu: { items: MenuItemTemplate[] } | null = null;
    tooltip = '';
    destroyed = false;
    readonly images: FakeImage[] = [];
    constructor(image: FakeImage) {
      super();
      this.images.push(image);
      trays.push(this);
    }
    get image(): FakeImage {
      return this.images.at(-1)!;
    }
    setContextMenu(menu: { items: MenuItemTemplate[] }): void {
      this.menu = menu;
    }
    setToolTip(toolTip: string): void {
      this.tooltip = toolTip;
    }
    setImage(image: FakeImage): void {
      this.images.push(image);
    }
    destroy(): void {
      this.destroyed = true;
    }
  }

  class FakeScreen extends EventEmitter {
    private displays: DisplayLike[] = (o.displays ?? [{ x: 0, y: 0, width: 1920, height: 1080 }]).map((b, i) =>
      display(b, i + 1),
    );
    private nextId = this.displays.length + 1;
    private check(): void {
      if (!ready) throw new Error("The 'screen' module can't be used before the app 'ready' event");
    }
    getAllDisplays(): DisplayLike[] {
      this.check();
      return this.displays.map((d) => ({ ...d, bounds: { ...d.bounds }, workArea: { ...d.workArea } }));
    }
    getPrimaryDisplay(): DisplayLike {
      this.check();
      return this.getAllDisplays()[0]!;
    }
    /** Plugs and unplugs monitors: the first rectangle is the primary display. */
    setDisplays(rects: Rect[]): void {
      const key = (r: Rect) => JSON.stringify(r);
      const before = this.displays;
      const kept = before.filter((d) => rects.some((r) => key(r) === key(d.bounds)));
      this.displays = rects.map((r) => kept.find((d) => key(d.bounds) === key(r)) ?? display(r, this.nextId++));
      // Announced once the list has changed, as Electron does.
      for (const gone of before.filter((d) => !kept.includes(d))) this.emit('display-removed', {}, gone);
      for (const added of this.displays.filter((d) => !kept.includes(d))) this.emit('display-added', {}, added);
    }
  }
  const screen = new FakeScreen();

  class FakeNativeTheme extends EventEmitter {
    shouldUseDarkColors = o.dark ?? false;
    setDark(dark: boolean): void {
      this.shouldUseDarkColors = dark;
      this.emit('updated');
    }
  }
  const nativeTheme = new FakeNativeTheme();

  const electron = {
    app,
    BrowserWindow: FakeBrowserWindow,
    Tray: FakeTray,
    Menu: {
      buildFromTemplate(template: MenuItemTemplate[]) {
        const menu = { items: template };
        menus.push(menu);
        return menu;
      },
    },
    ipcMain: {
      handle(channel: string, listener: (event: unknown, ...args: unknown[]) => unknown): void {
        if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        handlers.set(channel, listener);
      },
      /** ipcRenderer.send / sendSync listeners (electron-store registers one). */
      on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): void {
        listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
      },
    },
    dialog: {
      showErrorBox(title: string, content: string): void {
        errorBoxes.push({ title, content });
      },
    },
    shell: {
      openExternal(url: string): Promise<void> {
        opened.external.push(url);
        return Promise.resolve();
      },
      openPath(p: string): Promise<string> {
        opened.paths.push(p);
        return Promise.resolve('');
      },
    },
    nativeTheme,
    nativeImage: { createFromPath: (p: string) => new FakeImage(p) },
    screen,
    Notification: notifications.Notification,
    session: {
      defaultSession: {
        webRequest: {
          onHeadersReceived(listener: NonNullable<typeof session.headersListener>): void {
            session.headersListener = listener;
          },
        },
        setPermissionRequestHandler(handler: NonNullable<typeof session.permissionHandler>): void {
          session.permissionHandler = handler;
        },
      },
    },
  } satisfies ElectronApi;

  /** The menu item at this path of labels (a submenu's label, then its item's), in the tray's menu. */
  const trayItem = (labels: string[]): { item: MenuItemTemplate; siblings: MenuItemTemplate[] } | null => {
    let items = trays.at(-1)?.menu?.items ?? [];
    for (const [i, label] of labels.entries()) {
      const item = items.find((x) => x.label === label);
      if (!item) return null;
      if (i === labels.length - 1) return { item, siblings: items };
      items = item.submenu ?? [];
    }
    return null;
  };

  return {
    electron,
    app,
    nativeTheme,
    screen,
    /** app.getPath('userData') now. */
    userData: () => userData,
    /** ipcMain.on listeners by channel (electron-store's). */
    listeners,
    calls,
    windows,
    /** The one window the shell made (throws when there is none). */
    window: () => {
      const w = windows.at(-1);
      if (!w) throw new Error('no window was made');
      return w;
    },
    trays,
    tray: () => {
      const t = trays.at(-1);
      if (!t) throw new Error('no tray was made');
      return t;
    },
    /** Every menu built (Menu.buildFromTemplate), oldest first. */
    menus,
    /** The tray menu's labels as shown, e.g. ['2 providers ok, 0 failed · port 11434', '—', 'Open Switchboard', …]. */
    trayLabels: (): string[] =>
      (trays.at(-1)?.menu?.items ?? []).map((i) => (i.type === 'separator' ? '—' : (i.label ?? ''))),
    /** Clicks the tray menu item with this label (after the labels of the submenus it is in), as a user would. */
    clickTray: (...labels: string[]): void => {
      const found = trayItem(labels);
      const name = labels.join(' › ');
      if (!found?.item.click) throw new Error(`no clickable tray item "${name}"`);
      if (found.item.enabled === false) throw new Error(`tray item "${name}" is disabled`);
      if (found.item.type === 'radio')
        for (const s of found.siblings) if (s.type === 'radio') s.checked = s === found.item;
      found.item.click();
    },
    /** The item at this path of labels (submenus first), or null. */
    trayItem: (...labels: string[]): MenuItemTemplate | null => trayItem(labels)?.item ?? null,
    handlers,
    /** Calls an IPC handler as the renderer's invoke would, from `sender` (default: the window's main frame). */
    invoke: async (channel: string, req?: unknown, sender?: { sender: unknown; senderFrame: unknown }) => {
      const h = handlers.get(channel);
      if (!h) throw new Error(`no handler for ${channel}`);
      const w = windows.at(-1);
      const event = sender ?? { sender: w?.webContents, senderFrame: w?.webContents.mainFrame };
      return h(event, req) as Promise<{ ok: boolean; data?: unknown; failure?: { status: number } }>;
    },
    errorBoxes,
    opened,
    loginItems,
    /** The headers the default session gives a response to `url` (the CSP is added there). */
    responseHeaders: (url: string): Record<string, string | string[]> => {
      let out: Record<string, string | string[]> = {};
      session.headersListener?.({ url, responseHeaders: { 'content-type': ['text/html'] } }, (r) => {
        out = r.responseHeaders ?? {};
      });
      return out;
    },
    /** Whether the default session grants a permission the page asks for. */
    permission: (permission: string): boolean => {
      let granted = true; // Electron's default without a handler
      session.permissionHandler?.({}, permission, (g) => (granted = g));
      return granted;
    },
    notifications: notifications.made,
  };
}

export type ElectronStandIn = ReturnType<typeof electronStandIn>;

/**
 * electron-updater's autoUpdater, with the outcome of the next check scripted: nothing new, a version (announced as
 * available, then downloaded), or an error (emitted, and the check rejects). quitAndInstall quits the app on the next
 * turn, as electron-updater's BaseUpdater does.
 */
export class FakeUpdater extends EventEmitter implements Updater {
  autoDownload = false;
  checks = 0;
  installs: { isSilent?: boolean; isForceRunAfter?: boolean }[] = [];
  next: 'none' | { version: string } | Error = 'none';
  downloads = 0;
  private found: { version: string } | null = null;
  constructor(private readonly app?: { quit(): void }) {
    super();
  }
  async checkForUpdates(): Promise<unknown> {
    this.checks++;
    this.emit('checking-for-update');
    await new Promise((r) => setImmediate(r));
    const next = this.next;
    if (next instanceof Error) {
      this.emit('error', next);
      throw next;
    }
    if (next === 'none') {
      this.emit('update-not-available', { version: '0.1.0' });
      return { isUpdateAvailable: false };
    }
    this.found = next;
    this.emit('update-available', next);
    if (this.autoDownload) void this.downloadUpdate();
    return { isUpdateAvailable: true, updateInfo: next };
  }
  /** electron-updater's downloadUpdate: rejects when no check found an update. */
  async downloadUpdate(): Promise<unknown> {
    const found = this.found;
    if (!found) throw new Error('Please check update first');
    this.downloads++;
    await new Promise((r) => setImmediate(r));
    this.emit('update-downloaded', { ...found, downloadedFile: '/tmp/x' });
    return ['/tmp/x'];
  }
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void {
    this.installs.push({ isSilent, isForceRunAfter });
    setImmediate(() => this.app?.quit());
  }
}

/**
 * electron-store as its constructor builds itself in Electron's main process (electron-store 11's index.js): conf's
 * store in app.getPath('userData'), named by `name`, versioned by app.getVersion(). electron-store imports Electron
 * itself, so the lifecycle tests build it this way against the stand-in's app; the compiled desktop bundle runs the
 * real electron-store against the stand-in (test/shipped/electron-bundle.test.ts).
 */
export function electronStoreOn(
  app: { getPath(name: 'userData'): string; getVersion(): string },
  options: { name: string; clearInvalidConfig?: boolean },
): Conf<Record<string, unknown>> {
  const { name, ...rest } = options;
  return new Conf<Record<string, unknown>>({
    ...rest,
    configName: name,
    cwd: app.getPath('userData'),
    projectVersion: app.getVersion(),
  });
}
