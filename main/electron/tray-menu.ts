// The tray menu as plain data (tested in Node); main.ts turns it into an Electron Menu and wires the ids.
import type { ProviderStatus } from '../../shared/admin.ts';
import type { UsageTotals } from '../../shared/usage.ts';
import { todayLine } from '../../shared/usage-text.ts';
import type { UpdateState } from './updates.ts';

export type TrayAction =
  'open' | 'toggle-pause' | 'toggle-login' | 'open-config-folder' | 'check-updates' | 'install-update' | 'quit';
export type TrayItem =
  | { kind: 'status'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; id: TrayAction; label: string; enabled?: boolean }
  | { kind: 'checkbox'; id: TrayAction; label: string; checked: boolean };

export type TrayState = {
  /** null while the server is not running (port conflict, invalid config). */
  port: number | null;
  providers: Pick<ProviderStatus, 'state' | 'enabled'>[];
  paused: boolean;
  startOnLogin: boolean;
  problem: string | null;
  /** Today's totals from the usage summary; null until read (or when the usage store is off or unreachable). */
  today: Pick<UsageTotals, 'requests' | 'cost_usd' | 'unpriced'> | null;
  /** A hand edit left config.json invalid while running: the last good config stays in force. */
  configInvalid?: boolean;
  /** Auto-update's state; absent or null where updates are off (development, `app.isPackaged` false). */
  update?: UpdateState | null;
};

/** "3 providers ok, 1 failed · port 11434" (disabled providers are not counted). */
export function trayStatusLine(s: TrayState): string {
  if (s.port === null) return s.problem ? `Not running: ${s.problem}` : 'Not running';
  const enabled = s.providers.filter((p) => p.enabled && p.state !== 'disabled');
  const ok = enabled.filter((p) => p.state === 'ok').length;
  const failed = enabled.filter((p) => p.state === 'failed').length;
  const parts = [`${ok} provider${ok === 1 ? '' : 's'} ok`, `${failed} failed`];
  const unknown = enabled.length - ok - failed;
  if (unknown > 0) parts.push(`${unknown} unchecked`);
  return `${parts.join(', ')} · port ${s.port}${s.paused ? ' · paused' : ''}`;
}

/** Today's usage line ("142 requests · $0.37 today"), or null when it is not known or the server is not running. */
export function trayUsageLine(s: TrayState): string | null {
  return s.port === null || s.today === null ? null : todayLine(s.today);
}

/** The tray icon's tooltip: the status line, then today's usage on a line of its own. */
export function trayTooltip(s: TrayState): string {
  const usage = trayUsageLine(s);
  return `Switchboard: ${trayStatusLine(s)}${usage ? `\n${usage}` : ''}`;
}

/** The update part of the menu: what the last check found, then the action it allows. */
export function trayUpdateItems(u: UpdateState): TrayItem[] {
  const check = (enabled: boolean): TrayItem => ({
    kind: 'action',
    id: 'check-updates',
    label: 'Check for updates',
    enabled,
  });
  switch (u.kind) {
    case 'idle':
      return [check(true)];
    case 'checking':
      return [{ kind: 'status', label: 'Checking for updates…' }, check(false)];
    case 'none':
      return [{ kind: 'status', label: 'Switchboard is up to date' }, check(true)];
    case 'downloading':
      return [{ kind: 'status', label: `Downloading update ${u.version}…` }, check(false)];
    case 'error':
      return [{ kind: 'status', label: `Update check failed: ${u.message}` }, check(true)];
    case 'ready':
      return [{ kind: 'action', id: 'install-update', label: `Restart to update to ${u.version}` }];
  }
}

export function trayMenuModel(s: TrayState): TrayItem[] {
  const usage = trayUsageLine(s);
  return [
    { kind: 'status', label: trayStatusLine(s) },
    ...(usage ? [{ kind: 'status' as const, label: usage }] : []),
    ...(s.configInvalid && s.port !== null
      ? [{ kind: 'status' as const, label: 'config.json has problems: the last good config stays in force' }]
      : []),
    { kind: 'separator' },
    { kind: 'action', id: 'open', label: 'Open Switchboard' },
    { kind: 'action', id: 'toggle-pause', label: s.paused ? 'Resume routing' : 'Pause routing' },
    { kind: 'checkbox', id: 'toggle-login', label: 'Start on login', checked: s.startOnLogin },
    { kind: 'action', id: 'open-config-folder', label: 'Open config folder' },
    ...(s.update ? [{ kind: 'separator' as const }, ...trayUpdateItems(s.update)] : []),
    { kind: 'separator' },
    { kind: 'action', id: 'quit', label: 'Quit Switchboard' },
  ];
}

/**
 * The tray icon: on macOS the template image (the system tints it for light and dark menu bars); on Windows the app's
 * .ico (16, 20, 24, 32 px for 100-200 % scaling: Windows picks the size); elsewhere a dark glyph on light trays and
 * a light glyph on dark ones.
 */
export function trayIconName(platform: NodeJS.Platform, darkTray: boolean): string {
  if (platform === 'darwin') return 'trayTemplate.png';
  if (platform === 'win32') return 'icon.ico';
  return darkTray ? 'tray-light.png' : 'tray-dark.png';
}
