// The limiter when the store is shared (store.kind "redis"): the same admission as ../proxy/limits.ts's Limiter
// (same order of checks, same refusals and headers) with the counts kept in the shared store, atomically across
// instances. An admitted request holds its concurrency slot as a lease, renewed while it is open and released by
// settle() on every exit path (the front door settles in its finally); a slot whose instance died expires with its
// lease.
import type { LimitName } from '../../shared/config.ts';
import { type Admission, type EffectiveLimits, limitHeaders, neverFits, overLimit } from '../proxy/limits.ts';
import type { LimitLease, SharedLimits } from '../store/types.ts';

/** How long a slot outlives its instance; renewed every third of it while the request is open. */
export const LEASE_MS = 30_000;

class SharedAdmission implements Admission {
  private settled = false;

  constructor(
    readonly headers: Record<string, string>,
    private readonly owner: SharedLimiter,
    readonly lease: LimitLease,
  ) {
    owner.hold(this);
  }

  settle(actual: number | null): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.release(this);
    this.owner.store.settle(this.lease, actual).catch(() => {});
  }
}

export class SharedLimiter {
  /** The open admissions, renewed together by one timer while there are any (not one timer per request: issue 36). */
  private readonly open = new Set<SharedAdmission>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly store: SharedLimits,
    readonly leaseMs = LEASE_MS,
  ) {}

  hold(a: SharedAdmission): void {
    this.open.add(a);
    if (this.timer) return;
    // Every third of the lease: a lease admitted just after a tick is renewed at the next, well before it expires.
    this.timer = setInterval(() => this.renewAll(), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  release(a: SharedAdmission): void {
    this.open.delete(a);
    if (this.open.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private renewAll(): void {
    for (const a of this.open) this.store.renew(a.lease, this.leaseMs).catch(() => {});
  }

  /** As Limiter.admit: the admission, or throws 429 request_over_tpm_limit / rate_limit_exceeded. */
  async admit(lim: EffectiveLimits, estimatedTokens: number): Promise<Admission> {
    const caps = {
      rpm: lim.rpm.value,
      tpm: lim.tpm.value,
      concurrency: lim.concurrency.value,
      windowMs: lim.windowMs,
    };
    const v = await this.store.admit(lim.scope, caps, estimatedTokens, this.leaseMs);
    const headers = limitHeaders(v, lim, v.resetMs);
    if (v.ok) return new SharedAdmission(headers, this, v.lease);
    if (v.over === 'never_fits') {
      const e = neverFits(lim, estimatedTokens);
      Object.assign(e.headers, headers, { 'x-should-retry': 'false' });
      throw e;
    }
    const over: LimitName = v.over;
    const retryS = Math.max(1, Math.ceil((over === 'concurrency' ? 1000 : v.resetMs) / 1000));
    headers['retry-after'] = String(retryS);
    const e = overLimit(lim, over, retryS, v, estimatedTokens);
    Object.assign(e.headers, headers);
    throw e;
  }
}
