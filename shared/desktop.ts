// The desktop app's own state and settings (docs/desktop.md, "The desktop app and its UI"): what the shell keeps with
// electron-store (the window's place and size, the auto-update switch; config.json stays the engine's), the login
// item's state as the system reports it, and the two IPC calls Settings uses. The file on disk and every IPC request
// are external input: parsed here, field by field, so a bad field falls back to its default and never stops the app.
import { z } from 'zod';

/** Auto-update: download in the background and offer the restart (default), only check and say so, or never check. */
export const AUTO_UPDATE_MODES = ['download', 'check', 'off'] as const;
export const AutoUpdateModeSchema = z.enum(AUTO_UPDATE_MODES);
export type AutoUpdateMode = z.infer<typeof AutoUpdateModeSchema>;
export const AUTO_UPDATE_DEFAULT: AutoUpdateMode = 'download';

/** The smallest window a saved size may give (a smaller one is a damaged file, not a choice). */
export const WINDOW_MIN = { width: 400, height: 300 };

/**
 * The window as it was last left: its normal (not maximized) bounds in screen coordinates, and whether it was
 * maximized. x and y are absent before the first move (the window is then centred).
 */
export const WindowStateSchema = z.strictObject({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(WINDOW_MIN.width).max(100_000),
  height: z.number().int().min(WINDOW_MIN.height).max(100_000),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof WindowStateSchema>;

/** The electron-store file (`desktop-state.json` in the app's user-data folder). */
export type DesktopState = { window: WindowState | null; auto_update: AutoUpdateMode };

/** Reads the stored object field by field: a field that is missing or invalid takes its default. */
export function parseDesktopState(raw: unknown): DesktopState {
  const o = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const win = WindowStateSchema.safeParse(o.window);
  const mode = AutoUpdateModeSchema.safeParse(o.auto_update);
  return { window: win.success ? win.data : null, auto_update: mode.success ? mode.data : AUTO_UPDATE_DEFAULT };
}

/**
 * Start on login as the system sees it, beside what config.json asks for (`start_on_login`):
 * - `enabled`: the system will start Switchboard at login;
 * - `requires-approval`: macOS 13+ registered the login item, and the user must allow it in System Settings;
 * - `not-registered`: no login item (start on login off, or the registration did not take);
 * - `not-found`: macOS 13+ cannot find the registered item (the app moved or was replaced);
 * - `disabled`: registered, then turned off outside Switchboard (Windows' Startup apps, a desktop's Startup
 *   Applications on Linux);
 * - `unknown`: the system cannot say (an error reading it).
 */
export const LOGIN_ITEM_STATES = [
  'enabled',
  'requires-approval',
  'not-registered',
  'not-found',
  'disabled',
  'unknown',
] as const;
export const LoginItemStateSchema = z.strictObject({
  state: z.enum(LOGIN_ITEM_STATES),
  /** Whether config.json's start_on_login asks for it. */
  wanted: z.boolean(),
  /** In words, with where to fix it when it is not what start_on_login asks for. */
  message: z.string(),
  /** A system settings page that fixes it (macOS Login Items, Windows Startup apps); null where there is none. */
  settings_url: z.string().nullable(),
});
export type LoginItemState = z.infer<typeof LoginItemStateSchema>;

/** What Settings shows of the desktop app (IPC `getDesktopSettings`, `setAutoUpdate`). */
export type DesktopSettings = {
  auto_update: AutoUpdateMode;
  /** Whether updates run in this build: only an installed app updates (never development, `app.isPackaged`). */
  updates_supported: boolean;
  login_item: LoginItemState | null;
};

/** `setAutoUpdate`'s request, from the renderer. */
export const SetAutoUpdateRequestSchema = z.strictObject({ mode: AutoUpdateModeSchema });
export type SetAutoUpdateRequest = z.infer<typeof SetAutoUpdateRequestSchema>;
