// Where the window opens and how its place is saved (window-state.ts), on plain data and the stand-in's window.
import { describe, expect, it } from 'vitest';
import { electronStandIn } from '../../test/support/electron-standin.ts';
import type { DisplayLike, Rect } from './electron-api.ts';
import {
  DEFAULT_WINDOW,
  displayShowing,
  keepOnScreen,
  trackWindowState,
  windowPlacement,
  windowStateOf,
} from './window-state.ts';

const display = (bounds: Rect, id = 1): DisplayLike => ({
  id,
  bounds,
  workArea: { ...bounds, y: bounds.y + 25, height: bounds.height - 25 },
});
const laptop = display({ x: 0, y: 0, width: 1440, height: 900 }, 1);
const external = display({ x: 1440, y: 0, width: 2560, height: 1440 }, 2);

describe('windowPlacement', () => {
  it('opens a first window at the default size, centred by Electron (no position given)', () => {
    expect(windowPlacement(null, [laptop], laptop)).toEqual({ bounds: DEFAULT_WINDOW, maximized: false });
  });

  it('opens where it was left, on whichever display that is, maximized again if it was', () => {
    const saved = { x: 1700, y: 200, width: 1300, height: 900, maximized: true };
    expect(windowPlacement(saved, [laptop, external], laptop)).toEqual({
      bounds: { x: 1700, y: 200, width: 1300, height: 900 },
      maximized: true,
    });
  });

  it('moves to the primary display, centred, when the monitor it was on is gone (the size kept when it fits)', () => {
    const saved = { x: 1700, y: 200, width: 1000, height: 700, maximized: false };
    expect(windowPlacement(saved, [laptop], laptop)).toEqual({
      bounds: { x: 220, y: 113, width: 1000, height: 700 },
      maximized: false,
    });
  });

  it('cuts a size larger than the work area it opens on, and keeps one whose title bar is just on screen', () => {
    const big = { x: 1700, y: 100, width: 3000, height: 2000, maximized: false };
    expect(windowPlacement(big, [laptop], laptop).bounds).toEqual({ x: 0, y: 25, width: 1440, height: 875 });
    // 150 px of the title bar still on the laptop's right edge: reachable, so left where it was.
    const edge = { x: 1290, y: 300, width: 900, height: 600, maximized: false };
    expect(windowPlacement(edge, [laptop], laptop).bounds).toEqual({ x: 1290, y: 300, width: 900, height: 600 });
    // Only 60 px of it: not enough to grab, so brought back.
    expect(windowPlacement({ ...edge, x: 1380 }, [laptop], laptop).bounds.x).toBe(270);
    // Its title bar under the menu bar (above the work area): brought back.
    expect(windowPlacement({ ...edge, x: 100, y: -30 }, [laptop], laptop).bounds.y).toBe(163);
  });

  it('a saved size without a place (never moved) opens centred at that size', () => {
    expect(windowPlacement({ width: 900, height: 650, maximized: false }, [laptop], laptop)).toEqual({
      bounds: { width: 900, height: 650 },
      maximized: false,
    });
  });

  it('displayShowing names the display that holds the title bar', () => {
    expect(displayShowing({ x: 2000, y: 400, width: 800, height: 600 }, [laptop, external])?.id).toBe(2);
    expect(displayShowing({ x: 5000, y: 400, width: 800, height: 600 }, [laptop, external])).toBeNull();
  });
});

describe('the window on the stand-in', () => {
  async function ready() {
    const si = electronStandIn({
      displays: [
        { x: 0, y: 0, width: 1440, height: 900 },
        { x: 1440, y: 0, width: 2560, height: 1440 },
      ],
    });
    await si.app.whenReady();
    const win = new si.electron.BrowserWindow({
      x: 1700,
      y: 200,
      width: 1000,
      height: 700,
      show: true,
      title: 't',
      webPreferences: { preload: '', contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false },
    });
    return { si, win };
  }

  it('keepOnScreen brings back a window whose monitor was unplugged, and leaves one that is on screen', async () => {
    const { si, win } = await ready();
    expect(keepOnScreen(win, si.screen.getAllDisplays(), si.screen.getPrimaryDisplay())).toBe(false);
    si.screen.setDisplays([{ x: 0, y: 0, width: 1440, height: 900 }]);
    expect(keepOnScreen(win, si.screen.getAllDisplays(), si.screen.getPrimaryDisplay())).toBe(true);
    expect(win.getNormalBounds()).toEqual({ x: 220, y: 113, width: 1000, height: 700 });
  });

  it('saves moves and resizes once they settle, maximize and close at once, each state once', async () => {
    const { win } = await ready();
    const saved: unknown[] = [];
    const tracker = trackWindowState(win, (s) => saved.push(s), 30);
    win.moveTo(1800, 220);
    win.moveTo(1810, 230);
    win.resizeTo(1100, 720);
    expect(saved).toEqual([]); // a drag in progress
    await new Promise((r) => setTimeout(r, 60));
    expect(saved).toEqual([{ x: 1810, y: 230, width: 1100, height: 720, maximized: false }]);
    win.maximize();
    // The normal bounds are kept while maximized: they are what a restore gives back.
    expect(saved.at(-1)).toEqual({ x: 1810, y: 230, width: 1100, height: 720, maximized: true });
    expect(win.getBounds()).toEqual({ x: 1440, y: 25, width: 2560, height: 1415 });
    win.unmaximize();
    win.moveTo(1900, 240);
    tracker.flush(); // a quit before the delay
    expect(saved.at(-1)).toEqual({ x: 1900, y: 240, width: 1100, height: 720, maximized: false });
    const count = saved.length;
    win.emit('close', { preventDefault() {} });
    expect(saved.length).toBe(count); // nothing changed since
    expect(windowStateOf(win)).toEqual(saved.at(-1));
  });
});
