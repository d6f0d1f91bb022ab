// The last minute's requests and errors for the tray's tooltip: one counter per second over a 60-second ring, fed by
// the engine's request log as each request ends (constant memory and work however busy the minute was). An error is
// a request answered with a 4xx or 5xx status (Switchboard's own refusals included: paused, rate limit, no route),
// or not answered at all.
import type { RequestLogEntry } from '../../shared/admin.ts';

const SECONDS = 60;

export class LastMinute {
  private readonly requests = new Uint32Array(SECONDS);
  private readonly errors = new Uint32Array(SECONDS);
  /** The second (since the epoch) each slot counts. */
  private readonly second = new Float64Array(SECONDS).fill(-1);

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one finished request. */
  add(entry: Pick<RequestLogEntry, 'status' | 'error_code'>): void {
    const s = Math.floor(this.now() / 1000);
    const i = s % SECONDS;
    if (this.second[i] !== s) {
      this.second[i] = s;
      this.requests[i] = 0;
      this.errors[i] = 0;
    }
    this.requests[i]!++;
    if (entry.status >= 400 || entry.status === 0 || entry.error_code !== null) this.errors[i]!++;
  }

  /** The requests and errors of the last 60 seconds. */
  counts(): { requests: number; errors: number } {
    const s = Math.floor(this.now() / 1000);
    let requests = 0;
    let errors = 0;
    for (let i = 0; i < SECONDS; i++) {
      if (s - this.second[i]! < SECONDS) {
        requests += this.requests[i]!;
        errors += this.errors[i]!;
      }
    }
    return { requests, errors };
  }
}
