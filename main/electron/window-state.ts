// The window's place and size across launches (kept with electron-store: desktop-state.ts): where it opens, kept on
// a screen that still exists, and saved as the user moves, resizes, maximizes or closes it. As the best tray apps do
// (and electron-window-state): the normal bounds and the maximized flag are saved, never a full-screen or minimized
// state; a place whose title bar is no longer on any display (its monitor was unplugged, the resolution shrank) gives
// way to the primary display, centred, the size kept when it fits.
import { WINDOW_MIN, type WindowState } from '../../shared/desktop.ts';
import type { BrowserWindowLike, DisplayLike, Rect } from './electron-api.ts';

/** The size of the first window (and of one whose saved size is unreadable). */
export const DEFAULT_WINDOW = { width: 1100, height: 760 };
/** The smallest window the user can make (the UI works from 800×600; a little less still reads). */
export const WINDOW_MIN_SIZE = { width: 640, height: 480 };
/** How much of the window's top strip (its title bar) must be on a display's work area to be reachable. */
const REACHABLE = { width: 120, height: 20 };
const TITLE_BAR = 40;
/** How long after the last move or resize the place is saved (a drag sends dozens of events). */
export const SAVE_DELAY_MS = 400;

export type Placement = { bounds: { x?: number; y?: number; width: number; height: number }; maximized: boolean };

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { width: Math.max(0, width), height: Math.max(0, height) };
}

/** The display whose work area holds enough of this window's title bar to grab it, or null when none does. */
export function displayShowing(bounds: Rect, displays: DisplayLike[]): DisplayLike | null {
  const titleBar = { x: bounds.x, y: bounds.y, width: bounds.width, height: Math.min(TITLE_BAR, bounds.height) };
  const need = { width: Math.min(REACHABLE.width, bounds.width), height: Math.min(REACHABLE.height, titleBar.height) };
  return (
    displays.find((d) => {
      const o = overlap(titleBar, d.workArea);
      return o.width >= need.width && o.height >= need.height;
    }) ?? null
  );
}

/** A size that fits the work area (and is at least the smallest window, where the area allows). */
function fit(size: { width: number; height: number }, area: Rect): { width: number; height: number } {
  return {
    width: Math.min(Math.max(size.width, Math.min(WINDOW_MIN.width, area.width)), area.width),
    height: Math.min(Math.max(size.height, Math.min(WINDOW_MIN.height, area.height)), area.height),
  };
}

/** Centred on the display's work area. */
function centred(size: { width: number; height: number }, area: Rect): Rect {
  const s = fit(size, area);
  return {
    x: area.x + Math.round((area.width - s.width) / 2),
    y: area.y + Math.round((area.height - s.height) / 2),
    ...s,
  };
}

/**
 * Where the window opens: the saved place when its title bar is still on a display (the size cut to that display's
 * work area), else centred on the primary display; nothing saved, the default size centred (Electron centres a
 * window given no position).
 */
export function windowPlacement(saved: WindowState | null, displays: DisplayLike[], primary: DisplayLike): Placement {
  if (!saved) return { bounds: fit(DEFAULT_WINDOW, primary.workArea), maximized: false };
  const size = { width: saved.width, height: saved.height };
  if (saved.x !== undefined && saved.y !== undefined) {
    const on = displayShowing({ x: saved.x, y: saved.y, ...size }, displays);
    if (on) return { bounds: { x: saved.x, y: saved.y, ...fit(size, on.workArea) }, maximized: saved.maximized };
    return { bounds: centred(size, primary.workArea), maximized: saved.maximized };
  }
  return { bounds: fit(size, primary.workArea), maximized: saved.maximized };
}

/**
 * Brings a window whose title bar is on no display back to the primary one, centred (a monitor unplugged while it
 * was open or hidden in the tray). A maximized window is left to the system, which moves it with its display.
 * Returns whether it moved.
 */
export function keepOnScreen(win: BrowserWindowLike, displays: DisplayLike[], primary: DisplayLike): boolean {
  if (win.isDestroyed() || win.isMaximized()) return false;
  const b = win.getNormalBounds();
  if (displayShowing(b, displays)) return false;
  win.setBounds(centred(b, primary.workArea));
  return true;
}

/** What is saved of the window now: its normal bounds and whether it is maximized. */
export function windowStateOf(win: BrowserWindowLike): WindowState {
  const b = win.getNormalBounds();
  return {
    x: Math.round(b.x),
    y: Math.round(b.y),
    width: Math.round(b.width),
    height: Math.round(b.height),
    maximized: win.isMaximized(),
  };
}

/**
 * Saves the window's state as the user changes it: moves and resizes once they settle (SAVE_DELAY_MS), maximize,
 * unmaximize and close (which hides it to the tray) at once. `flush()` saves a pending change now (at quit).
 */
export function trackWindowState(
  win: BrowserWindowLike,
  save: (state: WindowState) => void,
  delayMs = SAVE_DELAY_MS,
): { flush(): void } {
  let timer: NodeJS.Timeout | null = null;
  let last = '';
  const saveNow = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (win.isDestroyed()) return;
    const state = windowStateOf(win);
    const key = JSON.stringify(state);
    if (key === last) return;
    last = key;
    save(state);
  };
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(saveNow, delayMs);
    timer.unref?.();
  };
  last = JSON.stringify(windowStateOf(win)); // what it opened with is already saved (or is the default)
  win.on('resize', later);
  win.on('move', later);
  win.on('maximize', saveNow);
  win.on('unmaximize', saveNow);
  win.on('close', saveNow);
  return { flush: () => (timer ? saveNow() : undefined) };
}
