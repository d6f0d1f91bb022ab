// A time budget for calls that all have the same one (the store's hot-path calls to Redis: `store.timeout_ms`):
// race(p) answers p's outcome, or TIMED_OUT once the budget is spent. Every call has the same budget, so their
// deadlines come in the order the calls were made: one queue and one timer for all of them, not a timer per call
// (a request under load makes one such call). When the timer fires, the check waits for the I/O already at hand
// (setImmediate runs after the event loop's poll phase): a reply that arrived while this process was busy is read
// before the call is declared late, so the process's own slowness is not blamed on Redis.
import { performance } from 'node:perf_hooks';

export const TIMED_OUT: unique symbol = Symbol('timed out');
export type TimedOut = typeof TIMED_OUT;

type Waiting = { deadline: number; done: boolean; expire: () => void };

export class Deadlines {
  private queue: Waiting[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(private readonly budgetMs: number) {}

  /** Calls waiting for their answer or their deadline. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  race<T>(p: Promise<T>): Promise<T | TimedOut> {
    return new Promise<T | TimedOut>((resolve, reject) => {
      const w: Waiting = {
        deadline: performance.now() + this.budgetMs,
        done: false,
        expire: () => resolve(TIMED_OUT),
      };
      this.queue.push(w);
      if (!this.timer && !this.checking) this.arm(this.budgetMs);
      p.then(
        (v) => {
          if (w.done) return;
          w.done = true;
          resolve(v);
        },
        (err: unknown) => {
          if (w.done) return;
          w.done = true;
          reject(err);
        },
      );
    });
  }

  private arm(ms: number): void {
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.checking = true;
        setImmediate(() => this.check());
      },
      Math.max(1, Math.ceil(ms)),
    );
    this.timer.unref();
  }

  private check(): void {
    this.checking = false;
    const now = performance.now();
    const q = this.queue;
    while (this.head < q.length) {
      const w = q[this.head]!;
      if (!w.done) {
        if (w.deadline > now) break;
        w.done = true;
        w.expire();
      }
      q[this.head++] = undefined as unknown as Waiting;
    }
    if (this.head === q.length) {
      this.queue = [];
      this.head = 0;
      return;
    }
    if (this.head > 1024) {
      this.queue = q.slice(this.head);
      this.head = 0;
    }
    this.arm(this.queue[this.head]!.deadline - now);
  }
}
