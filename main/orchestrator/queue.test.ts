import { describe, expect, it } from 'vitest';
import { DispatchQueue } from './queue.ts';

describe('DispatchQueue', () => {
  it('runs at most `workers` at once, saturates at 80 % of capacity and refuses when full', async () => {
    const release: (() => void)[] = [];
    const q = new DispatchQueue<number>(5, 1, () => new Promise<void>((r) => release.push(r)));
    expect(q.push(1)).toBe(true);
    expect(q.running).toBe(1);
    for (let i = 2; i <= 5; i++) q.push(i);
    expect(q.depth).toBe(4);
    expect(q.saturated).toBe(true);
    expect(q.push(6)).toBe(true);
    expect(q.push(7)).toBe(false);
    expect(q.remove((n) => n === 3)).toBe(true);
    release.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(q.running).toBe(1);
    expect(q.depth).toBe(3);
  });
});
