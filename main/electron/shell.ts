// The desktop shell's lifecycle, on the Electron API it is handed (main.ts hands it the real one; the lifecycle tests a
// stand-in): single instance, the engine in-process on listen_port, the window (hidden on close, hardened, its place
// remembered, the Dock icon on macOS only while it is open), the tray (status, the last minute, each tool's provider,
// pause), start on login (read back from the system), IPC, desktop notifications, auto-update as Settings says.
// config.json is the engine's own ConfigStore: a file that is invalid at start opens the window on a problems page
// (the file is watched; the engine starts once it is valid), and one made invalid while running leaves the last good
// config in force. The app's own state (window, auto-update switch) is electron-store's (desktop-state.ts).
import fs from 'node:fs';
import path from 'node:path';
import { problemToText } from '../../shared/config.ts';
import { httpTransport } from '../../shared/http-client.ts';
import type { AutoUpdateMode, DesktopSettings, LoginItemState } from '../../shared/desktop.ts';
import type { ConfigProblemsInfo, PortConflictInfo, SwitchboardApi } from '../../shared/ipc.ts';
import type { UsageTotals } from '../../shared/usage.ts';
import { Switchboard } from '../app.ts';
import { ConfigError } from '../config/store.ts';
import { PortInUseError } from '../server/port-conflict.ts';
import { providerChoices, trayApps, withAppProvider } from './app-provider.ts';
import { AppWindow } from './app-window.ts';
import { startsHidden } from './autostart.ts';
import { configProblemsInfo } from './config-problems-page.ts';
import { DesktopStateStore, type KeyValueStore } from './desktop-state.ts';
import type { ElectronApi, MenuItemTemplate, PreventableEvent, TrayLike } from './electron-api.ts';
import type { Rect, Updater } from './electron-api.ts';
import { desktopHandlers, forwardEvents, registerIpc } from './ipc-handlers.ts';
import { LastMinute } from './last-minute.ts';
import { desktopNotifier } from './notifier.ts';
import { portConflictInfo } from './port-conflict-page.ts';
import { StartOnLogin } from './start-on-login.ts';
import {
  type TrayAction,
  type TrayItem,
  type TrayState,
  trayIconName,
  trayMenuModel,
  trayTooltip,
} from './tray-menu.ts';
import { type UpdateState, Updates } from './updates.ts';
import { hardenContents, hardenSession } from './window.ts';

/** electron-builder.yml's appId: Windows shows notifications only for an app with this AppUserModelID. */
export const APP_ID = 'dev.switchboard.app';

export type ShellOptions = {
  configPath: string;
  version: string;
  argv: string[];
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  execPath: string;
  /** The built page, the preload (CommonJS) and assets/ (icons). */
  paths: { renderer: string; preload: string; assets: string };
  /** electron-updater's autoUpdater; asked for only in a packaged app (`app.isPackaged`). */
  updater: () => Updater | null;
  /**
   * Opens the app's own store (main.ts: electron-store with DESKTOP_STORE_OPTIONS, in the user-data folder): the
   * window's place and the auto-update switch. Opened once the app is ready.
   */
  desktopStore: () => KeyValueStore;
  /** How often the tray reads the state again (the menu is rebuilt only when its content changed). */
  trayRefreshMs?: number;
};

export type ShellHandle = {
  /** Resolves once the engine started (or the window says why not), the tray and IPC are set up. */
  ready: Promise<void>;
  /** The running engine; null while config.json is invalid at start. */
  switchboard(): Switchboard | null;
  /** Resolves once a quit has stopped the server. */
  stopped: Promise<void>;
  /** What the shell shows now (the smoke test reads it in the real app through main.ts's export). */
  state(): ShellState;
};

export type ShellState = {
  running: boolean;
  port: number | null;
  config_problems: ConfigProblemsInfo | null;
  port_conflict: PortConflictInfo | null;
  window: { visible: boolean; bounds: Rect; maximized: boolean } | null;
  tray: { tooltip: string; labels: string[] } | null;
  /** macOS: whether the Dock icon shows (only while the window is open); null elsewhere. */
  dock: boolean | null;
  login_item: LoginItemState | null;
  auto_update: AutoUpdateMode | null;
};

