// Notifications: a provider went down or came back, failover started serving a route, a budget crossed its warning or
// its limit. Each kind is switchable (config.json `notifications`), and the same kind about the same subject is said
// at most once per `notifications.min_interval_ms`. Subscribers: the admin event stream (GET /admin/v1/events) and
// the desktop shell (a desktop notification); every notice is also logged.
import type { Config } from '../../shared/config.ts';
import type { Notification, NOTIFICATION_KINDS } from '../../shared/usage.ts';
import { logger } from '../observability/logger.ts';

export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
type NotificationsConfig = Config['notifications'];

/** The switch of config.json `notifications` that turns each kind on or off. */
const SWITCH: Record<NotificationKind, 'provider_health' | 'failover' | 'budgets' | 'approvals' | 'secret_guard'> = {
  provider_down: 'provider_health',
  provider_up: 'provider_health',
  failover: 'failover',
  budget_warning: 'budgets',
  budget_exceeded: 'budgets',
  approval_required: 'approvals',
  secret_found: 'secret_guard',
};

/** A notice to give: its kind, what it is about (the rate limit's key with the kind), and its words. */
export type NoticeInput = {
  kind: NotificationKind;
  subject: string;
  title: string;
  message: string;
  provider?: string | null;
  app?: string | null;
};

const RECENT_KEPT = 100;
/** Bound on the remembered subjects (an app-scoped subject per app); the oldest go first. */
const SUBJECTS_KEPT = 10_000;

export class Notifier {
  private readonly subscribers = new Set<(n: Notification) => void>();
  private readonly last = new Map<string, number>();
  private readonly ring: Notification[] = [];

  constructor(
    private readonly config: () => NotificationsConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Calls fn with every notice given from now on; answers the unsubscribe function. */
  subscribe(fn: (n: Notification) => void): () => void {
    this.subscribers.add(fn);
    return () => void this.subscribers.delete(fn);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** The last notices given (at most 100), oldest first. */
  recent(): Notification[] {
    return [...this.ring];
  }

  /** Gives a notice unless its kind is switched off or the same was said within min_interval_ms; answers it or null. */
  notify(n: NoticeInput): Notification | null {
    const c = this.config();
    if (!c.enabled || !c[SWITCH[n.kind]]) return null;
    const key = `${n.kind}\u0000${n.subject}`;
    const t = this.now();
    const prev = this.last.get(key);
    if (prev !== undefined && t - prev < c.min_interval_ms) return null;
    this.last.delete(key);
    this.last.set(key, t);
    if (this.last.size > SUBJECTS_KEPT) this.last.delete(this.last.keys().next().value!);
    const note: Notification = {
      kind: n.kind,
      time: new Date(t).toISOString(),
      title: n.title,
      message: n.message,
      provider: n.provider ?? null,
      app: n.app ?? null,
    };
    this.ring.push(note);
    if (this.ring.length > RECENT_KEPT) this.ring.shift();
    logger.info(`notification (${note.kind}): ${note.title}. ${note.message}`);
    for (const fn of this.subscribers) {
      try {
        fn(note);
      } catch (err) {
        logger.warn({ err }, 'a notification subscriber failed');
      }
    }
    return note;
  }
}
