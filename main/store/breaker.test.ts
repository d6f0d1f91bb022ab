// The store's breaker: opens after `tripAfter` failed or late calls in a row (a call in time in between starts the
// count again), closes after `closeAfter` quick probes in a row, counts its trips and the seconds it was open.
import { describe, expect, it } from 'vitest';
import { StoreBreaker } from './breaker.ts';

const clock = () => {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

describe('store breaker', () => {
  it('opens after tripAfter failures in a row, once, and says why', () => {
    const c = clock();
    const changes: [boolean, string][] = [];
    const b = new StoreBreaker({ tripAfter: 3, closeAfter: 2 }, c.now, (open, why) => changes.push([open, why]));
    b.failure('late');
    b.failure('late');
    b.success(); // a call in time: the count starts again
    b.failure('late');
    b.failure('late');
    expect(b.closed).toBe(true);
    b.failure('no answer within 50 ms');
    expect(b.state).toBe('open');
    b.failure('late'); // already open: nothing more
    expect(changes).toEqual([[true, 'no answer within 50 ms']]);
    expect(b.trips).toBe(1);
  });

  it('closes after closeAfter quick probes in a row; a slow probe starts the count again', () => {
    const c = clock();
    const b = new StoreBreaker({ tripAfter: 1, closeAfter: 2 }, c.now);
    b.failure('x');
    c.advance(500);
    b.probed(true);
    b.probed(false);
    b.probed(true);
    expect(b.state).toBe('open');
    c.advance(500);
    b.probed(true);
    expect(b.state).toBe('closed');
    expect(b.openSeconds()).toBeCloseTo(1, 5);
    // Counting afresh after it closed: one failure (tripAfter 1) opens it again.
    b.failure('y');
    c.advance(250);
    expect(b.trips).toBe(2);
    expect(b.openSeconds()).toBeCloseTo(1.25, 5);
  });

  it('reset() (a fresh connection) closes it and keeps the time it was open', () => {
    const c = clock();
    const b = new StoreBreaker({ tripAfter: 1, closeAfter: 5 }, c.now);
    b.failure('x');
    c.advance(300);
    b.reset();
    expect(b.closed).toBe(true);
    c.advance(1_000);
    expect(b.openSeconds()).toBeCloseTo(0.3, 5);
  });
});
