// config.json on disk: load and validate, first-run defaults, atomic saves, and hot reload of hand edits. Every save
// and every edit taken in keeps the config it replaces as a backup (backups.ts), and a backup can be restored.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { ConfigBackupInfo } from '../../shared/admin.ts';
import { type Config, type ConfigProblem, parseConfig, problemToText } from '../../shared/config.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { BackupNotFoundError, backupsDir, keepBackup, readBackup } from './backups.ts';
import { removeStaleTemps } from './stale-temp.ts';
import { defaultConfig } from './defaults.ts';
import { dropPreviousLimitDefaults, indentOf, previousLimitsNotice } from './previous-limits.ts';

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ConfigProblem[],
  ) {
    super(
      `${file} is invalid and was left as it is:\n${problems.map((p) => `  - ${problemToText(p)}`).join('\n')}\n` +
        `Fix the file (or move it aside to get a fresh default) and start again.`,
    );
    this.name = 'ConfigError';
  }
}

type ReadResult =
  { ok: true; config: Config; raw: unknown; text: string } | { ok: false; problems: ConfigProblem[]; text: string };

function jsonPosition(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return '';
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - before.lastIndexOf('\n');
  return ` at line ${line}, column ${col}`;
}

export function parseConfigText(text: string): ReadResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const msg = (err as Error).message;
    return {
      ok: false,
      text,
      problems: [
        {
          path: '(file)',
          value: undefined,
          message: `is not valid JSON: ${msg.replace(/ in JSON at position \d+/, '')}${jsonPosition(text, msg)}`,
        },
      ],
    };
  }
  const parsed = parseConfig(raw);
  if (!parsed.ok) return { ok: false, problems: parsed.problems, text };
  return { ok: true, config: parsed.config, raw, text };
}

async function readIfThere(file: string): Promise<string | null> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The same JSON written the same way but for whitespace (a save that changes nothing keeps no backup). */
function sameConfigText(previous: string, text: string): boolean {
  if (previous === text) return true;
  try {
    return `${JSON.stringify(JSON.parse(previous), null, 2)}\n` === text;
  } catch {
    return false;
  }
}

/** What a restore did: the backup restored, and the backup of the config it replaced (null: the same bytes). */
export type Restored = { restored: ConfigBackupInfo; backup: ConfigBackupInfo | null; config: Config; text: string };

/**
 * Restores a backup (`latest`: the newest) into config.json on the files alone, whatever config.json holds now (even
 * a file too broken to start): the backup must be a valid config (else ConfigError naming its problems); the
 * current bytes are kept as a backup first; the write is atomic. A running server takes it in through its watcher.
 */
export async function restoreBackupFile(file: string, id: string): Promise<Restored> {
  const found = await readBackup(file, id);
  if (!found) throw new BackupNotFoundError(backupsDir(file), id);
  const where = path.join(backupsDir(file), `${found.info.id}.json`);
  if (found.text === null)
    throw new ConfigError(where, [{ path: '(the file)', value: null, message: found.info.problem ?? 'was not read' }]);
  const r = parseConfigText(found.text);
  if (!r.ok) throw new ConfigError(where, r.problems);
  const current = await readIfThere(file);
  let backup: ConfigBackupInfo | null = null;
  if (current !== found.text) {
    if (current !== null) backup = await keepBackup(file, current, 'restore');
    await writeFileAtomic(file, found.text);
  }
  return { restored: found.info, backup, config: r.config, text: found.text };
}

/** Removes the temp files of saves killed half-way beside config.json (key files too) and among its backups. */
async function removeLeftovers(file: string): Promise<string | null> {
  const removed: string[] = [];
  for (const dir of [path.dirname(file), backupsDir(file)]) {
    removed.push(...(await removeStaleTemps(dir).catch(() => [])));
  }
  if (removed.length === 0) return null;
  return (
    `removed ${removed.length} temp file${removed.length === 1 ? '' : 's'} left by an interrupted save ` +
    `(they may hold keys): ${removed.join(', ')}`
  );
}

export interface ConfigStoreEvents {
  change: [next: Config, previous: Config];
  invalid: [problems: ConfigProblem[]];
}

export class ConfigStore extends EventEmitter<ConfigStoreEvents> {
  readonly dir: string;
  /** Problems of the file on disk when a hand edit was rejected (the last good config stays in force). */
  error: ConfigProblem[] | null = null;
  /** What open() changed and why (the previous version's limit defaults, leftover temp files removed), for the log. */
  readonly notices: string[] = [];
  /** The file's text as last read or written (a hand edit that was rejected included). */
  private lastText: string;
  /** The text of the config in force: what an edit taken in replaces, so what is kept as its backup. */
  private goodText: string;
  /** Saves, restores and reloads run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private watcher: fs.FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;

  private constructor(
    readonly file: string,
    public config: Config,
    text: string,
    readonly firstRun: boolean,
  ) {
    super();
    this.dir = path.dirname(file);
    this.lastText = text;
    this.goodText = text;
  }

  /** Reads config.json, writing the default on first run. An invalid file throws ConfigError and is never touched. */
  static async open(file: string): Promise<ConfigStore> {
    const leftovers = await removeLeftovers(file);
    const store = await ConfigStore.read(file);
    if (leftovers) store.notices.push(leftovers);
    return store;
  }

