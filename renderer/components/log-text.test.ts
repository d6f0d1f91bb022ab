// Request log entries in words (issue 15): times to the millisecond, and what became of a request no provider saw
// (a 429 of Switchboard's own rate limit is not "no route").
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { attemptsText, formatTime, outcomeText, providerCell, tokensText } from './log-text.ts';

const entry = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  id: 'r1',
  time: '2025-01-02T03:04:05.067Z',
  method: 'POST',
  path: '/v1/chat/completions',
  app: 'cursor',
  app_source: 'header',
  requested_model: 'gpt-4o',
  routed_model: 'gpt-4o',
  provider: 'alpha',
  route: 'rule:gpt-*',
  attempts: [{ provider: 'alpha', status: 200, error: null, latency_ms: 12 }],
  status: 200,
  error_code: null,
  stream: false,
  latency_ms: 12.4,
  ttfb_ms: 5,
  prompt_tokens: 1200,
  completion_tokens: 34,
  ...over,
});

describe('log text', () => {
  it('shows times to the millisecond, in local time', () => {
    const d = new Date('2025-01-02T03:04:05.067Z');
    const hh = String(d.getHours()).padStart(2, '0');
    const mm = String(d.getMinutes()).padStart(2, '0');
    expect(formatTime(d.toISOString())).toBe(`${hh}:${mm}:05.067`);
    expect(formatTime('2025-01-02T03:04:05.000Z')).toMatch(/:05\.000$/);
  });

  it("says a 429 of Switchboard's rate limit was refused before routing, never 'no route'", () => {
    const limited = entry({
      provider: null,
      route: null,
      attempts: [],
      status: 429,
      error_code: 'rate_limit_exceeded',
      prompt_tokens: null,
      completion_tokens: null,
    });
    expect(outcomeText(limited)).toBe("refused by Switchboard's rate limit before routing");
    expect(providerCell(limited)).toBe('(rate limit)');
  });

  it('says what happened for each kind of request no provider saw', () => {
    const none = (error_code: string, status: number) =>
      outcomeText(entry({ provider: null, route: null, attempts: [], status, error_code }));
    expect(none('routing_paused', 503)).toBe('refused before routing: routing is paused');
    expect(none('no_route', 404)).toBe('not routed: no enabled provider serves this model');
    expect(none('budget_exceeded', 402)).toContain('budget');
    expect(none('no_healthy_provider', 503)).toContain('circuit breaker is open');
    expect(none('some_new_code', 400)).toBe('not sent to a provider (some_new_code)');
    expect(outcomeText(entry({ provider: null, route: null, attempts: [], status: 200 }))).toContain(
      'answered by Switchboard itself',
    );
  });

  it('says the provider and route of a routed request, tokens, and failover', () => {
    expect(outcomeText(entry())).toBe('via alpha (rule:gpt-*)');
    expect(tokensText(entry())).toBe('1,200 in / 34 out');
    expect(tokensText(entry({ prompt_tokens: null, completion_tokens: null }))).toBe('—');
    expect(attemptsText(entry())).toBe('1');
    const failover = entry({
      attempts: [
        { provider: 'alpha', status: 503, error: null, latency_ms: 3 },
        { provider: 'beta', status: 200, error: null, latency_ms: 9 },
      ],
    });
    expect(attemptsText(failover)).toBe('2 (failover)');
  });
});
