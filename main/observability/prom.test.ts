// The deep imports of prom-client's Registry, Counter and Gauge are the very classes the package's index exports, and
// a counter and a gauge registered on a registry are scraped in the text format.
import * as PromClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Registry } from './prom.ts';

describe('prom-client from its own modules', () => {
  it('are the classes the index exports, and scrape', async () => {
    expect(Registry).toBe(PromClient.Registry);
    expect(Counter).toBe(PromClient.Counter);
    expect(Gauge).toBe(PromClient.Gauge);
    const registry = new Registry();
    const c = new Counter({ name: 'x_total', help: 'x', labelNames: ['a'], registers: [registry] });
    const g = new Gauge({ name: 'y', help: 'y', registers: [registry] });
    c.inc({ a: 'b' }, 2);
    g.set(3);
    const text = await registry.metrics();
    expect(text).toContain('x_total{a="b"} 2');
    expect(text).toContain('\ny 3');
  });
});
