// The durable usage store (data/usage/): raw records in daily JSONL files (raw.ts) and the rollups (rollups.ts). Each
// rollup has a snapshot file (rollup-minute.jsonl, rollup-hour.jsonl, rollup-day.jsonl): every few seconds, when
// something changed, the cells changed since the last line are appended as one line, each line saying how far into
// the raw files it counts; when the appended lines outgrow the whole, the file is rewritten atomically as one line
// with every cell. So a busy minute costs a few hundred bytes of disk, not a rewrite of two days of minutes. At start
// the lines are loaded (a torn last line is skipped) and the raw records written after them are replayed, so a crash
// loses nothing that reached a raw file. Recording a request is an in-memory append and counter update; the disk is
// written off the request's path.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { UsageRecord, UsageRequests } from '../../shared/usage.ts';
import { writeFileAtomic } from '../config/atomic-write.ts';
import { removeStaleTemps } from '../config/stale-temp.ts';
import { logger } from '../observability/logger.ts';
import { DAY, localDate, utcDate } from './periods.ts';
import { comparePositions, type RawPosition, RawLog } from './raw.ts';
import { boundRecord, KeyBounds, type Kept } from './bounds.ts';
import { type CellBounds, GRANULARITIES, type Granularity, Rollups, type RollupJson } from './rollups.ts';

export type Retention = { raw_days: number; rollup_days: number };

export type UsageStoreOptions = {
  /** The store's folder (data/usage/ beside the WAL). */
  dir: string;
  /** The apps and providers config.json names: they keep rows of their own past the day's bounds (bounds.ts). */
  kept?: () => Kept;
  retention: () => Retention;
  now?: () => number;
  /** How long a raw line may wait for its batch (ms). */
  flushMs?: number;
  /** How often the rollups' snapshots are written when something changed (ms). */
  snapshotMs?: number;
  /** Appended snapshot lines past this size (and past the whole line's) make the next one whole (bytes). */
  rewriteAfterBytes?: number;
};

/** One line of a rollup's snapshot file: every cell (`whole`), or the cells changed since the line before. */
type SnapshotLine = RollupJson & {
  v: 1;
  granularity: Granularity;
  whole: boolean;
  through: RawPosition | null;
  written_at: string;
};

export const snapshotFile = (g: Granularity): string => `rollup-${g}.jsonl`;

/** Appended lines past this size, and past the whole snapshot's, make the next snapshot a whole one. */
const REWRITE_AFTER_BYTES = 256 * 1024;

/** The snapshot file this process writes: the size of its whole line, and what was appended since. */
type Journal = { wholeBytes: number; appended: number };

