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

export type BrowserWindowLike = {
  readonly webContents: WebContentsLike;
  on(event: string, listener: (...args: any[]) => void): unknown;
  loadFile(filePath: string, options?: { hash?: string }): Promise<void>;
  show(): void;
  hide(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isVisible(): boolean;
  isDestroyed(): boolean;
};

export type MenuItemTemplate = {
  label?: string;
  type?: 'normal' | 'separator' | 'checkbox';
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
};

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
    getLoginItemSettings(): { openAtLogin: boolean; wasOpenedAtLogin?: boolean };
  };
  BrowserWindow: new (options: {
    width: number;
    height: number;
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
  };
  dialog: { showErrorBox(title: string, content: string): void };
  shell: { openExternal(url: string): Promise<void>; openPath(path: string): Promise<string> };
  nativeTheme: { readonly shouldUseDarkColors: boolean; on(event: 'updated', listener: () => void): unknown };
  nativeImage: { createFromPath(path: string): NativeImageLike };
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
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
};
