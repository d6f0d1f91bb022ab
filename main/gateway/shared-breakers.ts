// Circuit breakers shared across instances (store kind "redis"): a breaker that opens on one instance opens on all
// (its cool-down end with it); when the cool-down ends, the instances race for the provider's probe lock and only the
// winner lets one request through (the half-open probe); its success closes every instance's breaker, its failure
// opens them all again. A winner that gets no request lets the lock expire (one cool-down) and the race runs again.
import type { BreakerLink, CircuitBreaker } from '../proxy/breaker.ts';
import type { SharedBreakers } from '../store/types.ts';

export class BreakerSync {
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: SharedBreakers,
    /** This instance's name in the probe lock. */
    private readonly owner: string,
  ) {
    this.unsubscribe = store.subscribe((name, circuit) => {
      const b = this.breakers.get(name);
      if (!b) return;
      if (circuit.state === 'closed') {
        this.clear(name);
        if (b.state !== 'closed') b.closeShared();
        return;
      }
      if (b.state !== 'open' || b.openUntil !== circuit.openUntil) b.openShared(circuit.openUntil);
      this.schedule(name, circuit.openUntil);
    });
  }

  /** Shares this provider's breaker; it takes the shared state it finds. */
  attach(name: string, breaker: CircuitBreaker): void {
    this.breakers.set(name, breaker);
    const link: BreakerLink = {
      opened: (openUntil) => {
        this.store.open(name, openUntil).catch(() => {});
        this.schedule(name, openUntil);
      },
      closed: () => {
        this.clear(name);
        this.store.close(name).catch(() => {});
      },
    };
    breaker.link = link;
    this.store
      .get(name)
      .then((c) => {
        if (c.state !== 'open' || this.breakers.get(name) !== breaker) return;
        breaker.openShared(c.openUntil);
        this.schedule(name, c.openUntil);
      })
      .catch(() => {});
  }

  private clear(name: string): void {
    const t = this.timers.get(name);
    if (t) clearTimeout(t);
    this.timers.delete(name);
  }

  private schedule(name: string, at: number): void {
    this.clear(name);
    const t = setTimeout(() => void this.claim(name), Math.max(0, at - Date.now()));
    t.unref();
    this.timers.set(name, t);
  }

  private async claim(name: string): Promise<void> {
    this.timers.delete(name);
    const b = this.breakers.get(name);
    if (!b || b.state !== 'open') return;
    const ttl = b.options.cooldown_ms;
    const won = await this.store.claimProbe(name, this.owner, ttl).catch(() => true);
    if (won) b.grantProbe();
    else this.schedule(name, Date.now() + ttl);
  }

  close(): void {
    this.unsubscribe();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const b of this.breakers.values()) b.link = null;
  }
}
