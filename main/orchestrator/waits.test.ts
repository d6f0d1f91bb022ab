// The wait registry behind ?wait=true and the wait endpoints: a wait ends on its check, its timeout, its caller's
// signal or the service closing, and leaves nothing behind (entry, timer, abort listener) however it ends.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Waits } from './waits.ts';

describe('Waits', () => {
  it('ends when the check passes after a change, not on changes that do not make it pass', async () => {
    const waits = new Waits();
    let status = 'running';
    const p = waits.wait('tsk_1', () => status !== 'running', 5_000);
    expect(waits.count).toBe(1);
    waits.changed('tsk_1'); // a progress record: still running
    waits.changed('tsk_other');
    expect(waits.count).toBe(1);
    status = 'completed';
    waits.changed('tsk_1');
    await expect(p).resolves.toBe(true);
    expect(waits.count).toBe(0);
    await expect(waits.wait('tsk_1', () => true, 5_000)).resolves.toBe(true); // over already: no entry at all
    expect(waits.count).toBe(0);
  });

  it('50 waits that time out or whose caller goes away leave no entry and no abort listener', async () => {
    const waits = new Waits();
    const caller = new AbortController();
    const timedOut = await Promise.all(
      Array.from({ length: 25 }, () => waits.wait('x', () => false, 5, caller.signal)),
    );
    expect(timedOut.every((r) => r === false)).toBe(true);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    const gone = Array.from({ length: 25 }, () => waits.wait('x', () => false, 60_000, caller.signal));
    expect(waits.count).toBe(25);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(25);
    caller.abort();
    expect(await Promise.all(gone)).toEqual(Array(25).fill(false));
    expect(waits.count).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('close ends every wait and refuses new ones', async () => {
    const waits = new Waits();
    const p = waits.wait('x', () => false, 60_000);
    waits.close();
    await expect(p).resolves.toBe(false);
    await expect(waits.wait('y', () => false, 60_000)).resolves.toBe(false);
    expect(waits.count).toBe(0);
  });
});
