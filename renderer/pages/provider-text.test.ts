// A provider's circuit breaker and its cool-down in words, and a connection test's outcome (issue 15).
import { describe, expect, it } from 'vitest';
import { circuitText, disabledFix, testText } from './provider-text.ts';

describe('provider text', () => {
  const now = Date.parse('2025-01-02T03:04:05Z');
  it('says the breaker state and the cool-down left', () => {
    expect(circuitText({ circuit: 'closed', circuit_opens_until: null }, now)).toBe('closed');
    expect(circuitText({ circuit: 'open', circuit_opens_until: '2025-01-02T03:04:28.200Z' }, now)).toBe(
      'open: skipped for 24 s more (cool-down)',
    );
    expect(circuitText({ circuit: 'open', circuit_opens_until: '2025-01-02T03:09:05Z' }, now)).toBe(
      'open: skipped for 5 min more (cool-down)',
    );
    expect(circuitText({ circuit: 'open', circuit_opens_until: '2025-01-02T03:04:00Z' }, now)).toBe(
      'open: the next request tries it again',
    );
    expect(circuitText({ circuit: 'half_open', circuit_opens_until: null }, now)).toContain('half-open');
  });

  it('says a test outcome in one line', () => {
    const data = { provider: 'a', ok: true, latency_ms: 12, models: 1, error: null };
    expect(testText({ ok: true, data })).toBe('ok in 12 ms, 1 model');
    expect(testText({ ok: true, data: { ...data, models: 3 } })).toBe('ok in 12 ms, 3 models');
    expect(testText({ ok: true, data: { ...data, ok: false, error: 'test: ECONNREFUSED' } })).toBe(
      'failed: test: ECONNREFUSED',
    );
    expect(
      testText({ ok: false, failure: { status: 404, error: { code: 'not_found', message: 'No provider.' } } }),
    ).toBe('test failed: No provider.');
  });
});

describe('where to fix a rule naming a disabled provider', () => {
  it("a template with no key: its preset's form; one with a key: the Providers page", () => {
    const providers = [
      { name: 'anthropic', base_url: 'https://api.anthropic.com/v1', api_key: '' },
      { name: 'mine', base_url: 'https://api.openai.com/v1', api_key: 'sk-****abcd' },
    ];
    expect(disabledFix('anthropic', providers)).toEqual({
      href: '#/providers/add/anthropic',
      label: 'Set up Anthropic…',
    });
    expect(disabledFix('mine', providers)).toEqual({ href: '#/providers', label: 'Enable it on Providers' });
    expect(disabledFix('gone', providers)).toBeNull();
  });
});
