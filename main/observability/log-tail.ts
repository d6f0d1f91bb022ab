// The tail of requests.jsonl, read back at start so the log view shows the last requests after a restart (issue 34,
// bug 3): the newest lines of the file and, when it holds fewer (it just rolled over), of requests.jsonl.1. Only the
// last bytes are read (never the whole file), each line is checked against the shared schema (a line that is not an
// entry is skipped and counted), and the entries come back ordered by when their requests started.
import fs from 'node:fs/promises';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { requestLogEntrySchema } from '../../shared/request-log-schema.ts';

/** The most bytes read from the end of one file (a thousand entries are ~0.5-1 MB). */
const MAX_TAIL_BYTES = 2 * 1024 * 1024;

/** The last lines of `file` (at most `max`; none when it does not exist), oldest first; a cut first line is dropped. */
async function lastLines(file: string, max: number): Promise<string[]> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = (await handle.stat()).size;
    const start = Math.max(0, size - MAX_TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    await handle.read(buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // begun mid-line
    return lines.filter((l) => l.trim() !== '').slice(-max);
  } finally {
    await handle.close();
  }
}

export type LogTail = { entries: RequestLogEntry[]; skipped: number };

/** Up to `max` entries from the end of `file` (then `file`.1), ordered by start time, oldest first. */
export async function readLogTail(file: string, max: number): Promise<LogTail> {
  const lines = await lastLines(file, max);
  if (lines.length < max) lines.unshift(...(await lastLines(`${file}.1`, max - lines.length)));
  const entries: RequestLogEntry[] = [];
  let skipped = 0;
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const parsed = requestLogEntrySchema().safeParse(value);
    if (parsed.success) entries.push(parsed.data as RequestLogEntry);
    else skipped++;
  }
  return { entries: byStartTime(entries), skipped };
}

/** Entries ordered by when their requests started (`time`), oldest first; equal times keep their order. */
export function byStartTime(entries: RequestLogEntry[]): RequestLogEntry[] {
  return entries
    .map((e, i) => ({ e, i, t: Date.parse(e.time) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.e);
}
