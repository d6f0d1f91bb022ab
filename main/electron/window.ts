// The window and what keeps it the app's own: the UI's Content-Security-Policy on every response the window loads,
// no navigation away from the app's page, no new windows, no webviews, no permissions but writing to the clipboard;
// links to http(s) pages open in the browser (nothing else is opened).
import { pathToFileURL } from 'node:url';
import { UI_CSP } from '../server/ui.ts';
import type { BrowserWindowLike, ElectronApi, PreventableEvent, WebContentsLike } from './electron-api.ts';
import { type Placement, WINDOW_MIN_SIZE } from './window-state.ts';

/** The window's policy: the UI's (as /ui sends it). */
export const WINDOW_CSP = UI_CSP;

/** Whether a link may go to the system browser: http and https only (never file:, javascript:, custom schemes). */
export function isExternalLink(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The page itself, at any #/route: the only navigation the window allows (the renderer's routes are hashes). */
export function isAppPage(url: string, page: string): boolean {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href === pathToFileURL(page).href;
  } catch {
    return false;
  }
}

/** Opens an http(s) link in the system browser; anything else is dropped. */
function openOutside(e: Pick<ElectronApi, 'shell'>, url: string): void {
  if (isExternalLink(url)) void e.shell.openExternal(url).catch(() => undefined);
}

/** Every web contents the app makes: no navigation away, no new windows, no webviews. */
export function hardenContents(e: Pick<ElectronApi, 'shell'>, contents: WebContentsLike, page: string): void {
  contents.on('will-navigate', (event: PreventableEvent, url: string) => {
    if (isAppPage(url, page)) return;
    event.preventDefault();
    openOutside(e, url);
  });
  contents.on('will-redirect', (event: PreventableEvent, url: string) => {
    if (!isAppPage(url, page)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event: PreventableEvent) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openOutside(e, url);
    return { action: 'deny' };
  });
}

/** The session's side: the CSP header on every response (file:// included), permissions refused. */
export function hardenSession(e: Pick<ElectronApi, 'session'>): void {
  const s = e.session.defaultSession;
  s.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [WINDOW_CSP] } });
  });
  // Copy buttons use navigator.clipboard.writeText; nothing else (camera, notifications from the page…) is asked for.
  s.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
}

export type WindowPaths = { renderer: string; preload: string; icon: string };

/**
 * The window: sandboxed, context-isolated, its preload the shared IPC contract; where it was last left
 * (window-state.ts); hidden (not closed) on close.
 */
export function createWindow(
  e: ElectronApi,
  paths: WindowPaths,
  quitting: () => boolean,
  placement: Placement,
): BrowserWindowLike {
  const win = new e.BrowserWindow({
    ...placement.bounds,
    minWidth: WINDOW_MIN_SIZE.width,
    minHeight: WINDOW_MIN_SIZE.height,
    show: false,
    title: 'Switchboard',
    icon: paths.icon,
    webPreferences: {
      preload: paths.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    },
  });
  win.on('close', (event: PreventableEvent) => {
    if (quitting()) return;
    event.preventDefault(); // closing hides to the tray
    win.hide();
  });
  if (placement.maximized) win.maximize();
  void win.loadFile(paths.renderer).catch(() => undefined);
  return win;
}
