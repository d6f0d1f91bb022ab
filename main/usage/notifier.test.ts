// Notifications: each kind switchable, the same kind about the same subject at most once per min_interval_ms.
import { describe, expect, it } from 'vitest';
import { NOTIFICATION_DEFAULTS, type Notification } from '../../shared/usage.ts';
import { Notifier } from './notifier.ts';

function setup(config: Partial<typeof NOTIFICATION_DEFAULTS> = {}) {
  let now = Date.parse('2025-01-15T12:00:00Z');
  const cfg = { ...NOTIFICATION_DEFAULTS, min_interval_ms: 60_000, ...config };
  const n = new Notifier(
    () => cfg,
    () => now,
  );
  const got: Notification[] = [];
  n.subscribe((x) => got.push(x));
  return { n, got, cfg, advance: (ms: number) => (now += ms) };
}

const down = (subject = 'openai') => ({
  kind: 'provider_down' as const,
  subject,
  title: `Provider "${subject}" is down`,
  message: 'connect ECONNREFUSED',
  provider: subject,
});

describe('Notifier', () => {
  it('delivers a notice to every subscriber, with its time and the provider or app it is about', () => {
    const { n, got } = setup();
    const other: Notification[] = [];
    const off = n.subscribe((x) => other.push(x));
    n.notify(down());
    expect(got).toEqual([
      {
        kind: 'provider_down',
        time: '2025-01-15T12:00:00.000Z',
        title: 'Provider "openai" is down',
        message: 'connect ECONNREFUSED',
        provider: 'openai',
        app: null,
      },
    ]);
    expect(other).toEqual(got);
    off();
    n.notify(down('claude'));
    expect(other).toHaveLength(1);
    expect(n.recent()).toHaveLength(2);
  });

  it('says the same kind about the same subject at most once per min_interval_ms; other subjects and kinds apart', () => {
    const { n, got, advance } = setup();
    expect(n.notify(down())).not.toBeNull();
    advance(59_999);
    expect(n.notify(down())).toBeNull();
    expect(n.notify(down('claude'))).not.toBeNull();
    expect(n.notify({ ...down(), kind: 'provider_up', title: 'back' })).not.toBeNull();
    advance(1);
    expect(n.notify(down())).not.toBeNull();
    expect(got.map((x) => `${x.kind} ${x.provider}`)).toEqual([
      'provider_down openai',
      'provider_down claude',
      'provider_up openai',
      'provider_down openai',
    ]);
  });

  it('each kind is switchable, and enabled: false says nothing', () => {
    const { n, got, cfg } = setup({ provider_health: false });
    n.notify(down());
    n.notify({ kind: 'failover', subject: 'gpt-4o', title: 't', message: 'm' });
    n.notify({ kind: 'budget_warning', subject: 'b', title: 't', message: 'm', app: 'cursor' });
    expect(got.map((x) => x.kind)).toEqual(['failover', 'budget_warning']);
    cfg.enabled = false;
    n.notify({ kind: 'budget_exceeded', subject: 'b', title: 't', message: 'm' });
    expect(got).toHaveLength(2);
  });

  it('a subscriber that throws does not stop the others', () => {
    const { n, got } = setup();
    n.subscribe(() => {
      throw new Error('boom');
    });
    const after: Notification[] = [];
    n.subscribe((x) => after.push(x));
    n.notify(down());
    expect(got).toHaveLength(1);
    expect(after).toHaveLength(1);
  });
});
