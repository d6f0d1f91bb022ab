// The one window of the app: made on first show where it was last left (window-state.ts, kept in the desktop state),
// its place saved as it changes, brought back onto a display that exists, and on macOS the Dock icon shown only while
// it is open (the Info.plist's LSUIElement hides it at start: a menu bar app, as Ollama's and Docker Desktop's).
import path from 'node:path';
import type { DesktopStateStore } from './desktop-state.ts';
import type { BrowserWindowLike, ElectronApi } from './electron-api.ts';
import { keepOnScreen, trackWindowState, windowPlacement } from './window-state.ts';
import { createWindow } from './window.ts';

export type AppWindowOptions = {
  platform: NodeJS.Platform;
  /** The built page, the preload (CommonJS) and assets/ (icons). */
  paths: { renderer: string; preload: string; assets: string };
};

export class AppWindow {
  private win: BrowserWindowLike | null = null;
  private tracker: { flush(): void } | null = null;

  constructor(
    private readonly e: ElectronApi,
    private readonly o: AppWindowOptions,
    private readonly desktop: () => DesktopStateStore,
    private readonly quitting: () => boolean,
  ) {}

  /** The window while it exists (hidden or shown), else null. */
  current(): BrowserWindowLike | null {
    return this.win && !this.win.isDestroyed() ? this.win : null;
  }

  /** Shows and focuses the window, making it where it was last left the first time. */
  show(): void {
    if (this.quitting()) return;
    let win = this.current();
    if (!win) {
      const { assets, renderer, preload } = this.o.paths;
      const icon = path.join(assets, this.o.platform === 'win32' ? 'icon.ico' : 'icon.png');
      const desktop = this.desktop();
      const { screen } = this.e;
      const placement = windowPlacement(desktop.window, screen.getAllDisplays(), screen.getPrimaryDisplay());
      win = this.win = createWindow(this.e, { renderer, preload, icon }, this.quitting, placement);
      this.tracker = trackWindowState(win, (s) => desktop.saveWindow(s));
      win.on('show', () => this.syncDock());
      win.on('hide', () => this.syncDock());
      win.on('closed', () => this.syncDock());
    } else {
      this.keepOnScreen();
    }
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
    this.syncDock();
  }

  /** Brings the window back onto a display that exists (a monitor was unplugged). */
  keepOnScreen(): void {
    const win = this.current();
    if (win) keepOnScreen(win, this.e.screen.getAllDisplays(), this.e.screen.getPrimaryDisplay());
  }

  /** macOS: the Dock icon shows while the window is open (minimized too: it lives in the Dock), and goes with it. */
  syncDock(): void {
    const dock = this.e.app.dock;
    if (!dock || this.o.platform !== 'darwin') return;
    const win = this.current();
    const open = win !== null && (win.isVisible() || win.isMinimized());
    if (open && !dock.isVisible()) void Promise.resolve(dock.show()).catch(() => undefined);
    if (!open && dock.isVisible()) dock.hide();
  }

  /** Saves a move or resize still waiting (at quit). */
  flush(): void {
    this.tracker?.flush();
  }
}