/** Starts the shell; a second instance hands over to the first (its window shows) and exits. */
export function startShell(e: ElectronApi, o: ShellOptions): ShellHandle {
  if (!e.app.requestSingleInstanceLock()) {
    e.app.exit(0);
    const state: ShellState = {
      running: false,
      port: null,
      config_problems: null,
      port_conflict: null,
      window: null,
      tray: null,
      dock: null,
      login_item: null,
      auto_update: null,
    };
    return { ready: Promise.resolve(), switchboard: () => null, stopped: Promise.resolve(), state: () => state };
  }
  const shell = new DesktopShell(e, o);
  return { ready: shell.ready, switchboard: () => shell.sb, stopped: shell.stopped, state: () => shell.state() };
}

class DesktopShell {
  sb: Switchboard | null = null;
  readonly ready: Promise<void>;
  readonly stopped: Promise<void>;
  private markStopped: () => void = () => {};
  private conflict: PortConflictInfo | null = null;
  private problems: ConfigProblemsInfo | null = null;
  private readonly window: AppWindow;
  private tray: TrayLike | null = null;
  private trayKey = '';
  private tipShown = '';
  private trayShown: { tooltip: string; labels: string[] } | null = null;
  private quitting = false;
  private stopping = false;
  private isStopped = false;
  private streams: (() => void)[] = [];
  private fileWatch: fs.FSWatcher | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retrying: Promise<void> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private updates: Updates | null = null;
  /** The version last announced as available (check-only mode says it once). */
  private announced: string | null = null;
  private desktop: DesktopStateStore | null = null;
  private readonly lastMinute = new LastMinute();
  private loginItem: LoginItemState | null = null;
  private readonly startOnLogin: StartOnLogin;
  /** The data client against our own server: its address is read at each call, so it follows a port move. */
  private readonly client: SwitchboardApi;

  constructor(
    private readonly e: ElectronApi,
    private readonly o: ShellOptions,
  ) {
    let key: string | null = null; // the window's agent key lives in memory only
    this.client = httpTransport({
      base: () => this.baseUrl(),
      token: () => this.sb?.adminToken ?? '',
      keyStore: { get: () => key, set: (k) => void (key = k || null) },
    });
    this.stopped = new Promise((resolve) => (this.markStopped = resolve));
    this.startOnLogin = new StartOnLogin(e, o);
    this.window = new AppWindow(
      e,
      o,
      () => this.desktopState(),
      () => this.quitting,
    );
    const { app } = e;
    app.on('web-contents-created', (_ev: unknown, contents) => hardenContents(e, contents, o.paths.renderer));
    app.on('second-instance', () => this.showWindow());
    app.on('activate', () => this.showWindow()); // macOS: a click on the Dock icon
    app.on('window-all-closed', () => {}); // stay in the tray
    app.on('before-quit', (ev: PreventableEvent) => this.beforeQuit(ev));
    this.ready = app.whenReady().then(() => this.onReady());
  }

  private running(): boolean {
    return this.sb !== null && this.conflict === null && this.problems === null;
  }

  /** Our server on loopback (the admin API answers loopback names only); port 0 while it is not running. */
  private baseUrl(): string {
    if (!this.running()) return 'http://127.0.0.1:0';
    const host = new URL(this.sb!.url).hostname === '[::1]' ? '[::1]' : '127.0.0.1';
    return `http://${host}:${this.sb!.port}`;
  }

  private async onReady(): Promise<void> {
    const { e, o } = this;
    if (o.platform === 'win32') e.app.setAppUserModelId(APP_ID);
    hardenSession(e);
    try {
      await this.startEngine();
    } catch (err) {
      e.dialog.showErrorBox('Switchboard did not start', (err as Error).message);
      e.app.exit(1);
      return;
    }
    const updater = e.app.isPackaged ? o.updater() : null; // off in development
    if (updater) this.updates = new Updates(updater, this.desktopState().autoUpdate, (s) => this.onUpdate(s));
    registerIpc(
      e.ipcMain,
      desktopHandlers(
        this.client,
        () => ({
          shell: 'electron',
          version: o.version,
          port_conflict: this.conflict,
          config_problems: this.problems,
        }),
        { settings: () => this.desktopSettings(), setAutoUpdate: (mode) => this.setAutoUpdate(mode) },
      ),
      (ev) => {
        const wc = this.window.current()?.webContents;
        return wc !== undefined && ev.sender === wc && ev.senderFrame === wc.mainFrame;
      },
    );
    this.tray = new e.Tray(this.trayIcon());
    e.nativeTheme.on('updated', () => this.tray?.setImage(this.trayIcon()));
    this.tray.on('click', () => this.showWindow());
    // A monitor unplugged while the window is out: it comes back to a display that is there.
    e.screen.on('display-removed', () => this.window.keepOnScreen());
    this.updates?.start(); // made before the IPC handlers, which say whether updates run
    await this.syncStartOnLogin('start');
    await this.refreshTray();
    this.timers.push(setInterval(() => void this.refreshTray(), o.trayRefreshMs ?? 5000).unref());
    const hidden = startsHidden(o.argv, o.platform, () => e.app.getLoginItemSettings().wasOpenedAtLogin === true);
    if (!this.running() || !hidden) this.showWindow();
    else this.window.syncDock();
  }

