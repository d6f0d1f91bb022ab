// Backups of config.json: before Switchboard replaces the file (a save through the admin API or the UI, a restore,
// the start-up upgrade of an older file) or takes in an edit of it (by hand, or another program), the bytes it
// replaces are kept in `config-backups/` beside config.json (`<stem>-backups/` for another file name), one file per
// backup named by its id (`20250102-030405-123-save.json`: UTC time to the millisecond, and why). They hold keys, so
// the files are 0600 and the folder 0700, like config.json. Kept by count and by age (issue 34; keptIds): the newest
// BACKUPS_KEPT, then the newest of each day for BACKUP_DAYS days, never more than BACKUPS_MAX; the rest go.
// A backup whose bytes are those of the newest one is not kept twice. Summaries (the admin API's list, `switchboard
// config backups`) never show keys. What is in the folder is read as files someone may have planted (issue 33, item
// 12): a symbolic link is never followed, only regular files of at most MAX_BACKUP_BYTES are read, and the list shows
// the newest BACKUPS_KEPT.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ConfigBackupInfo, ConfigBackupReason } from '../../shared/admin.ts';
import { CONFIG_BACKUP_ID_RE, parseConfig } from '../../shared/config.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { FileRefusedError, readBoundedFile, sizeText } from './read-bounded.ts';

/** The newest backups kept whatever their age. */
export const BACKUPS_KEPT = 20;
/** Past those, the newest backup of each UTC day is kept this many days. */
export const BACKUP_DAYS = 30;
/** Never more than this many. */
export const BACKUPS_MAX = 100;
/** The policy in words (the admin API's list and the Settings page say it). */
export const BACKUP_POLICY = `the newest ${BACKUPS_KEPT}, then one a day for ${BACKUP_DAYS} days (${BACKUPS_MAX} at most)`;

/**
 * Which backups stay (ids, newest first): the newest BACKUPS_KEPT; then, among the older ones of the last BACKUP_DAYS
 * days, the newest of each UTC day; at most BACKUPS_MAX in all. Like Time Machine's hourly-then-daily thinning, a
 * busy day of saves never pushes out last week's configs.
 */
export function keptIds(idsNewestFirst: string[], now: number): string[] {
  const keep = idsNewestFirst.slice(0, BACKUPS_KEPT);
  const days = new Set(keep.map((id) => id.slice(0, 8)));
  const oldest = now - BACKUP_DAYS * 86_400_000;
  for (const id of idsNewestFirst.slice(BACKUPS_KEPT)) {
    if (keep.length >= BACKUPS_MAX) break;
    const day = id.slice(0, 8);
    if (timeOf(id) < oldest || days.has(day)) continue;
    days.add(day);
    keep.push(id);
  }
  return keep;
}
/** The largest backup read: twice the admin API's body limit (a config.json Switchboard saves is far smaller). */
export const MAX_BACKUP_BYTES = 4 * 1024 * 1024;

export class BackupNotFoundError extends Error {
  constructor(
    readonly dir: string,
    readonly id: string,
  ) {
    super(id === 'latest' ? `there are no backups in ${dir}` : `no backup "${id}" in ${dir}`);
    this.name = 'BackupNotFoundError';
  }
}

