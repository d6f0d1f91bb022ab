// config.json on disk: load and validate, first-run defaults, atomic saves, and hot reload of hand edits.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { type Config, type ConfigProblem, parseConfig, problemToText } from '../../shared/config.ts';
import { writeFileAtomic } from './atomic-write.ts';
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

export interface ConfigStoreEvents {
  change: [next: Config, previous: Config];
  invalid: [problems: ConfigProblem[]];
}

export class ConfigStore extends EventEmitter<ConfigStoreEvents> {
  readonly dir: string;
  /** Problems of the file on disk when a hand edit was rejected (the last good config stays in force). */
  error: ConfigProblem[] | null = null;
  /** What open() changed in the file and why (the previous version's limit defaults), for the log. */
  readonly notices: string[] = [];
  private lastText: string;
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
  }

  /** Reads config.json, writing the default on first run. An invalid file throws ConfigError and is never touched. */
  static async open(file: string): Promise<ConfigStore> {
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
      await writeFileAtomic(file, next);
    } catch {
      rewritten = false;
    }
    const store = new ConfigStore(file, parsed.config, rewritten ? next : text, false);
    store.notices.push(previousLimitsNotice(file, previous.removed, rewritten));
    return store;
  }

  /** Validates and saves a whole config atomically; the running config changes only if the save worked. */
  async save(input: unknown): Promise<Config> {
    const parsed = parseConfig(input);
    if (!parsed.ok) throw new ConfigError(this.file, parsed.problems);
    const text = `${JSON.stringify(input, null, 2)}\n`;
    await writeFileAtomic(this.file, text);
    this.lastText = text;
    this.apply(parsed.config);
    return parsed.config;
  }

  /** The file's JSON as written (defaults not filled in), for the admin API's config read. */
  async readRaw(): Promise<unknown> {
    return JSON.parse(this.lastText);
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
  async reload(): Promise<void> {
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
