// The Overview's health line: paused, nothing enabled, healthy (ok and unchecked told apart), some or all failing (a
// provider whose circuit is open counts as failing); disabled providers are left out.
import { describe, expect, it } from 'vitest';
import type { ProviderStatus } from '../../shared/admin.ts';
import { budgetResetsAt, healthLine, resetText } from './overview-text.ts';

const p = (name: string, state: ProviderStatus['state'], over: Partial<ProviderStatus> = {}): ProviderStatus => ({
  name,
  type: 'openai',
  base_url: 'http://127.0.0.1:1/v1',
  enabled: state !== 'disabled',
  state,
  circuit: 'closed',
  consecutive_failures: 0,
  last_error: null,
  last_latency_ms: null,
  last_checked_at: null,
  last_ok_at: null,
  circuit_opens_until: null,
  ...over,
});

describe('the Overview health line', () => {
  it('says healthy, telling ok from not checked yet, and leaves disabled providers out', () => {
    expect(healthLine([p('a', 'ok'), p('b', 'ok'), p('c', 'disabled')], false)).toEqual({
      ok: true,
      text: 'Routing is healthy: 2 ok.',
    });
    expect(healthLine([p('a', 'ok'), p('b', 'unknown')], false)).toEqual({
      ok: true,
      text: 'Routing is healthy: 1 ok, 1 not checked yet.',
    });
  });

  it('names the failing providers, an open circuit included', () => {
    expect(healthLine([p('a', 'ok'), p('b', 'failed'), p('c', 'ok', { circuit: 'open' })], false)).toEqual({
      ok: false,
      text: '2 of 3 providers failing (b, c); the others serve.',
    });
    expect(healthLine([p('a', 'failed')], false)).toEqual({ ok: false, text: 'Every provider is failing (a).' });
  });

  it('says paused first, and when no provider is enabled', () => {
    expect(healthLine([p('a', 'ok')], true).text).toBe(
      'Routing is paused: requests get 503 routing_paused until it is resumed.',
    );
    expect(healthLine([p('a', 'disabled')], false)).toEqual({
      ok: false,
      text: 'No provider is enabled: requests have nowhere to go.',
    });
  });
});

describe('when a budget starts again', () => {
  it('a day budget at the next local midnight, a month budget on the 1st of next month', () => {
    const now = new Date(2025, 0, 31, 15, 30); // local time
    expect(budgetResetsAt('day', now)).toEqual(new Date(2025, 1, 1, 0, 0));
    expect(budgetResetsAt('month', now)).toEqual(new Date(2025, 1, 1, 0, 0));
    expect(budgetResetsAt('month', new Date(2025, 11, 5))).toEqual(new Date(2026, 0, 1));
    expect(resetText('day', now)).toBe('at midnight (in 8 h 30 min)');
    expect(resetText('day', new Date(2025, 0, 31, 23, 50))).toBe('at midnight (in 10 min)');
    expect(resetText('month', now)).toMatch(/ at midnight$/);
  });
});
