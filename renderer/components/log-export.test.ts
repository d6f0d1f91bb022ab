// Export of the log rows shown (issue 15): JSON Lines round-trips each entry; CSV quotes what needs quoting and keeps
// a spreadsheet from running a cell as a formula.
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { CSV_COLUMNS, toCsv, toJsonl } from './log-export.ts';

const entry = (id: string, over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  id,
  time: '2025-01-02T03:04:05.067Z',
  method: 'POST',
  path: '/v1/chat/completions',
  app: 'cursor',
  app_source: 'header',
  requested_model: 'gpt-4o',
  routed_model: 'gpt-4o',
  provider: 'alpha',
  route: 'rule:gpt-*',
  attempts: [],
  status: 200,
  error_code: null,
  stream: true,
  latency_ms: 12,
  ttfb_ms: null,
  prompt_tokens: 10,
  completion_tokens: 2,
  ...over,
});

describe('log export', () => {
  it('writes one JSON object per line, each entry whole', () => {
    const rows = [entry('a'), entry('b', { app: null })];
    const text = toJsonl(rows);
    expect(text.endsWith('\n')).toBe(true);
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(rows);
    expect(toJsonl([])).toBe('');
  });

  it('writes CSV with a header, quoting commas, quotes and line breaks, and the attempt chain', () => {
    const csv = toCsv([
      entry('a', {
        app: 'my, "app"',
        attempts: [
          { provider: 'alpha', status: 503, error: null, latency_ms: 1 },
          { provider: 'beta', status: null, error: 'ECONNREFUSED', latency_ms: 1 },
        ],
      }),
    ]);
    const [head, row, end] = csv.split('\r\n');
    expect(head).toBe(CSV_COLUMNS.join(','));
    expect(end).toBe('');
    expect(row).toContain('"my, ""app"""');
    expect(row).toContain(',2,alpha:503 > beta:ECONNREFUSED');
    expect(row).toContain(',true,12,,10,2,');
  });

  it('defuses a cell a spreadsheet would run as a formula, but not a negative number', () => {
    const csv = toCsv([entry('a', { app: '=HYPERLINK("x")', requested_model: '-5', provider: '@evil' })]);
    expect(csv).toContain(`"'=HYPERLINK(""x"")"`);
    expect(csv).toContain(',-5,');
    expect(csv).toContain(",'@evil,");
  });
});
