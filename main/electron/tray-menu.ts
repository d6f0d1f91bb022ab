// The tray menu and tooltip as plain data (tested in Node); shell.ts turns it into an Electron Menu and wires the ids.
import type { ProviderStatus } from '../../shared/admin.ts';
import type { LoginItemState } from '../../shared/desktop.ts';
import type { UsageTotals } from '../../shared/usage.ts';
import { formatCount, todayLine } from '../../shared/usage-text.ts';
import type { TrayApp } from './app-provider.ts';
import { loginItemTrayLine } from './login-item.ts';
import type { UpdateState } from './updates.ts';

export type TrayActionId =
  | 'open'
  | 'toggle-pause'
  | 'toggle-login'
  | 'open-login-settings'
  | 'open-config-folder'
  | 'check-updates'
  | 'download-update'
  | 'install-update'
  | 'quit';
/** What a click does: a plain action, or setting which provider serves an app (null: the routing rules decide). */
export type TrayAction = TrayActionId | { id: 'set-app-provider'; app: string; provider: string | null };
export type TrayItem =
  | { kind: 'status'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; id: TrayActionId; label: string; enabled?: boolean }
  | { kind: 'checkbox'; id: TrayActionId; label: string; checked: boolean }
  | { kind: 'radio'; action: TrayAction; label: string; checked: boolean; enabled?: boolean }
  | { kind: 'submenu'; label: string; items: TrayItem[] };

/** An app the tray switches, with the providers it may pick. */
export type TrayAppChoice = TrayApp & { choices: { name: string; enabled: boolean }[] };

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
  /** The tools whose provider the tray switches (shown while running). */
  apps?: TrayAppChoice[];
  /** The last 60 seconds' requests and errors (the tooltip). */
  lastMinute?: { requests: number; errors: number } | null;
  /** The login item as the system reports it. */
  loginItem?: LoginItemState | null;
  /** Windows cuts a tooltip at 127 characters: the tooltip is made to fit there. */
  platform?: NodeJS.Platform;
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

/** "Last minute: 12 requests, 1 error" (null when not running or not counted). */
export function lastMinuteLine(s: TrayState): string | null {
  if (s.port === null || !s.lastMinute) return null;
  const { requests, errors } = s.lastMinute;
  const n = (k: number, one: string) => `${formatCount(k)} ${one}${k === 1 ? '' : 's'}`;
  return `Last minute: ${n(requests, 'request')}, ${n(errors, 'error')}`;
}

/** The most a Windows tooltip shows (NOTIFYICONDATA's szTip holds 128 characters with its terminator). */
export const WINDOWS_TOOLTIP_MAX = 127;

/**
 * The tray icon's tooltip: the status line, the last minute's requests and errors, then today's usage, each on a
 * line of its own. On Windows, where a tooltip is cut at 127 characters, today's line goes first, then the rest is cut.
 */
export function trayTooltip(s: TrayState): string {
  const lines = [`Switchboard: ${trayStatusLine(s)}`, lastMinuteLine(s), trayUsageLine(s)].filter(
    (l): l is string => l !== null,
  );
  let tip = lines.join('\n');
  if (s.platform !== 'win32') return tip;
  if (tip.length > WINDOWS_TOOLTIP_MAX) tip = lines.slice(0, 2).join('\n');
  return tip.length > WINDOWS_TOOLTIP_MAX ? `${tip.slice(0, WINDOWS_TOOLTIP_MAX - 1)}…` : tip;
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
    case 'available':
      return [{ kind: 'action', id: 'download-update', label: `Download update ${u.version}` }, check(true)];
    case 'downloading':
      return [{ kind: 'status', label: `Downloading update ${u.version}…` }, check(false)];
    case 'error':
      return [{ kind: 'status', label: `Update check failed: ${u.message}` }, check(true)];
    case 'ready':
      return [{ kind: 'action', id: 'install-update', label: `Restart to update to ${u.version}` }];
  }
}

/** What the tray says an app is served by: its provider, or the routing rules. */
export const RULES_DECIDE = 'Routing rules decide';

/**
 * One app's submenu, "Claude Code: alpha": the routing rules or one of the providers (radio items; a disabled current
 * provider is shown checked and greyed), then what the choice does.
 */
export function trayAppItem(a: TrayAppChoice): TrayItem {
  const pick = (provider: string | null) => ({ id: 'set-app-provider' as const, app: a.app, provider });
  return {
    kind: 'submenu',
    label: `${a.label}: ${a.provider ?? 'routing rules'}`,
    items: [
      { kind: 'radio', action: pick(null), label: RULES_DECIDE, checked: a.provider === null },
      ...a.choices.map((c): TrayItem => ({
        kind: 'radio',
        action: pick(c.name),
        label: c.enabled ? c.name : `${c.name} (disabled)`,
        checked: a.provider === c.name,
        ...(c.enabled ? {} : { enabled: false }),
      })),
      ...(a.choices.length === 0 ? [{ kind: 'status' as const, label: 'No provider is enabled' }] : []),
      { kind: 'separator' },
      { kind: 'status', label: `Serves ${a.label}'s models that no routing rule matches` },
    ],
  };
}

/** The login item's line and its settings page, when the system differs from start_on_login. */
function loginItemItems(s: TrayState): TrayItem[] {
  const line = s.loginItem ? loginItemTrayLine(s.loginItem) : null;
  if (!line) return [];
  return [
    { kind: 'status', label: line },
    ...(s.loginItem?.settings_url
      ? [{ kind: 'action' as const, id: 'open-login-settings' as const, label: 'Open login item settings…' }]
      : []),
  ];
}

export function trayMenuModel(s: TrayState): TrayItem[] {
  const usage = trayUsageLine(s);
  const apps = s.port !== null && s.apps && s.apps.length > 0 ? s.apps : [];
  return [
    { kind: 'status', label: trayStatusLine(s) },
    ...(usage ? [{ kind: 'status' as const, label: usage }] : []),
    ...(s.configInvalid && s.port !== null
      ? [{ kind: 'status' as const, label: 'config.json has problems: the last good config stays in force' }]
      : []),
    { kind: 'separator' },
    { kind: 'action', id: 'open', label: 'Open Switchboard' },
    { kind: 'action', id: 'toggle-pause', label: s.paused ? 'Resume routing' : 'Pause routing' },
    ...(apps.length > 0
      ? [{ kind: 'separator' as const }, ...apps.map(trayAppItem), { kind: 'separator' as const }]
      : []),
    { kind: 'checkbox', id: 'toggle-login', label: 'Start on login', checked: s.startOnLogin },
    ...loginItemItems(s),
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
