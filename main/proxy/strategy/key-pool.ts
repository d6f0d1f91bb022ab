// A provider's pool of keys (providers[].api_keys, docs/routing.md "Key pools"): each session is pinned to one key so the
// provider's prompt cache keeps hitting; a new session takes the key with the most requests left (as its rate-limit
// headers said), round-robin among equals; a key answering 401 or 403 (revoked, wrong) or 429 (its quota spent) is
// benched until its reset time, and the sessions pinned to it move to another key on their next request.
import { QuotaState } from './quota.ts';

/** How long a key that answered 401 or 403 is benched (a revoked key does not come back by itself; retried then). */
export const REFUSED_BENCH_MS = 10 * 60_000;
/** How long a key that answered 429 without retry-after or a reset header is benched. */
export const LIMITED_BENCH_MS = 60_000;
/** The most sessions remembered per provider (then the oldest pin is forgotten: its session is pinned again). */
export const MAX_PINNED_SESSIONS = 10_000;

export type PoolKey = {
  /** As config.json has it: a key, or `env:NAME`. */
  readonly ref: string;
  /** Epoch ms until which it is not used (0: in use). */
  benchedUntil: number;
  /** Why it is benched, for the log and the route tester. */
  benchedWhy: string;
  readonly quota: QuotaState;
};

export class KeyPool {
  keys: PoolKey[];
  private readonly pins = new Map<string, number>();
  private next = 0;

  constructor(refs: readonly string[]) {
    this.keys = refs.map((ref) => ({ ref, benchedUntil: 0, benchedWhy: '', quota: new QuotaState() }));
  }

  /** A reload: keys still listed keep their bench and quota (by value), pins to keys gone are dropped. */
  update(refs: readonly string[]): void {
    const old = new Map(this.keys.map((k) => [k.ref, k]));
    const oldRefs = this.keys.map((k) => k.ref);
    this.keys = refs.map((ref) => old.get(ref) ?? { ref, benchedUntil: 0, benchedWhy: '', quota: new QuotaState() });
    for (const [s, i] of this.pins) {
      const j = refs.indexOf(oldRefs[i]!);
      if (j < 0) this.pins.delete(s);
      else this.pins.set(s, j);
    }
  }

  /** The key's value now (`env:NAME` read from the environment). */
  value(i: number): string {
    const ref = this.keys[i]!.ref;
    return ref.startsWith('env:') ? (process.env[ref.slice(4)] ?? '') : ref;
  }

  /** The key of a request (its session's, else a new pick), skipping `tried` (-1: every key is benched or tried). */
  pick(session: string | null, now: number, tried: ReadonlySet<number> = EMPTY): number {
    if (session !== null) {
      const pinned = this.pins.get(session);
      if (pinned !== undefined && !tried.has(pinned) && this.usable(pinned, now)) return pinned;
    }
    let best = -1;
    let bestLeft = -2;
    const n = this.keys.length;
    for (let k = 0; k < n; k++) {
      const i = (this.next + k) % n;
      if (tried.has(i) || !this.usable(i, now)) continue;
      const left = this.keys[i]!.quota.requestsLeft(now); // -1: unknown, taken as plenty after the known ones
      const rank = left < 0 ? Number.MAX_SAFE_INTEGER : left;
      if (rank > bestLeft) {
        best = i;
        bestLeft = rank;
      }
    }
    if (best < 0) return -1;
    this.next = (best + 1) % n;
    if (session !== null) {
      this.pins.delete(session);
      if (this.pins.size >= MAX_PINNED_SESSIONS) this.pins.delete(this.pins.keys().next().value!);
      this.pins.set(session, best);
    }
    return best;
  }

  private usable(i: number, now: number): boolean {
    const k = this.keys[i]!;
    return k.benchedUntil <= now && k.quota.spent(0, now) === null;
  }

  /** A key answered 401, 403 or 429: benched until `until` (epoch ms). */
  bench(i: number, status: number, until: number, now: number): void {
    const k = this.keys[i]!;
    k.benchedUntil = until > now ? until : now + (status === 429 ? LIMITED_BENCH_MS : REFUSED_BENCH_MS);
    k.benchedWhy = status === 429 ? 'HTTP 429 (its quota is spent)' : `HTTP ${status} (refused: revoked or wrong)`;
  }

  /** The earliest time a benched key is back (for Retry-After when every key is benched). */
  firstBack(now: number): number {
    let t = Number.POSITIVE_INFINITY;
    for (const k of this.keys) t = Math.min(t, Math.max(k.benchedUntil, k.quota.reopensAt(k.quota.spent(0, now), now)));
    return Number.isFinite(t) ? t : now;
  }

  /** Sessions pinned per key (for the route tester). */
  pinnedCounts(): number[] {
    const out = this.keys.map(() => 0);
    for (const i of this.pins.values()) out[i]!++;
    return out;
  }
}

const EMPTY: ReadonlySet<number> = new Set();
