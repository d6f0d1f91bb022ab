// Whether a `*.localhost`, `*.local` or `*.internal` Host names this machine (issue 33, item 7): such a name passes the
// proxy's Host guard only when it resolves, through the system's resolver, to addresses of this machine alone
// (loopback, or an address of one of its network interfaces). `evil.local` (which resolves nowhere, or to another
// machine) is refused, as any public name is. Answers are remembered for a while, lookups are bounded in time and in
// number at once, so a client sending many names cannot make Switchboard wait or hold much.
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import ipaddr from 'ipaddr.js';

export type Lookup = (name: string) => Promise<string[]>;

const systemLookup: Lookup = async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

/** This machine's addresses: every network interface's (loopback included). */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(normal(a.address));
  return out;
}

/** An address in one spelling (IPv4-mapped IPv6 as its IPv4, zone ids dropped); the input when it does not parse. */
function normal(address: string): string {
  try {
    const a = ipaddr.process(address.replace(/%.*$/, ''));
    return a.toNormalizedString();
  } catch {
    return address;
  }
}

function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address.replace(/%.*$/, '')).range() === 'loopback';
  } catch {
    return false;
  }
}

export type LocalNamesOptions = {
  lookup?: Lookup;
  addresses?: () => Set<string>;
  /** How long an answer is trusted (ms). */
  ttlMs?: number;
  timeoutMs?: number;
  /** Names remembered at most, and lookups in flight at once (more new names wait for nothing: refused). */
  maxNames?: number;
  maxInFlight?: number;
  now?: () => number;
};

export class LocalNames {
  private readonly known = new Map<string, { ok: boolean; until: number }>();
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly o: Required<LocalNamesOptions>;

  constructor(o: LocalNamesOptions = {}) {
    this.o = {
      lookup: o.lookup ?? systemLookup,
      addresses: o.addresses ?? interfaceAddresses,
      ttlMs: o.ttlMs ?? 30_000,
      timeoutMs: o.timeoutMs ?? 1_000,
      maxNames: o.maxNames ?? 256,
      maxInFlight: o.maxInFlight ?? 8,
      now: o.now ?? Date.now,
    };
  }

  /** Whether `name` resolves to this machine alone: at once when known, else after one bounded lookup. */
  check(name: string): boolean | Promise<boolean> {
    const hit = this.known.get(name);
    if (hit && hit.until > this.o.now()) return hit.ok;
    const pending = this.inFlight.get(name);
    if (pending) return pending;
    if (this.inFlight.size >= this.o.maxInFlight) return false; // too many new names at once: refused, not queued
    const p = this.resolve(name).then((ok) => {
      this.inFlight.delete(name);
      this.known.delete(name);
      if (this.known.size >= this.o.maxNames) this.known.delete(this.known.keys().next().value as string);
      this.known.set(name, { ok, until: this.o.now() + this.o.ttlMs });
      return ok;
    });
    this.inFlight.set(name, p);
    return p;
  }

  private async resolve(name: string): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const addresses = await Promise.race([
        this.o.lookup(name),
        new Promise<string[]>((resolve) => {
          timer = setTimeout(() => resolve([]), this.o.timeoutMs);
          timer.unref();
        }),
      ]);
      if (addresses.length === 0) return false;
      const mine = this.o.addresses();
      return addresses.every((a) => isLoopback(a) || mine.has(normal(a)));
    } catch {
      return false; // does not resolve
    } finally {
      clearTimeout(timer);
    }
  }
}
