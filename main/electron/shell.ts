// The desktop shell's lifecycle, on the Electron API it is handed (main.ts hands it the real one; the lifecycle tests a
// stand-in): single instance, the engine in-process on listen_port, the window (hidden on close, hardened), the tray,
// start on login, IPC, desktop notifications, auto-update. config.json is the engine's own ConfigStore: a file that
// is invalid at start opens the window on a problems page (the file is watched; the engine starts once it is valid),
// and one made invalid while running leaves the last good config in force.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { problemToText } from '../../shared/config.ts';
import { httpTransport } from '../../shared/http-client.ts';
import type { ConfigProblemsInfo, PortConflictInfo, SwitchboardApi } from '../../shared/ipc.ts';
import type { UsageTotals } from '../../shared/usage.ts';
import { Switchboard } from '../app.ts';
import { ConfigError } from '../config/store.ts';
import { logger } from '../observability/logger.ts';
import { PortInUseError } from '../server/port-conflict.ts';
import { applyStartOnLogin, autostartTarget, startsHidden } from './autostart.ts';
import { configProblemsInfo } from './config-problems-page.ts';
import type { BrowserWindowLike, ElectronApi, MenuItemTemplate, PreventableEvent, TrayLike } from './electron-api.ts';
import type { Updater } from './electron-api.ts';
import { desktopHandlers, forwardEvents, registerIpc } from './ipc-handlers.ts';
import { desktopNotifier } from './notifier.ts';
import { portConflictInfo } from './port-conflict-page.ts';
import {
  type TrayAction,
  type TrayItem,
  type TrayState,
  trayIconName,
  trayMenuModel,
  trayTooltip,
} from './tray-menu.ts';
import { UPDATE_CHECK_EVERY_MS, Updates } from './updates.ts';
import { createWindow, hardenContents, hardenSession } from './window.ts';

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
  window: { visible: boolean } | null;
  tray: { tooltip: string; labels: string[] } | null;
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
  private win: BrowserWindowLike | null = null;
  private tray: TrayLike | null = null;
  private trayKey = '';
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
    registerIpc(
      e.ipcMain,
      desktopHandlers(this.client, () => ({
        shell: 'electron',
        version: o.version,
        port_conflict: this.conflict,
        config_problems: this.problems,
      })),
      (ev) => ev.sender === this.win?.webContents && ev.senderFrame === this.win?.webContents.mainFrame,
    );
    this.tray = new e.Tray(this.trayIcon());
    e.nativeTheme.on('updated', () => this.tray?.setImage(this.trayIcon()));
    this.tray.on('click', () => this.showWindow());
    const updater = e.app.isPackaged ? o.updater() : null; // off in development
    if (updater) {
      this.updates = new Updates(updater, (s) => {
        if (s.kind === 'ready')
          this.notify(`Switchboard ${s.version} is ready`, 'Restart to update from the tray menu.');
        void this.refreshTray();
      });
      void this.updates.check();
      this.timers.push(setInterval(() => void this.updates?.check(), UPDATE_CHECK_EVERY_MS).unref());
    }
    await this.syncStartOnLogin();
    await this.refreshTray();
    this.timers.push(setInterval(() => void this.refreshTray(), o.trayRefreshMs ?? 5000).unref());
    const hidden = startsHidden(o.argv, o.platform, () => e.app.getLoginItemSettings().wasOpenedAtLogin === true);
    if (!this.running() || !hidden) this.showWindow();
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
    await this.syncStartOnLogin();
    await this.refreshTray();
    if (this.win && !this.win.isDestroyed()) this.win.webContents.reload(); // the page reads the app info again
  }

  /** Follows the running engine: start on login and the tray on config changes, events to the window, notices. */
  private attach(sb: Switchboard): void {
    sb.store.on('change', (next, prev) => {
      if (next.start_on_login !== prev.start_on_login) void this.syncStartOnLogin();
      void this.refreshTray();
    });
    sb.store.on('invalid', () => void this.refreshTray());
    if (this.streams.length > 0) return; // the client follows the server: one set of streams for the shell's life
    this.streams.push(forwardEvents(this.client, () => this.win?.webContents ?? null));
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

  private async syncStartOnLogin(): Promise<void> {
    const store = this.sb?.store;
    if (!store) return;
    const { e, o } = this;
    const target = autostartTarget({ ...o, isPackaged: e.app.isPackaged, appPath: e.app.getAppPath() });
    await applyStartOnLogin(store.config.start_on_login === true, {
      platform: o.platform,
      env: o.env,
      home: o.home,
      target,
      writeFile: async (f, t) => {
        await fsp.mkdir(path.dirname(f), { recursive: true });
        await fsp.writeFile(f, t, { mode: 0o644 });
      },
      removeFile: (f) => fsp.rm(f, { force: true }),
      setLoginItem: (s) => e.app.setLoginItemSettings(s),
    }).catch((err: Error) => logger.warn(`start on login was not applied: ${err.message}`));
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
    const state: TrayState = {
      port: sb ? sb.port : null,
      providers: sb ? sb.engine.pool.all().map((p) => p.status()) : [],
      paused: sb?.engine.paused ?? false,
      startOnLogin: this.sb?.store?.config.start_on_login === true,
      problem: this.problems ? 'config.json is invalid' : this.conflict ? `port ${this.conflict.port} is taken` : null,
      today: sb ? await this.usageToday() : null,
      configInvalid: sb !== null && sb.store.error !== null,
      update: this.updates?.state ?? null,
    };
    const model = trayMenuModel(state);
    const tip = trayTooltip(state);
    const key = JSON.stringify(model) + tip;
    if (!this.tray || key === this.trayKey) return;
    this.trayKey = key;
    this.tray.setContextMenu(this.e.Menu.buildFromTemplate(model.map((i) => this.menuItem(i))));
    this.tray.setToolTip(tip);
    this.trayShown = { tooltip: tip, labels: model.map((i) => ('label' in i ? i.label : '—')) };
  }

  state(): ShellState {
    const win = this.win && !this.win.isDestroyed() ? { visible: this.win.isVisible() } : null;
    return {
      running: this.running(),
      port: this.running() ? this.sb!.port : null,
      config_problems: this.problems,
      port_conflict: this.conflict,
      window: win,
      tray: this.tray ? this.trayShown : null,
    };
  }

  private menuItem(item: TrayItem): MenuItemTemplate {
    if (item.kind === 'separator') return { type: 'separator' };
    if (item.kind === 'status') return { label: item.label, enabled: false };
    const click = () => void this.onTray(item.id);
    if (item.kind === 'checkbox') return { label: item.label, type: 'checkbox', checked: item.checked, click };
    return { label: item.label, type: 'normal', enabled: item.enabled !== false, click };
  }

  async onTray(action: TrayAction): Promise<void> {
    if (action === 'open') this.showWindow();
    if (action === 'toggle-pause' && this.running()) this.sb!.engine.paused = !this.sb!.engine.paused;
    if (action === 'toggle-login') await this.toggleStartOnLogin();
    if (action === 'open-config-folder') void this.e.shell.openPath(path.dirname(this.o.configPath));
    if (action === 'check-updates') void this.updates?.check();
    if (action === 'install-update') {
      this.quitting = true; // the window must close for the installer (quit stops the server first)
      this.updates?.install();
    }
    if (action === 'quit') this.e.app.quit(); // before-quit stops the server first
    await this.refreshTray();
  }

  /** The tray's toggle saves config.json like any save (validated, atomic, backup kept); a broken file is said. */
  private async toggleStartOnLogin(): Promise<void> {
    const store = this.sb?.store;
    if (!store) return;
    const raw = (await store.readRaw()) as Record<string, unknown>;
    try {
      await store.save({ ...raw, start_on_login: store.config.start_on_login !== true });
    } catch (err) {
      const why =
        err instanceof ConfigError
          ? `config.json has problems:\n${err.problems.map(problemToText).join('\n')}\n\nFix the file, then try again.`
          : (err as Error).message;
      this.e.dialog.showErrorBox('Start on login was not changed', why);
    }
    await this.syncStartOnLogin();
  }

  private notify(title: string, body: string): void {
    const N = this.e.Notification;
    if (!N.isSupported()) return;
    const n = new N({ title, body });
    n.on('click', () => this.showWindow());
    n.show();
  }

  showWindow(): void {
    if (this.quitting) return;
    if (!this.win || this.win.isDestroyed()) {
      const { assets, renderer, preload } = this.o.paths;
      const icon = path.join(assets, this.o.platform === 'win32' ? 'icon.ico' : 'icon.png');
      this.win = createWindow(this.e, { renderer, preload, icon }, () => this.quitting);
    }
    if (this.win.isMinimized()) this.win.restore();
    this.win.show();
    this.win.focus();
  }

  /** Every way out (tray Quit, Cmd+Q, logout, Restart to update) stops the server cleanly before the process ends. */
  private beforeQuit(ev: PreventableEvent): void {
    this.quitting = true;
    if (this.isStopped) return;
    ev.preventDefault();
    if (this.stopping) return;
    this.stopping = true;
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