  /** The app's own store, opened on first use (after ready: electron-store reads the user-data path). */
  private desktopState(): DesktopStateStore {
    this.desktop ??= new DesktopStateStore(this.o.desktopStore);
    return this.desktop;
  }

  /** An update's state changed: the tray follows; a version found (check only) or downloaded is notified once. */
  private onUpdate(s: UpdateState): void {
    if (s.kind === 'ready') this.notify(`Switchboard ${s.version} is ready`, 'Restart to update from the tray menu.');
    if (s.kind === 'available' && this.announced !== s.version) {
      this.announced = s.version;
      this.notify(`Switchboard ${s.version} is available`, 'Download it from the tray menu.');
    }
    void this.refreshTray();
  }

  /** What Settings shows of the desktop app (IPC getDesktopSettings). */
  private async desktopSettings(): Promise<DesktopSettings> {
    this.loginItem = await this.readLoginItem();
    return {
      auto_update: this.desktopState().autoUpdate,
      updates_supported: this.updates !== null,
      login_item: this.loginItem,
    };
  }

  /** Settings' auto-update switch: kept in the desktop state, applied at once. */
  private async setAutoUpdate(mode: AutoUpdateMode): Promise<DesktopSettings> {
    this.desktopState().saveAutoUpdate(mode);
    this.updates?.setMode(mode);
    await this.refreshTray();
    return this.desktopSettings();
  }

  /** Starts the engine; an invalid config.json or a taken port leaves it stopped, said by the window, and watched. */
  private async startEngine(): Promise<void> {
    const sb = new Switchboard({ configPath: this.o.configPath });
    try {
      await sb.start();
      [this.sb, this.conflict, this.problems] = [sb, null, null];
      this.stopWatchingFile();
      this.attach(sb);
    } catch (err) {
      if (err instanceof ConfigError) {
        [this.sb, this.conflict, this.problems] = [null, null, configProblemsInfo(err.file, err.problems)];
        await sb.stop().catch(() => undefined);
      } else if (err instanceof PortInUseError) {
        // Its store holds config.json (start on login); it is stopped on the next try or on quit.
        this.conflict = portConflictInfo(err.port, err.holder, this.o.configPath, err.suggested);
        [this.sb, this.problems] = [sb, null];
      } else {
        await sb.stop().catch(() => undefined);
        throw err;
      }
      this.watchFile();
    }
  }

