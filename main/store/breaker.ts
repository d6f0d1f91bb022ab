// The store's breaker (issue 36): Redis is a dependency with a budget. Every hot-path call to Redis (an admission, a
// key looked up, a video task's provider, a provider breaker's probe lock) has `timeout_ms` to answer; after
// `trip_after` calls in a row that failed or ran out of time, the breaker opens: the instance answers from its local
// state at once (fail-open, as when Redis is down), says so once in the log, and probes Redis in the background
// (a PING every `probe_ms`); after `close_after` probes in a row answered within the timeout it closes and the calls
// go to Redis again. So a slow Redis costs a request at most the timeout once per trip, never for the whole stall.
// It also keeps what the metrics and /health show: the state and since when, the trips, the seconds spent open.
// Pure logic on an injectable clock; the connection (redis-connection.ts) feeds it and runs the probes.

export type BreakerSettings = {
  /** Calls in a row that failed or ran past the timeout before the breaker opens. */
  tripAfter: number;
  /** Probes in a row answered within the timeout before it closes. */
  closeAfter: number;
};

export type BreakerState = 'closed' | 'open';

export class StoreBreaker {
  state: BreakerState = 'closed';
  /** When the state last changed (epoch ms). */
  since: number;
  /** Times the breaker opened. */
  trips = 0;
  private failures = 0;
  private successes = 0;
  /** Seconds spent open before the current opening. */
  private openMs = 0;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
    /** Told each change: true when it opens, false when it closes. */
    private readonly onChange: (open: boolean, why: string) => void = () => {},
  ) {
    this.since = now();
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  /** A call answered within its time. */
  success(): void {
    if (this.state === 'closed') this.failures = 0;
  }

  /** A call failed or ran out of time (`why`: what happened, for the log). Opens the breaker after tripAfter. */
  failure(why: string): void {
    if (this.state !== 'closed') return;
    if (++this.failures < this.settings.tripAfter) return;
    this.state = 'open';
    this.since = this.now();
    this.trips++;
    this.successes = 0;
    this.onChange(true, why);
  }

  /** A background probe's outcome while open; closes after closeAfter quick answers in a row. */
  probed(quick: boolean): void {
    if (this.state !== 'open') return;
    if (!quick) {
      this.successes = 0;
      return;
    }
    if (++this.successes < this.settings.closeAfter) return;
    this.openMs += this.now() - this.since;
    this.state = 'closed';
    this.since = this.now();
    this.failures = 0;
    this.onChange(false, 'answered quickly again');
  }

  /** A fresh connection (Redis came back after it was down): closed, counting afresh. */
  reset(): void {
    if (this.state === 'open') {
      this.openMs += this.now() - this.since;
      this.state = 'closed';
      this.since = this.now();
    }
    this.failures = 0;
    this.successes = 0;
  }

  /** Seconds spent open so far (the current opening included). */
  openSeconds(): number {
    return (this.openMs + (this.state === 'open' ? this.now() - this.since : 0)) / 1000;
  }
}
