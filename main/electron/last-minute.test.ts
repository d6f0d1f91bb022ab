// The tooltip's last minute (last-minute.ts): requests and errors of the last 60 seconds, older seconds forgotten.
import { describe, expect, it } from 'vitest';
import { LastMinute } from './last-minute.ts';

describe('LastMinute', () => {
  it('counts the last 60 seconds: errors are 4xx, 5xx, no answer, or an error code', () => {
    let now = 1_700_000_000_000;
    const m = new LastMinute(() => now);
    const ok = { status: 200, error_code: null };
    m.add(ok);
    m.add({ status: 503, error_code: 'routing_paused' });
    now += 30_000;
    m.add(ok);
    m.add({ status: 429, error_code: 'rate_limited' });
    m.add({ status: 0, error_code: null });
    expect(m.counts()).toEqual({ requests: 5, errors: 3 });
    now += 30_500; // the first second is now more than a minute ago
    expect(m.counts()).toEqual({ requests: 3, errors: 2 });
    now += 60_000;
    expect(m.counts()).toEqual({ requests: 0, errors: 0 });
    m.add(ok); // a slot used a minute ago starts again from zero
    expect(m.counts()).toEqual({ requests: 1, errors: 0 });
  });
});
