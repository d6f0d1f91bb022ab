// Desktop notifications: each notice of the usage engine (provider down/up, failover, budgets) becomes a system
// notification, when config.json's `notifications` wants that kind. Electron-free (tested in Node with a stand-in for
// Electron's Notification); main.ts hands it Electron's class and the notices from GET /admin/v1/events.
import type { Notification } from '../../shared/usage.ts';
import { NOTIFICATION_DEFAULTS } from '../../shared/usage.ts';

/** The part of Electron's `Notification` class the shell uses. */
export type NotificationClass = {
  isSupported(): boolean;
  new (options: { title: string; body: string; silent?: boolean }): {
    show(): void;
    on(event: 'click', listener: () => void): unknown;
  };
};

/** config.json's `notifications` as stored (fields may be missing: the defaults apply). */
export type NotificationSwitches = Partial<typeof NOTIFICATION_DEFAULTS>;

/** Whether a notice of this kind is wanted: `enabled`, then the switch of its kind (`provider_health`, `failover`, `budgets`). */
export function notificationWanted(n: Pick<Notification, 'kind'>, cfg: NotificationSwitches | undefined): boolean {
  const on = { ...NOTIFICATION_DEFAULTS, ...cfg };
  if (!on.enabled) return false;
  if (n.kind === 'provider_down' || n.kind === 'provider_up') return on.provider_health;
  if (n.kind === 'failover') return on.failover;
  if (n.kind === 'approval_required') return on.approvals;
  return on.budgets;
}

export type DesktopNotifierDeps = {
  Notification: NotificationClass;
  /** config.json's `notifications`, read at each notice (a change in Settings applies to the next one). */
  switches: () => NotificationSwitches | undefined;
  /** A click on a notification (the shell opens its window). */
  onClick?: () => void;
};

/**
 * A listener for notices: shows each wanted one as a desktop notification (title, body) and answers whether it did.
 * Nothing is shown where the system has no notifications (`isSupported()` false).
 */
export function desktopNotifier(deps: DesktopNotifierDeps): (n: Notification) => boolean {
  return (n) => {
    if (!notificationWanted(n, deps.switches()) || !deps.Notification.isSupported()) return false;
    const shown = new deps.Notification({ title: n.title, body: n.message });
    if (deps.onClick) shown.on('click', deps.onClick);
    shown.show();
    return true;
  };
}