async function appendDurably(file: string, text: string): Promise<void> {
  const fh = await fs.open(file, 'a', 0o600);
  try {
    await fh.appendFile(text);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

const isPosition = (t: unknown): t is RawPosition =>
  !!t && typeof (t as RawPosition).file === 'string' && typeof (t as RawPosition).offset === 'number';

/** `before` of GET /admin/v1/usage/requests: the records written before the one with this id, or before this time. */
export type Before = { id: string } | { time: number } | null;

export class UsageStore {
  readonly rollups = new Rollups();
  readonly raw: RawLog;
  /** Lines of the raw files that were not records (torn by a crash mid-write) when they were replayed at start. */
  skippedLines = 0;
  replayedRecords = 0;
  /** Snapshot lines that could not be read (torn by a crash mid-write) at start. */
  skippedSnapshotLines = 0;
  private dirty = false;
  /** null until this process wrote a whole snapshot: its first is always whole (prunes, and ends a torn file). */
  private readonly journals: Record<Granularity, Journal | null> = {
    minute: null,
    hour: null,
    day: null,
    session: null,
  };
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retainedOn = '';
  private readonly now: () => number;
  /** What keeps the rollups bounded whatever names clients send (bounds.ts). */
  private readonly bounds: KeyBounds;
  private readonly cellBounds: CellBounds;

  private constructor(private readonly o: UsageStoreOptions) {
    this.now = o.now ?? Date.now;
    this.raw = new RawLog(o.dir, this.now, o.flushMs ?? 200);
    this.bounds = new KeyBounds(o.kept);
    this.cellBounds = this.bounds.cellBounds();
  }

  static async open(o: UsageStoreOptions): Promise<UsageStore> {
    const store = new UsageStore(o);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    await fs.mkdir(this.o.dir, { recursive: true, mode: 0o700 });
    await removeStaleTemps(this.o.dir);
    const through = {} as Record<Granularity, RawPosition | null>;
    for (const g of GRANULARITIES) through[g] = await this.loadSnapshot(g);
    // The names each day already counts, so the records replayed get the rows they got before a crash.
    for (const [date, cells] of this.rollups.day.buckets) for (const key of cells.keys()) this.bounds.learn(date, key);
    const from = GRANULARITIES.map((g) => through[g]).reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
    const { records, skipped } = await this.raw.replay(from, (record, at) => {
      const only = GRANULARITIES.filter((g) => comparePositions(at, through[g]) > 0);
      if (!only.length) return;
      const r = boundRecord(record); // lines written before the bounds existed
      const t = Date.parse(r.time);
      this.rollups.add(r, t, this.bounds.keyOf(r, this.rollups.dateOf(t)), only, this.cellBounds);
    });
    this.replayedRecords = records;
    this.skippedLines = skipped;
    if (skipped > 0)
      logger.warn(`usage store: skipped ${skipped} raw line(s) that were not records (a write cut short by a crash)`);
    this.dirty = true;
    await this.snapshot();
    await this.retain();
    this.timer = setInterval(() => void this.tick(), this.o.snapshotMs ?? 5_000);
    this.timer.unref();
  }

  /** Loads one snapshot file into the rollups; answers how far it counts (null: none, so replay every raw file). */
  private async loadSnapshot(g: Granularity): Promise<RawPosition | null> {
    const file = path.join(this.o.dir, snapshotFile(g));
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        logger.warn(`usage store: ${file} could not be read (${(err as Error).message}); rebuilt from the raw files`);
      return null;
    }
    let through: RawPosition | null = null;
    for (const line of text.split('\n')) {
      if (!line) continue;
      let json: SnapshotLine;
      try {
        json = JSON.parse(line) as SnapshotLine;
        if (json.v !== 1 || json.granularity !== g || !Array.isArray(json.cells)) throw new Error('not a snapshot');
      } catch {
        this.skippedSnapshotLines++;
        continue;
      }
      if (json.whole) this.rollups[g].clear();
      this.rollups.load(g, json);
      through = isPosition(json.through) ? json.through : null;
    }
    return through;
  }

  /**
   * Counts a request (its names cut to their lengths, past the day's bounds as `other`) and queues its raw line;
   * answers the record as kept and its rollup key (the team's rollups count it under the same).
   */
  record(record: UsageRecord, t = Date.parse(record.time)): { record: UsageRecord; key: string } {
    const r = boundRecord(record);
    const key = this.bounds.keyOf(r, this.rollups.dateOf(t));
    this.rollups.add(r, t, key, GRANULARITIES as Granularity[], this.cellBounds);
    this.raw.append(`${JSON.stringify(r)}\n`);
    this.dirty = true;
    return { record: r, key };
  }

  private async tick(): Promise<void> {
    await this.snapshot();
    await this.retain();
  }

  /**
   * Writes the snapshots when something changed: the raw lines first, then each rollup's changed cells (or all of
   * them) with the raw position they count up to, taken at the same moment, so a replay from there neither misses nor
   * doubles a record.
   */
  snapshot(): Promise<void> {
    if (this.writing) return this.writing;
    if (!this.dirty) return Promise.resolve();
    this.dirty = false;
    const through = this.raw.position();
    const now = this.now();
    this.rollups.prune(now, this.o.retention().rollup_days);
    this.bounds.prune(localDate(now - 3 * DAY)); // records arrive for today (a team's, a replay's: a day or two back)
    const written_at = new Date(now).toISOString();
    const taken: { g: Granularity; whole: boolean; cells: RollupJson }[] = [];
    for (const g of GRANULARITIES) {
      const j = this.journals[g];
      const whole = j === null || j.appended > Math.max(this.o.rewriteAfterBytes ?? REWRITE_AFTER_BYTES, j.wholeBytes);
      taken.push({ g, whole, cells: this.rollups.json(g, !whole) });
    }
    // A rollup with nothing changed while others did (the sessions', when no request named one) still says how far it
    // counts, so a restart does not replay the raw lines into it for nothing.
    const anyChange = taken.some((t) => t.whole || t.cells.cells.length > 0);
    const lines: { g: Granularity; whole: boolean; text: string }[] = [];
    for (const { g, whole, cells } of taken) {
      if (!whole && cells.cells.length === 0 && !anyChange) continue;
      const line: SnapshotLine = { v: 1, granularity: g, whole, through, written_at, ...cells };
      lines.push({ g, whole, text: `${JSON.stringify(line)}\n` });
    }
    this.writing = (async () => {
      for (const { g, whole, text } of lines) {
        const file = path.join(this.o.dir, snapshotFile(g));
        try {
          if (whole) {
            await writeFileAtomic(file, text);
            this.journals[g] = { wholeBytes: text.length, appended: 0 };
          } else {
            await appendDurably(file, text);
            this.journals[g]!.appended += text.length;
          }
        } catch (err) {
          // The changes taken are not on disk: the next snapshot of this rollup is a whole one.
          this.journals[g] = null;
          this.dirty = true;
          logger.warn({ err }, `usage store: ${file} could not be written; retrying`);
        }
      }
      this.writing = null;
    })();
    return this.writing;
  }

  /** Deletes the raw files past usage.raw_days, once a day (UTC). */
  private async retain(): Promise<void> {
    const now = this.now();
    const today = utcDate(now);
    if (today === this.retainedOn) return;
    this.retainedOn = today;
    try {
      await this.raw.removeBefore(utcDate(now - this.o.retention().raw_days * DAY));
    } catch (err) {
      logger.warn({ err }, 'usage store: old raw files could not be removed');
    }
  }

  /** The newest records first (`limit` at most), before a record id or a time. */
  async requests(limit: number, before: Before): Promise<UsageRequests> {
    const data: UsageRecord[] = [];
    let collecting = before === null || 'time' in before;
    for await (const r of this.raw.backward()) {
      if (!collecting) {
        collecting = 'id' in before! && r.id === before.id;
        continue;
      }
      if (before && 'time' in before && Date.parse(r.time) >= before.time) continue;
      if (data.length === limit) return { data, has_more: true };
      data.push(r);
    }
    return { data, has_more: false };
  }

  /** Writes what is pending (raw lines, then the snapshots) and stops the timers. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.writing) await this.writing;
    this.dirty = true;
    await this.snapshot();
    this.raw.close();
  }
}
