// Circuit breaker for one provider: consecutive failures open it for a cool-down, then one probe may pass.
import type { CircuitState } from '../../shared/admin.ts';

export type BreakerOptions = { failure_threshold: number; cooldown_ms: number };

/** Shared breaker state (store kind "redis", main/gateway/shared-breakers.ts): told when this breaker opens or closes. */
export interface BreakerLink {
  opened(openUntil: number): void;
  closed(): void;
}

export class CircuitBreaker {
  state: CircuitState = 'closed';
  consecutiveFailures = 0;
  openUntil = 0;
  private probeInFlight = false;
  /** Set when the breaker state is shared; null (the default) keeps it this process's alone. */
  link: BreakerLink | null = null;
  /** With a link, the half-open probe waits for grantProbe() (one instance across all wins it); without, always. */
  private probeGranted = true;

  constructor(
    public options: BreakerOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** May a request go to this provider now? In half-open state exactly one probe is let through. */
  allow(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') {
      if (this.now() < this.openUntil || !this.probeGranted) return false;
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
    if (this.state === 'open') return this.now() >= this.openUntil && this.probeGranted;
    return !this.probeInFlight;
  }

  success(): void {
    if (this.state !== 'closed') this.link?.closed();
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
      if (this.link) {
        this.probeGranted = false;
        this.link.opened(this.openUntil);
      }
    }
  }

  /** Another instance opened the shared breaker: open here too, the probe to be granted. */
  openShared(openUntil: number): void {
    this.state = 'open';
    this.openUntil = openUntil;
    this.probeInFlight = false;
    this.probeGranted = this.link === null;
  }

  /** Another instance's probe succeeded: closed here too. */
  closeShared(): void {
    this.state = 'closed';
    this.consecutiveFailures = 0;
    this.probeInFlight = false;
    this.probeGranted = true;
  }

  /** This instance won the half-open probe across instances: the next allow() after the cool-down takes it. */
  grantProbe(): void {
    this.probeGranted = true;
  }

  /** A request that was let through ended without a verdict (e.g. the client went away). */
  release(): void {
    this.probeInFlight = false;
  }
}