/** The folder of config.json's backups: `config-backups/` beside it. */
export function backupsDir(configFile: string): string {
  return path.join(path.dirname(configFile), `${path.basename(configFile, '.json')}-backups`);
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
function stampOf(ms: number): string {
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}-${pad(d.getUTCMilliseconds(), 3)}`
  );
}
function timeOf(id: string): number {
  const [, y, mo, d, h, mi, s, ms] = /^(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)-(\d{3})/.exec(id)!.map(Number);
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!);
}

/** A backup's summary from its bytes: counts and provider names, never a key. */
export function summarize(id: string, text: string): ConfigBackupInfo {
  let raw: unknown = undefined;
  try {
    raw = JSON.parse(text);
  } catch {
    // listed as not valid
  }
  const obj = (raw && typeof raw === 'object' ? raw : {}) as { providers?: unknown; routing?: { rules?: unknown } };
  const providers = Array.isArray(obj.providers) ? (obj.providers as { name?: unknown }[]) : [];
  const rules = obj.routing && Array.isArray(obj.routing.rules) ? obj.routing.rules.length : 0;
  return {
    id,
    saved_at: new Date(timeOf(id)).toISOString(),
    reason: id.slice(20) as ConfigBackupReason,
    size: Buffer.byteLength(text),
    valid: raw !== undefined && parseConfig(raw).ok,
    providers: providers.length,
    provider_names: providers.map((p) => (typeof p?.name === 'string' ? p.name : '(no name)')),
    rules,
  };
}

async function ids(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith('.json') && CONFIG_BACKUP_ID_RE.test(n.slice(0, -5)))
    .map((n) => n.slice(0, -5))
    .sort()
    .reverse();
}

/** A backup file that was not read (a link, not a regular file, too large), and why; its size when known. */
type Unread = { problem: string; size: number };

/**
 * The backup's bytes, an Unread when its file is not one Switchboard would have written (a symbolic link, not a regular
 * file, larger than MAX_BACKUP_BYTES: never followed or read), or null when there is no such backup (an id of another
 * shape never names a file).
 */
async function readText(dir: string, id: string): Promise<string | Unread | null> {
  if (!CONFIG_BACKUP_ID_RE.test(id)) return null;
  const file = path.join(dir, `${id}.json`);
  try {
    return (await readBoundedFile(file, { maxBytes: MAX_BACKUP_BYTES, noFollow: true })).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if (!(err instanceof FileRefusedError)) throw err;
    const problem =
      err.reason === 'symlink'
        ? 'is a symbolic link (Switchboard keeps backups as plain files): not followed'
        : err.reason === 'too_large'
          ? `is ${sizeText(err.size ?? 0)}, more than a config backup may be (${sizeText(MAX_BACKUP_BYTES)}): not read`
          : err.reason === 'not_regular'
            ? 'is not a regular file: not read'
            : 'could not be read in time';
    return { problem, size: err.size ?? 0 };
  }
}

/** The summary of a backup whose bytes were not read: not valid, nothing counted, and why. */
function unreadSummary(id: string, unread: Unread): ConfigBackupInfo {
  return {
    id,
    saved_at: new Date(timeOf(id)).toISOString(),
    reason: id.slice(20) as ConfigBackupReason,
    size: unread.size,
    valid: false,
    providers: 0,
    provider_names: [],
    rules: 0,
    problem: unread.problem,
  };
}

/** The newest backups first, at most BACKUPS_MAX (the ring keeps no more; files planted beyond it are not read). */
export async function listBackups(configFile: string): Promise<ConfigBackupInfo[]> {
  const dir = backupsDir(configFile);
  const out: ConfigBackupInfo[] = [];
  for (const id of (await ids(dir)).slice(0, BACKUPS_MAX)) {
    const text = await readText(dir, id);
    if (text === null) continue;
    out.push(typeof text === 'string' ? summarize(id, text) : unreadSummary(id, text));
  }
  return out;
}

/**
 * One backup by id, or `latest` for the newest; null when there is none. `text` is null when the file was not read
 * (its summary's `problem` says why): it cannot be restored.
 */
export async function readBackup(
  configFile: string,
  id: string,
): Promise<{ info: ConfigBackupInfo; text: string | null } | null> {
  const dir = backupsDir(configFile);
  const wanted = id === 'latest' ? (await ids(dir))[0] : id;
  if (wanted === undefined) return null;
  const text = await readText(dir, wanted);
  if (text === null) return null;
  return typeof text === 'string'
    ? { info: summarize(wanted, text), text }
    : { info: unreadSummary(wanted, text), text: null };
}

/** One backup at a time per folder in this process, so ids stay in order and the ring never holds more. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Keeps `text` (the bytes of a config about to be replaced) as the newest backup and drops those keptIds does not
 * keep. When the newest backup holds the same bytes, nothing new is written and that one is answered.
 */
export function keepBackup(
  configFile: string,
  text: string,
  reason: ConfigBackupReason,
  now = Date.now(),
): Promise<ConfigBackupInfo> {
  const dir = backupsDir(configFile);
  const run = (queues.get(dir) ?? Promise.resolve()).then(async () => {
    const existing = await ids(dir);
    const newest = existing[0];
    if (newest !== undefined && (await readText(dir, newest)) === text) return summarize(newest, text);
    // Ids sort in the order they were kept, even two in one millisecond or with the clock set back.
    const at = newest !== undefined ? Math.max(now, timeOf(newest) + 1) : now;
    const id = `${stampOf(at)}-${reason}`;
    await writeFileAtomic(path.join(dir, `${id}.json`), text, 0o600);
    if (process.platform !== 'win32') await fs.chmod(dir, 0o700);
    const all = [id, ...existing];
    const kept = new Set(keptIds(all, at));
    for (const old of all) if (!kept.has(old)) await fs.rm(path.join(dir, `${old}.json`), { force: true });
    return summarize(id, text);
  });
  queues.set(
    dir,
    run.catch(() => {}),
  );
  return run;
}
