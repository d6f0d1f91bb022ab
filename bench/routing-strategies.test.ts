import { expect, it } from 'vitest';
import { main } from './routing-strategies.ts';

it('the routing strategies bench measures every strategy and prints the ratio to ordered', async () => {
  const r = await main({ decisions: 2000, rounds: 1 });
  expect(Object.keys(r.us).sort()).toEqual(['balanced', 'cheapest', 'fastest', 'none', 'ordered']);
  expect(r.table).toMatch(/\| cheapest \| [\d.]+ \| [\d.]+× \|/);
  expect(r.targets).toHaveLength(4);
});
