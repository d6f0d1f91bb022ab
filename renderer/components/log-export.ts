// Export of the request log rows on screen: JSON Lines (each entry whole) and CSV (one row per request, the columns
// of the Logs page plus the attempts), downloaded as a file.
import type { RequestLogEntry } from '../../shared/admin.ts';

/** One JSON object per line, as requests.jsonl holds them. */
export function toJsonl(entries: readonly RequestLogEntry[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}

export const CSV_COLUMNS = [
  'time',
  'id',
  'method',
  'path',
  'app',
  'app_source',
  'requested_model',
  'routed_model',
  'provider',
  'route',
  'status',
  'error_code',
  'stream',
  'latency_ms',
  'ttfb_ms',
  'prompt_tokens',
  'completion_tokens',
  'attempts',
  'attempt_chain',
] as const;

/** A CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break; a formula-like start is defused. */
function cell(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  // A spreadsheet runs a cell starting with = + - @ as a formula: a leading ' keeps it text.
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A header row, then one row per entry; `attempt_chain` is each attempt as "provider:status-or-error". */
export function toCsv(entries: readonly RequestLogEntry[]): string {
  const rows = entries.map((e) =>
    CSV_COLUMNS.map((c) => {
      if (c === 'attempts') return cell(e.attempts.length);
      if (c === 'attempt_chain') return cell(e.attempts.map((a) => `${a.provider}:${a.status ?? a.error}`).join(' > '));
      return cell(e[c]);
    }).join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}

/** Saves `text` as a file named `name` (the browser's download; the desktop window's save dialog). */
export function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
