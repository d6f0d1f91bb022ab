import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './breaker.ts';

describe('CircuitBreaker', () => {
  it('opens after the threshold, lets one probe through after the cool-down, closes on success', () => {
    let now = 0;
    const b = new CircuitBreaker({ failure_threshold: 3, cooldown_ms: 1000 }, () => now);
    b.failure();
    b.failure();
    expect(b.allow()).toBe(true);
    b.failure();
    expect(b.state).toBe('open');
    expect(b.allow()).toBe(false);
    now = 1000;
    expect(b.allow()).toBe(true);
    expect(b.state).toBe('half_open');
    expect(b.allow()).toBe(false);
    b.success();
    expect(b.state).toBe('closed');
    expect(b.allow()).toBe(true);
  });

  it('re-opens when the half-open probe fails', () => {
    let now = 0;
    const b = new CircuitBreaker({ failure_threshold: 1, cooldown_ms: 100 }, () => now);
    b.failure();
    now = 100;
    expect(b.allow()).toBe(true);
    b.failure();
    expect(b.state).toBe('open');
    expect(b.allow()).toBe(false);
    now = 200;
    expect(b.peek()).toBe(true);
  });

  it('with a link (shared state): tells it when it opens and closes, and takes the probe only once granted', () => {
    let now = 0;
    const told: string[] = [];
    const b = new CircuitBreaker({ failure_threshold: 1, cooldown_ms: 100 }, () => now);
    b.link = { opened: (until) => told.push(`opened ${until}`), closed: () => told.push('closed') };
    b.success(); // closed already: nothing to tell
    b.failure();
    expect(told).toEqual(['opened 100']);
    now = 150;
    expect(b.peek()).toBe(false);
    expect(b.allow()).toBe(false); // another instance may hold the probe
    b.grantProbe();
    expect(b.peek()).toBe(true);
    expect(b.allow()).toBe(true);
    expect(b.allow()).toBe(false);
    b.success();
    expect(told).toEqual(['opened 100', 'closed']);
  });

  it('follows the shared state: opened and closed by another instance', () => {
    let now = 0;
    const b = new CircuitBreaker({ failure_threshold: 5, cooldown_ms: 100 }, () => now);
    b.link = { opened: () => {}, closed: () => {} };
    b.openShared(500);
    expect(b.state).toBe('open');
    now = 600;
    expect(b.allow()).toBe(false); // not granted here
    b.closeShared();
    expect(b.state).toBe('closed');
    expect(b.allow()).toBe(true);
  });
});
