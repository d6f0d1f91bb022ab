// A running task's output and thinking deltas on their way to the WAL: coalesced, several per record, so a long
// answer is a few records rather than one per token (orchestrator.event_flush_ms). Each delta stays its own event
// (its own id, content and time), and events are still published only once durable: a flush commits the deltas
// gathered since the last one, at most every `flushMs` (the first delta after a pause goes at once), or sooner when
// they hold MAX_CHARS of text. Every other record of the task (a tool call, progress) waits for drain(), so the log
// keeps the task's order; the task's end takes the deltas not yet flushed into its own batch (takeRest()).
import { performance } from 'node:perf_hooks';
import { isoNow, type NewEvent } from './store/records.ts';
import type { OrchestratorStore } from './store/types.ts';

/** Buffered text past which a flush starts without waiting for the interval. */
const MAX_CHARS = 16 * 1024;

export class EventBuffer {
  private pending: NewEvent[] = [];
  private chars = 0;
  /** The next flush: a timer, or an immediate when it is due at once (cheaper to set and clear). */
  private timer: { kind: 'timeout'; id: NodeJS.Timeout } | { kind: 'immediate'; id: NodeJS.Immediate } | null = null;
  private flushing: Promise<void> | null = null;
  private lastFlush = -Infinity;
  private failure: unknown = null;

  constructor(
    private readonly store: Pick<OrchestratorStore, 'commit' | 'eventBatch'>,
    private readonly flushMs: number,
  ) {}

  /** Takes a delta (timed now); throws when an earlier flush failed (the WAL refused it). */
  add(e: NewEvent): void {
    if (this.failure) throw this.failure;
    this.pending.push({ ...e, time: isoNow() });
    this.chars += 'content' in e && typeof e.content === 'string' ? e.content.length : 0;
    this.schedule();
  }

  /** Every delta taken so far made durable (and published); throws when a flush failed. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.flushing) await this.flushing;
      else if (this.pending.length) this.flush();
      else break;
    }
    this.clearTimer();
    if (this.failure) throw this.failure;
  }

  /**
   * For a task's last record: waits for the flush under way, then hands back the deltas not yet flushed (the caller
   * commits them in its own batch, before its record) instead of flushing them on their own.
   */
  async takeRest(): Promise<NewEvent[]> {
    while (this.flushing) await this.flushing;
    this.clearTimer();
    if (this.failure) throw this.failure;
    const rest = this.pending;
    this.pending = [];
    this.chars = 0;
    return rest;
  }

  private schedule(): void {
    if (this.timer || this.flushing) return;
    const due = this.chars >= MAX_CHARS ? 0 : Math.max(0, this.lastFlush + this.flushMs - performance.now());
    this.timer =
      due === 0
        ? { kind: 'immediate', id: setImmediate(() => this.flush()) }
        : { kind: 'timeout', id: setTimeout(() => this.flush(), due) };
  }

  private clearTimer(): void {
    if (this.timer?.kind === 'timeout') clearTimeout(this.timer.id);
    else if (this.timer) clearImmediate(this.timer.id);
    this.timer = null;
  }

  private flush(): void {
    this.clearTimer();
    if (this.flushing || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.chars = 0;
    this.flushing = this.store
      .commit(this.store.eventBatch(batch))
      .catch((err: unknown) => void (this.failure ??= err))
      .finally(() => {
        this.flushing = null;
        this.lastFlush = performance.now();
        if (this.pending.length && !this.failure) this.schedule();
      });
  }
}
