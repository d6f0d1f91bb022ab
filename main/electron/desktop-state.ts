// The desktop app's own state, kept with electron-store in `desktop-state.json` in the app's user-data folder (never
// in config.json, which is the engine's): the window's place and size, and the auto-update switch. The file is read
// through shared/desktop.ts field by field (a bad field takes its default), and a store that cannot be opened (a
// folder that cannot be written) leaves the app running on defaults, said in the log.
import {
  AUTO_UPDATE_DEFAULT,
  type AutoUpdateMode,
  type DesktopState,
  parseDesktopState,
  type WindowState,
} from '../../shared/desktop.ts';
import { logger } from '../observability/logger.ts';

/** What the shell needs of an electron-store instance (main.ts makes the real one; the tests hand a file store). */
export type KeyValueStore = {
  readonly store: unknown;
  set(key: string, value: unknown): void;
  readonly path?: string;
};

/** electron-store's options: the file's name, and a damaged file starts over rather than stopping the app. */
export const DESKTOP_STORE_OPTIONS = { name: 'desktop-state', clearInvalidConfig: true } as const;

export class DesktopStateStore {
  private state: DesktopState = { window: null, auto_update: AUTO_UPDATE_DEFAULT };
  private store: KeyValueStore | null = null;

  /** Opens the store; on failure the state lives in memory for this run. */
  constructor(open: () => KeyValueStore) {
    try {
      this.store = open();
      this.state = parseDesktopState(this.store.store);
    } catch (err) {
      logger.warn(`the desktop state could not be read; using defaults: ${(err as Error).message}`);
    }
  }

  get window(): WindowState | null {
    return this.state.window;
  }

  get autoUpdate(): AutoUpdateMode {
    return this.state.auto_update;
  }

  saveWindow(w: WindowState): void {
    this.state.window = w;
    this.write('window', w);
  }

  saveAutoUpdate(mode: AutoUpdateMode): void {
    this.state.auto_update = mode;
    this.write('auto_update', mode);
  }

  private write(key: keyof DesktopState, value: unknown): void {
    try {
      this.store?.set(key, value);
    } catch (err) {
      logger.warn(`the desktop state was not saved (${key}): ${(err as Error).message}`);
    }
  }
}
