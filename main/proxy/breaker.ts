// Circuit breaker for one provider: consecutive failures open it for a cool-down, then one probe may pass.
import type { CircuitState } from '../../shared/admin.ts';

export type BreakerOptions = { failure_threshold: number; cooldown_ms: number };

export class CircuitBreaker {
  state: CircuitState = 'closed';
  consecutiveFailures = 0;
  openUntil = 0;
  private probeInFlight = false;

  constructor(
    public options: BreakerOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** May a request go to this provider now? In half-open state exactly one probe is let through. */
  allow(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') {
      if (this.now() < this.openUntil) return false;
      this.state = 'half_open';
      this.probeInFlight = false;
    }
    if (this.probeInFlight) return false;
    this.probeInFlight = true;
    return true;
  }

  /** Would a request be allowed, without taking the half-open probe slot (for explaining routes). */
  peek(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') return this.now() >= this.openUntil;
    return !this.probeInFlight;
  }

  success(): void {
    this.state = 'closed';
    this.consecutiveFailures = 0;
    this.probeInFlight = false;
  }

  failure(): void {
    this.consecutiveFailures++;
    this.probeInFlight = false;
    if (this.state === 'half_open' || this.consecutiveFailures >= this.options.failure_threshold) {
      this.state = 'open';
      this.openUntil = this.now() + this.options.cooldown_ms;
    }
  }

  /** A request that was let through ended without a verdict (e.g. the client went away). */
  release(): void {
    this.probeInFlight = false;
  }
}