  /** While the engine is not running, an edit of config.json tries again (and the page shows the outcome). */
  private watchFile(): void {
    if (this.fileWatch) return;
    const base = path.basename(this.o.configPath);
    try {
      this.fileWatch = fs.watch(path.dirname(this.o.configPath), { persistent: false }, (_ev, name) => {
        if (name && name !== base) return;
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => void (this.retrying = this.retrying.then(() => this.retry())), 250);
      });
      this.fileWatch.on('error', () => undefined);
    } catch {
      this.fileWatch = null;
    }
  }

  private stopWatchingFile(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.fileWatch?.close();
    this.fileWatch = null;
  }

  private async retry(): Promise<void> {
    if (this.quitting || this.running()) return;
    const old = this.sb;
    this.sb = null;
    await old?.stop().catch(() => undefined);
    try {
      await this.startEngine();
    } catch (err) {
      this.problems = { config_path: this.o.configPath, problems: [], message: (err as Error).message };
    }
    await this.syncStartOnLogin('start');
    await this.refreshTray();
    this.window.current()?.webContents.reload(); // the page reads the app info again
  }

  /** Follows the running engine: start on login and the tray on config changes, events to the window, notices. */
  private attach(sb: Switchboard): void {
    sb.store.on('change', (next, prev) => {
      if (next.start_on_login !== prev.start_on_login) void this.syncStartOnLogin('change');
      void this.refreshTray();
    });
    sb.requestLog.subscribe((entry) => this.lastMinute.add(entry));
    sb.store.on('invalid', () => void this.refreshTray());
    if (this.streams.length > 0) return; // the client follows the server: one set of streams for the shell's life
    this.streams.push(forwardEvents(this.client, () => this.window.current()?.webContents ?? null));
    // Notices come over loopback from GET /admin/v1/events, as the UI gets them; config.json's switches at each.
    this.streams.push(
      this.client.subscribe(
        'notification',
        desktopNotifier({
          Notification: this.e.Notification,
          switches: () => this.sb?.store.config.notifications,
          onClick: () => this.showWindow(),
        }),
      ),
    );
  }

  /** The login item's state beside start_on_login (null while the engine has no config). */
  private async readLoginItem(): Promise<LoginItemState | null> {
    const store = this.sb?.store;
    return store ? this.startOnLogin.read(store.config.start_on_login === true) : null;
  }

  /** Applies start_on_login to the system: on a change always, at start only where the system differs by itself. */
  private async syncStartOnLogin(why: 'start' | 'change'): Promise<void> {
    const store = this.sb?.store;
    if (store) await this.startOnLogin.apply(store.config.start_on_login === true, why);
  }

  private trayIcon() {
    const name = trayIconName(this.o.platform, this.e.nativeTheme.shouldUseDarkColors);
    const image = this.e.nativeImage.createFromPath(path.join(this.o.paths.assets, name));
    if (this.o.platform === 'darwin') image.setTemplateImage(true); // tinted by the menu bar, light or dark
    return image;
  }

  /** Today's totals for the tray, from the usage summary (null when the usage store is off or did not answer). */
  private async usageToday(): Promise<UsageTotals | null> {
    const r = await this.client.getUsage({ range: 'today' });
    return r.ok ? r.data.totals : null;
  }

  /** Reads the state and rebuilds the tray menu, only when what it shows changed. */
  async refreshTray(): Promise<void> {
    if (!this.tray) return;
    const sb = this.running() ? this.sb! : null;
    this.loginItem = await this.readLoginItem();
    const config = sb?.store.config;
    const state: TrayState = {
      port: sb ? sb.port : null,
      providers: sb ? sb.engine.pool.all().map((p) => p.status()) : [],
      paused: sb?.engine.paused ?? false,
      startOnLogin: this.sb?.store?.config.start_on_login === true,
      problem: this.problems ? 'config.json is invalid' : this.conflict ? `port ${this.conflict.port} is taken` : null,
      today: sb ? await this.usageToday() : null,
      configInvalid: sb !== null && sb.store.error !== null,
      update: this.updates?.state ?? null,
      apps: config
        ? trayApps(config.app_rules).map((a) => ({ ...a, choices: providerChoices(config.providers, a.provider) }))
        : [],
      lastMinute: sb ? this.lastMinute.counts() : null,
      loginItem: this.loginItem,
      platform: this.o.platform,
    };
    const model = trayMenuModel(state);
    const tip = trayTooltip(state);
    if (!this.tray) return;
    // The menu is rebuilt only when it changed; the tooltip (the last minute moves on) is set on its own.
    const key = JSON.stringify(model);
    if (key !== this.trayKey) {
      this.trayKey = key;
      this.tray.setContextMenu(this.e.Menu.buildFromTemplate(model.map((i) => this.menuItem(i))));
    }
    if (tip !== this.tipShown) {
      this.tipShown = tip;
      this.tray.setToolTip(tip);
    }
    this.trayShown = { tooltip: tip, labels: model.map((i) => ('label' in i ? i.label : '—')) };
  }

  state(): ShellState {
    const w = this.window.current();
    return {
      running: this.running(),
      port: this.running() ? this.sb!.port : null,
      config_problems: this.problems,
      port_conflict: this.conflict,
      window: w ? { visible: w.isVisible(), bounds: w.getNormalBounds(), maximized: w.isMaximized() } : null,
      tray: this.tray ? this.trayShown : null,
      dock: this.e.app.dock ? this.e.app.dock.isVisible() : null,
      login_item: this.loginItem,
      auto_update: this.desktop?.autoUpdate ?? null,
    };
  }

  private menuItem(item: TrayItem): MenuItemTemplate {
    if (item.kind === 'separator') return { type: 'separator' };
    if (item.kind === 'status') return { label: item.label, enabled: false };
    if (item.kind === 'submenu') return { label: item.label, submenu: item.items.map((i) => this.menuItem(i)) };
    if (item.kind === 'radio') {
      const click = () => void this.onTray(item.action);
      return { label: item.label, type: 'radio', checked: item.checked, enabled: item.enabled !== false, click };
    }
    const click = () => void this.onTray(item.id);
    if (item.kind === 'checkbox') return { label: item.label, type: 'checkbox', checked: item.checked, click };
    return { label: item.label, type: 'normal', enabled: item.enabled !== false, click };
  }

  async onTray(action: TrayAction): Promise<void> {
    if (typeof action === 'object') {
      await this.setAppProvider(action.app, action.provider);
      await this.refreshTray();
      return;
    }
    if (action === 'open') this.showWindow();
    if (action === 'toggle-pause' && this.running()) this.sb!.engine.paused = !this.sb!.engine.paused;
    if (action === 'toggle-login') await this.toggleStartOnLogin();
    if (action === 'open-config-folder') void this.e.shell.openPath(path.dirname(this.o.configPath));
    if (action === 'open-login-settings' && this.loginItem?.settings_url)
      void this.e.shell.openExternal(this.loginItem.settings_url).catch(() => undefined);
    if (action === 'check-updates') void this.updates?.check();
    if (action === 'download-update') void this.updates?.download();
    if (action === 'install-update') {
      this.quitting = true; // the window must close for the installer (quit stops the server first)
      this.updates?.install();
    }
    if (action === 'quit') this.e.app.quit(); // before-quit stops the server first
    await this.refreshTray();
  }

  /**
   * A change the tray makes to config.json, saved like any save (validated, atomic, the replaced config kept as a
   * backup) from the file as it is; a file that is broken, or a change that does not validate, is said in a box.
   */
  private async saveFromTray(what: string, change: (raw: Record<string, unknown>) => unknown): Promise<void> {
    const store = this.sb?.store;
    if (!store) return;
    try {
      const raw = await store.readRaw();
      await store.save(change(raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {}));
    } catch (err) {
      const why =
        err instanceof ConfigError
          ? `config.json has problems:\n${err.problems.map(problemToText).join('\n')}\n\nFix the file, then try again.`
          : (err as Error).message;
      this.e.dialog.showErrorBox(`${what} was not changed`, why);
    }
  }

  /** Saved like any save: the store's change applies it to the system (attach). */
  private async toggleStartOnLogin(): Promise<void> {
    const on = this.sb?.store.config.start_on_login !== true;
    await this.saveFromTray('Start on login', (raw) => ({ ...raw, start_on_login: on }));
  }

  /** The tray's tool submenu: which provider serves the app (its app rule's default_provider; null: the rules). */
  private async setAppProvider(app: string, provider: string | null): Promise<void> {
    if (!this.running()) return;
    await this.saveFromTray(`${app}'s provider`, (raw) => withAppProvider(raw, app, provider));
  }

  private notify(title: string, body: string): void {
    const N = this.e.Notification;
    if (!N.isSupported()) return;
    const n = new N({ title, body });
    n.on('click', () => this.showWindow());
    n.show();
  }

  showWindow(): void {
    this.window.show();
  }

  /** Every way out (tray Quit, Cmd+Q, logout, Restart to update) stops the server cleanly before the process ends. */
  private beforeQuit(ev: PreventableEvent): void {
    this.quitting = true;
    if (this.isStopped) return;
    ev.preventDefault();
    if (this.stopping) return;
    this.stopping = true;
    this.window.flush();
    this.updates?.stop();
    this.stopWatchingFile();
    for (const t of this.timers) clearInterval(t);
    for (const off of this.streams) off();
    void (this.sb?.stop() ?? Promise.resolve())
      .catch(() => undefined)
      .finally(() => {
        this.isStopped = true;
        this.tray?.destroy();
        this.tray = null;
        this.markStopped();
        this.e.app.quit();
      });
  }
}
