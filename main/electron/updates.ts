// Auto-update through electron-updater (GitHub releases, electron-builder.yml's `publish`), as Settings' switch says
// (kept in the desktop state, desktop-state.ts):
// - `download` (the default): a check at start and every 12 hours, the download in the background, then "Restart to
//   update" in the tray and a notification;
// - `check`: the same checks, but an update found is only said (tray and notification): "Download update" fetches it;
// - `off`: no check of its own; "Check for updates" in the tray still checks when asked, and offers the download.
// Only in a packaged app (`app.isPackaged`); in development the shell makes none of this.
import type { AutoUpdateMode } from '../../shared/desktop.ts';
import type { Updater } from './electron-api.ts';

export type UpdateState =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'none' }
  | { kind: 'available'; version: string }
  | { kind: 'downloading'; version: string }
  | { kind: 'ready'; version: string }
  | { kind: 'error'; message: string };

export const UPDATE_CHECK_EVERY_MS = 12 * 60 * 60 * 1000;

/** The version an electron-updater event carries (its UpdateInfo), or "a new version". */
const versionOf = (info: unknown): string =>
  typeof (info as { version?: unknown } | null)?.version === 'string'
    ? (info as { version: string }).version
    : 'a new version';

export class Updates {
  state: UpdateState = { kind: 'idle' };
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly updater: Updater,
    private modeNow: AutoUpdateMode,
    /** Called on each change of state (the tray is rebuilt; `available` and `ready` are notified). */
    private readonly onChange: (state: UpdateState) => void,
    private readonly everyMs = UPDATE_CHECK_EVERY_MS,
  ) {
    updater.autoDownload = modeNow === 'download';
    updater.on('checking-for-update', () => this.set({ kind: 'checking' }));
    updater.on('update-not-available', () => this.set({ kind: 'none' }));
    updater.on('update-available', (info: unknown) =>
      this.set({ kind: updater.autoDownload ? 'downloading' : 'available', version: versionOf(info) }),
    );
    updater.on('update-downloaded', (info: unknown) => this.set({ kind: 'ready', version: versionOf(info) }));
    updater.on('error', (err: unknown) => this.fail(err));
  }

  get mode(): AutoUpdateMode {
    return this.modeNow;
  }

  /** Starts the checks of its own (none when off): one now, then every 12 hours. */
  start(): void {
    this.stop();
    if (this.modeNow === 'off') return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.everyMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Settings' switch, applied at once: off stops the checks; turned on, it checks now; switched to download while an
   * update waits to be fetched, it fetches it.
   */
  setMode(mode: AutoUpdateMode): void {
    if (mode === this.modeNow) return;
    const wasOff = this.modeNow === 'off';
    this.modeNow = mode;
    this.updater.autoDownload = mode === 'download';
    if (mode === 'off') this.stop();
    else if (wasOff) this.start();
    if (mode === 'download' && this.state.kind === 'available') void this.download();
  }

  private set(state: UpdateState): void {
    if (this.state.kind === 'ready' && state.kind !== 'ready') return; // a downloaded update stays offered
    if (JSON.stringify(state) === JSON.stringify(this.state)) return; // said once (our check, then its event)
    this.state = state;
    this.onChange(state);
  }

  private fail(err: unknown): void {
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unknown error';
    this.set({ kind: 'error', message: message.length > 120 ? `${message.slice(0, 117)}…` : message });
  }

  /** Checks now (the tray's "Check for updates", the start, every 12 h); a failure becomes the state, never a throw. */
  async check(): Promise<void> {
    const busy = ['checking', 'downloading', 'ready'] as const;
    if ((busy as readonly string[]).includes(this.state.kind)) return;
    this.set({ kind: 'checking' });
    try {
      await this.updater.checkForUpdates();
      // Answered without an event (nothing to do): say so.
      if ((this.state as UpdateState).kind === 'checking') this.set({ kind: 'none' });
    } catch (err) {
      this.fail(err);
    }
  }

  /** "Download update": fetches the update a check found (check-only or off). */
  async download(): Promise<void> {
    if (this.state.kind !== 'available') return;
    this.set({ kind: 'downloading', version: this.state.version });
    try {
      await this.updater.downloadUpdate();
    } catch (err) {
      this.fail(err);
    }
  }

  /** "Restart to update": quits (the shell stops the server first) and installs. */
  install(): void {
    if (this.state.kind === 'ready') this.updater.quitAndInstall(false, true);
  }
}
