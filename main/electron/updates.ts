// Auto-update through electron-updater (GitHub releases, electron-builder.yml's `publish`): a check at start and every
// 12 hours, "Check for updates" in the tray, the download in the background, then "Restart to update" in the tray
// and a notification. Only in a packaged app (`app.isPackaged`); in development the shell makes none of this.
import type { Updater } from './electron-api.ts';

export type UpdateState =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'none' }
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

  constructor(
    private readonly updater: Updater,
    /** Called on each change of state (the tray is rebuilt); `ready` once with the version downloaded. */
    private readonly onChange: (state: UpdateState) => void,
  ) {
    updater.autoDownload = true;
    updater.on('checking-for-update', () => this.set({ kind: 'checking' }));
    updater.on('update-not-available', () => this.set({ kind: 'none' }));
    updater.on('update-available', (info: unknown) => this.set({ kind: 'downloading', version: versionOf(info) }));
    updater.on('update-downloaded', (info: unknown) => this.set({ kind: 'ready', version: versionOf(info) }));
    updater.on('error', (err: unknown) => this.fail(err));
  }

  private set(state: UpdateState): void {
    if (this.state.kind === 'ready' && state.kind !== 'ready') return; // a downloaded update stays offered
    this.state = state;
    this.onChange(state);
  }

  private fail(err: unknown): void {
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unknown error';
    this.set({ kind: 'error', message: message.length > 120 ? `${message.slice(0, 117)}…` : message });
  }

  /** Checks now (the tray's "Check for updates", the start, every 12 h); a failure becomes the state, never a throw. */
  async check(): Promise<void> {
    if (this.state.kind === 'checking' || this.state.kind === 'downloading' || this.state.kind === 'ready') return;
    this.set({ kind: 'checking' });
    try {
      await this.updater.checkForUpdates();
      // Answered without an event (nothing to do): say so.
      if ((this.state as UpdateState).kind === 'checking') this.set({ kind: 'none' });
    } catch (err) {
      this.fail(err);
    }
  }

  /** "Restart to update": quits (the shell stops the server first) and installs. */
  install(): void {
    if (this.state.kind === 'ready') this.updater.quitAndInstall(false, true);
  }
}
