// The tray menu as plain data (tested in Node); main.ts turns it into an Electron Menu and wires the ids.
import type { ProviderStatus } from '../../shared/admin.ts';

export type TrayAction = 'open' | 'toggle-pause' | 'toggle-login' | 'open-config-folder' | 'quit';
export type TrayItem =
  | { kind: 'status'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; id: TrayAction; label: string }
  | { kind: 'checkbox'; id: TrayAction; label: string; checked: boolean };

export type TrayState = {
  /** null while the server is not running (port conflict, invalid config). */
  port: number | null;
  providers: Pick<ProviderStatus, 'state' | 'enabled'>[];
  paused: boolean;
  startOnLogin: boolean;
  problem: string | null;
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

export function trayMenuModel(s: TrayState): TrayItem[] {
  return [
    { kind: 'status', label: trayStatusLine(s) },
    { kind: 'separator' },
    { kind: 'action', id: 'open', label: 'Open Switchboard' },
    { kind: 'action', id: 'toggle-pause', label: s.paused ? 'Resume routing' : 'Pause routing' },
    { kind: 'checkbox', id: 'toggle-login', label: 'Start on login', checked: s.startOnLogin },
    { kind: 'action', id: 'open-config-folder', label: 'Open config folder' },
    { kind: 'separator' },
    { kind: 'action', id: 'quit', label: 'Quit Switchboard' },
  ];
}

/** The tray icon for the system theme: a dark glyph on light trays, a light glyph on dark ones. */
export function trayIconName(platform: NodeJS.Platform, darkTray: boolean): string {
  if (platform === 'darwin') return 'trayTemplate.png'; // macOS tints template images itself
  return darkTray ? 'tray-light.png' : 'tray-dark.png';
}
