// A stand-in for the part of Electron's API the desktop shell uses (main/electron/electron-api.ts, the same types the
// real module is checked against), to run the shell in Node. Each piece behaves as Electron documents it where the
// shell depends on it, and records what was done to it:
// - app: whenReady() resolves on the next turn; requestSingleInstanceLock() is false for a second instance; quit()
//   emits before-quit (cancellable), then closes every window (a prevented close cancels the quit), then will-quit and
//   quit; exit() ends at once without events; second-instance and activate are emitted by the test;
// - BrowserWindow: each new window's web contents is announced with app's web-contents-created; close() emits a
//   cancellable close, then closed; loadFile records the page; its web contents record what was sent, keep the window
//   open handler, and navigate() emits will-navigate as a link click would;
// - Tray, Menu.buildFromTemplate (the built menus are kept: click an item as a user would), ipcMain.handle (invoke()
//   calls a handler with an event from a sender), dialog, shell, nativeTheme (setDark() emits updated),
//   nativeImage.createFromPath (an image of a missing file is empty, as Electron's), Notification, the default
//   session's onHeadersReceived and permission handler;
// - an electron-updater autoUpdater whose next check is scripted.
// Test-only, never shipped.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type {
  ElectronApi,
  LoginItemSettingsInput,
  MenuItemTemplate,
  NotificationCtor,
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
};

export function electronStandIn(o: StandInOptions = {}) {
  const calls: string[] = [];
  const windows: FakeBrowserWindow[] = [];
  const trays: FakeTray[] = [];
  const menus: { items: MenuItemTemplate[] }[] = [];
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
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

  class FakeApp extends EventEmitter {
    isPackaged = o.packaged ?? false;
    exitCode: number | null = null;
    quitDone = false;
    userModelId: string | null = null;
    private loginItem = { openAtLogin: false, wasOpenedAtLogin: o.wasOpenedAtLogin ?? false };
    private readyPromise = new Promise<void>((resolve) => setImmediate(resolve));
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
    setLoginItemSettings(settings: LoginItemSettingsInput): void {
      loginItems.push(settings);
      this.loginItem.openAtLogin = settings.openAtLogin;
    }
    getLoginItemSettings() {
      return { ...this.loginItem };
    }
  }
  const app = new FakeApp();

  class FakeBrowserWindow extends EventEmitter {
    readonly webContents = new FakeWebContents();
    visible = false;
    focused = false;
    destroyed = false;
    minimized = false;
    loaded: string | null = null;
    constructor(readonly options: ConstructorParameters<ElectronApi['BrowserWindow']>[0]) {
      super();
      calls.push('new BrowserWindow');
      windows.push(this);
      app.emit('web-contents-created', new StandInEvent(), this.webContents);
    }
    loadFile(filePath: string, options?: { hash?: string }): Promise<void> {
      this.loaded = filePath;
      this.webContents.url = pathToFileURL(filePath).href + (options?.hash ? `#${options.hash}` : '');
      return Promise.resolve();
    }
    show(): void {
      this.visible = true;
    }
    hide(): void {
      this.visible = false;
      this.focused = false;
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

  return {
    electron,
    app,
    nativeTheme,
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
    /** Clicks the tray menu item with this label, as a user would. */
    clickTray: (label: string): void => {
      const item = trays.at(-1)?.menu?.items.find((i) => i.label === label);
      if (!item?.click) throw new Error(`no clickable tray item "${label}"`);
      if (item.enabled === false) throw new Error(`tray item "${label}" is disabled`);
      item.click();
    },
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
    this.emit('update-available', next);
    if (this.autoDownload) setImmediate(() => this.emit('update-downloaded', { ...next, downloadedFile: '/tmp/x' }));
    return { isUpdateAvailable: true, updateInfo: next };
  }
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void {
    this.installs.push({ isSilent, isForceRunAfter });
    setImmediate(() => this.app?.quit());
  }
}
