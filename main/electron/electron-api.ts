// The part of Electron's API the desktop shell uses, as plain types: main.ts hands shell.ts the real module (tsc checks
// that it fits these), and the lifecycle tests hand it a stand-in that records every call
// (test/support/electron-standin.ts). Listener types are loose where Electron overloads `on` per event name.

/** An event a listener may cancel (a window's close, a navigation, before-quit). */
export type PreventableEvent = { preventDefault(): void; readonly defaultPrevented?: boolean };

export type NativeImageLike = { isEmpty(): boolean; setTemplateImage(option: boolean): void };

export type WebContentsLike = {
  readonly mainFrame: unknown;
  send(channel: string, ...args: any[]): void;
  isDestroyed(): boolean;
  reload(): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
};

/** A rectangle in screen coordinates (DIP), as Electron's Rectangle. */
export type Rect = { x: number; y: number; width: number; height: number };

export type BrowserWindowLike = {
  readonly webContents: WebContentsLike;
  on(event: string, listener: (...args: any[]) => void): unknown;
  loadFile(filePath: string, options?: { hash?: string }): Promise<void>;
  show(): void;
  hide(): void;
  focus(): void;
  restore(): void;
  maximize(): void;
  isMinimized(): boolean;
  isMaximized(): boolean;
  isVisible(): boolean;
  isDestroyed(): boolean;
  /** The bounds of the window in its normal state (not maximized, minimized or full screen). */
  getNormalBounds(): Rect;
  getBounds(): Rect;
  setBounds(bounds: Partial<Rect>): void;
};

export type MenuItemTemplate = {
  label?: string;
  type?: 'normal' | 'separator' | 'checkbox' | 'radio' | 'submenu';
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
  submenu?: MenuItemTemplate[];
};

/** A display: its whole bounds and its work area (without the taskbar, dock or menu bar). */
export type DisplayLike = { id: number; bounds: Rect; workArea: Rect };

export type TrayLike = {
  setContextMenu(menu: any): void;
  setToolTip(toolTip: string): void;
  setImage(image: any): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy(): void;
};

export type NotificationCtor = {
  isSupported(): boolean;
  new (options: { title: string; body: string; silent?: boolean }): {
    show(): void;
    on(event: 'click', listener: () => void): unknown;
  };
};

export type LoginItemSettingsInput = { openAtLogin: boolean; path?: string; args?: string[] };

/**
 * app.getLoginItemSettings()'s answer, as far as the shell reads it: `status` on macOS 13+ (SMAppService),
 * `executableWillLaunchAtLogin` and `launchItems` on Windows (the Run key and whether Startup apps allows it).
 */
export type LoginItemSettingsLike = {
  openAtLogin: boolean;
  wasOpenedAtLogin?: boolean;
  status?: 'not-registered' | 'enabled' | 'requires-approval' | 'not-found';
  executableWillLaunchAtLogin?: boolean;
  launchItems?: { name: string; path: string; args: string[]; scope: 'user' | 'machine'; enabled: boolean }[];
};

export type ElectronApi = {
  app: {
    readonly isPackaged: boolean;
    requestSingleInstanceLock(): boolean;
    whenReady(): Promise<void>;
    on(event: string, listener: (...args: any[]) => void): unknown;
    quit(): void;
    exit(exitCode?: number): void;
    getAppPath(): string;
    setAppUserModelId(id: string): void;
    setLoginItemSettings(settings: LoginItemSettingsInput): void;
    /** On Windows, `path` and `args` name the item to compare against (default process.execPath, no arguments). */
    getLoginItemSettings(options?: { path?: string; args?: string[] }): LoginItemSettingsLike;
    /** The user-data folder (`userData`), where electron-store keeps the desktop state. */
    getPath(name: 'userData'): string;
    /** macOS only (undefined elsewhere): the Dock icon, shown only while the window is open (a tray app). */
    readonly dock?: { show(): Promise<void> | void; hide(): void; isVisible(): boolean } | undefined;
  };
  BrowserWindow: new (options: {
    x?: number;
    y?: number;
    width: number;
    height: number;
    minWidth?: number;
    minHeight?: number;
    show: boolean;
    title: string;
    icon?: string;
    webPreferences: {
      preload: string;
      contextIsolation: boolean;
      sandbox: boolean;
      nodeIntegration: boolean;
      webviewTag: boolean;
    };
  }) => BrowserWindowLike;
  Tray: new (image: any) => TrayLike;
  Menu: { buildFromTemplate(template: MenuItemTemplate[]): unknown };
  ipcMain: {
    handle(channel: string, listener: (event: any, ...args: any[]) => Promise<unknown> | unknown): void;
    /** Listeners for ipcRenderer.send / sendSync: the shell has none; electron-store registers one. */
    on(channel: string, listener: (event: any, ...args: any[]) => void): unknown;
  };
  dialog: { showErrorBox(title: string, content: string): void };
  shell: { openExternal(url: string): Promise<void>; openPath(path: string): Promise<string> };
  nativeTheme: { readonly shouldUseDarkColors: boolean; on(event: 'updated', listener: () => void): unknown };
  nativeImage: { createFromPath(path: string): NativeImageLike };
  /** Usable only once the app is ready. */
  screen: {
    getAllDisplays(): DisplayLike[];
    getPrimaryDisplay(): DisplayLike;
    on(event: 'display-removed', listener: (...args: any[]) => void): unknown;
  };
  Notification: NotificationCtor;
  session: {
    readonly defaultSession: {
      webRequest: {
        onHeadersReceived(
          listener: (
            details: { url: string; responseHeaders?: Record<string, string[]> },
            callback: (response: { responseHeaders?: Record<string, string | string[]> }) => void,
          ) => void,
        ): void;
      };
      setPermissionRequestHandler(
        handler: (webContents: any, permission: string, callback: (granted: boolean) => void) => void,
      ): void;
    };
  };
};

/** electron-updater's autoUpdater, as far as the shell uses it (its events are electron-updater's). */
export type Updater = {
  autoDownload: boolean;
  checkForUpdates(): Promise<unknown>;
  /** Downloads the update the last check found (with autoDownload off). */
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
};