  private static async read(file: string): Promise<ConfigStore> {
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const input = defaultConfig();
      const parsed = parseConfig(input);
      if (!parsed.ok) throw new ConfigError(file, parsed.problems);
      text = `${JSON.stringify(input, null, 2)}\n`;
      await writeFileAtomic(file, text);
      return new ConfigStore(file, parsed.config, text, true);
    }
    const r = parseConfigText(text);
    if (!r.ok) throw new ConfigError(file, r.problems);
    const previous = dropPreviousLimitDefaults(r.raw);
    if (!previous) return new ConfigStore(file, r.config, text, false);
    // The previous version's limit defaults, written out by its desktop app: read as not set, and removed.
    const parsed = parseConfig(previous.raw);
    if (!parsed.ok) throw new ConfigError(file, parsed.problems);
    const next = `${JSON.stringify(previous.raw, null, indentOf(text))}\n`;
    let rewritten = true;
    try {
      await keepBackup(file, text, 'upgrade');
      await writeFileAtomic(file, next);
    } catch {
      rewritten = false;
    }
    const store = new ConfigStore(file, parsed.config, rewritten ? next : text, false);
    store.notices.push(previousLimitsNotice(file, previous.removed, rewritten));
    return store;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Validates and saves a whole config atomically; the running config changes only if the save worked. The bytes it
   * replaces are kept as a backup first (answered; null when they are the same), and a backup that cannot be
   * written stops the save.
   */
  save(input: unknown): Promise<{ config: Config; backup: ConfigBackupInfo | null }> {
    return this.serial(async () => {
      const parsed = parseConfig(input);
      if (!parsed.ok) throw new ConfigError(this.file, parsed.problems);
      const text = `${JSON.stringify(input, null, 2)}\n`;
      const previous = await readIfThere(this.file);
      const backup =
        previous !== null && !sameConfigText(previous, text) ? await keepBackup(this.file, previous, 'save') : null;
      await writeFileAtomic(this.file, text);
      this.lastText = this.goodText = text;
      this.apply(parsed.config);
      return { config: parsed.config, backup };
    });
  }

  /** Restores a backup (restoreBackupFile) and puts it in force at once. */
  restore(id: string): Promise<Restored> {
    return this.serial(async () => {
      const r = await restoreBackupFile(this.file, id);
      this.lastText = this.goodText = r.text;
      this.apply(r.config);
      return r;
    });
  }

  /** The file's JSON as written (defaults not filled in), for the admin API's config read. */
  async readRaw(): Promise<unknown> {
    // A hand edit that is not even JSON: the config in force (a save from the UI then replaces the broken file, which
    // is kept as a backup).
    try {
      return JSON.parse(this.lastText);
    } catch {
      return JSON.parse(this.goodText);
    }
  }

  /** Starts picking up hand edits. An invalid edit keeps the last good config and emits 'invalid'. */
  watch(): void {
    if (this.watcher) return;
    const base = path.basename(this.file);
    try {
      this.watcher = fs.watch(this.dir, { persistent: false }, (_event, filename) => {
        if (filename && filename !== base) return;
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.reload(), 60);
      });
      this.watcher.on('error', () => {});
    } catch {
      this.watcher = null;
    }
  }

  /** Re-reads the file now (the watcher calls this; tests and the CLI may too). */
  reload(): Promise<void> {
    return this.serial(() => this.reloadNow());
  }

  private async reloadNow(): Promise<void> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.file, 'utf8');
    } catch {
      return; // mid-rename or deleted: keep what we have, the next event re-reads it
    }
    if (text === this.lastText) return;
    this.lastText = text;
    const r = parseConfigText(text);
    if (!r.ok) {
      this.error = r.problems;
      this.emit('invalid', r.problems);
      return;
    }
    // The config this edit replaces is kept; the edit is already on disk, so a backup that fails does not stop it.
    if (this.goodText !== text) await keepBackup(this.file, this.goodText, 'edit').catch(() => null);
    this.goodText = text;
    this.apply(r.config);
  }

  private apply(next: Config): void {
    const previous = this.config;
    this.config = next;
    this.error = null;
    this.emit('change', next, previous);
  }

  close(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher?.close();
    this.watcher = null;
  }
}
