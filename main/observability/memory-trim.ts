// Gives memory back once a burst is over. V8 collects garbage when JavaScript allocates: when a burst of requests
// ends, the objects of its connections become garbage all at once and nothing allocates after them, so no collection
// runs and the process keeps the burst's heap for as long as it stays idle (1,000 streams released: ~25 MiB of heap
// garbage kept; bench/soak.ts, docs/PERFORMANCE.md). Every 2 s (an unref'd timer) this looks at the event loop's
// utilisation, the process's open TCP sockets and its count of answered requests; once no request has been answered
// for 32 s and the loop is quiet (< 5 % busy), if at least 32 sockets closed since their high-water mark or the heap
// grew 32 MiB past what the last collection kept, it runs a full collection, then a compacting one (~40 ms at those
// sizes, while nothing else runs). 32 s: upstream keep-alive sockets close 30 s after their last use
// (proxy/provider-pool.ts), so by then all of the burst is garbage and one collection takes it (idle, those sockets
// are not among the active resources Node lists, and closing 1,000 of them keeps the loop busy for a moment). Not in
// a shorter pause: a collection between the rounds of a burst cost the next round 20-30 % more CPU per request (the
// request path's optimized code assumed maps that die with the burst's objects, and V8 drops that code when they are
// collected; it is recompiled as the next round runs). V8's own memory reducer may collect sooner, when it sees the
// process idle; what it leaves is the upstream sockets' share and malloc's. Two seconds after a collection, if the loop
// is still quiet, what it freed outside the JS heap (sockets' buffers, parsers: C++ memory released as their objects
// die) is handed back by glibc's malloc_trim (malloc-trim.ts; Linux only), which glibc alone would keep for the
// process's life. The trim is loaded, which pins glibc's thresholds, at the first quiet tick after the first burst's
// sockets have gone (no collection then): what V8's own collections free from then on goes back (1,000 streams
// released: 78 MiB after, against 82-84 with the thresholds pinned only at the collection).
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { mallocTrim } from './malloc-trim.ts';

export type MemoryTrimProbes = {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Open TCP sockets (servers not counted). */
  sockets(): number;
  /** Requests answered so far (a count that only grows). */
  requests(): number;
  /** Bytes of the JS heap in use (garbage included until a collection). */
  heapUsed(): number;
  /** Share of the last interval the event loop was busy, 0..1. */
  busy(): number;
  /** One full garbage collection. */
  collect(): void;
  /** Resident set size, bytes. */
  rss(): number;
  /** Free pages of the malloc arenas back to the system; null where that cannot be done. */
  releaseNative(): boolean | null;
  /** Makes releaseNative ready (loads it, and pins glibc's thresholds so that freed memory goes back from then on). */
  prepareNative(): void;
};

export type MemoryTrimOptions = {
  intervalMs: number;
  /** The loop is quiet below this share of busy time. */
  quietBelow: number;
  /** How long after the last answered request a collection waits (the upstream keep-alive timeout + 2 s: by then the
   * burst's upstream sockets have closed too); a pause between the rounds of a burst is not its end. */
  settleMs: number;
  /** Sockets that must have closed since their high-water mark. */
  socketsGone: number;
  /** Heap growth past what the last collection kept. */
  heapGrowthBytes: number;
};

export const MEMORY_TRIM_DEFAULTS: MemoryTrimOptions = {
  intervalMs: 2000,
  quietBelow: 0.05,
  settleMs: 32_000,
  socketsGone: 32,
  heapGrowthBytes: 32 * 1024 * 1024,
};

export type TrimRecord =
  | { reason: 'sockets' | 'heap'; heapBeforeBytes: number; heapAfterBytes: number; ms: number }
  /** malloc_trim, the tick after a collection. */
  | { reason: 'native'; rssBeforeBytes: number; rssAfterBytes: number; ms: number };

/** The decision, separate from the timer so it can be stepped through. */
export class MemoryTrim {
  private socketsHigh: number;
  private heapKept: number;
  /** The request count at the last tick, and when it last changed (a request answered since the tick before). */
  private requestsSeen: number;
  private lastRequestAt: number;
  /** A collection ran last tick: what it freed outside the heap is still to be handed back. */
  private nativeDue = false;
  /** False once releaseNative said it cannot run here. */
  private nativeWorks = true;
  private nativePrepared = false;

  constructor(
    private readonly probes: MemoryTrimProbes,
    private readonly options: MemoryTrimOptions = MEMORY_TRIM_DEFAULTS,
  ) {
    this.socketsHigh = probes.sockets();
    this.heapKept = probes.heapUsed();
    this.requestsSeen = probes.requests();
    this.lastRequestAt = probes.now();
  }

  /** One look; returns what it did (null: nothing). */
  tick(): TrimRecord | null {
    const sockets = this.probes.sockets();
    this.socketsHigh = Math.max(this.socketsHigh, sockets);
    const busy = this.probes.busy();
    const now = this.probes.now();
    const requests = this.probes.requests();
    if (requests !== this.requestsSeen) {
      this.requestsSeen = requests;
      this.lastRequestAt = now;
    }
    if (busy >= this.options.quietBelow) return null;
    if (!this.nativePrepared && this.socketsHigh - sockets >= this.options.socketsGone) {
      // The first burst is over: from here glibc gives back what is freed (no collection: nothing is recompiled).
      this.nativePrepared = true;
      this.probes.prepareNative();
    }
    if (now - this.lastRequestAt < this.options.settleMs) return this.nativeDue ? this.releaseNative() : null;
    const heapBefore = this.probes.heapUsed();
    const reason =
      this.socketsHigh - sockets >= this.options.socketsGone
        ? 'sockets'
        : heapBefore - this.heapKept >= this.options.heapGrowthBytes
          ? 'heap'
          : null;
    if (reason === null) return this.nativeDue ? this.releaseNative() : null;
    const started = performance.now();
    this.probes.collect();
    const record: TrimRecord = {
      reason,
      heapBeforeBytes: heapBefore,
      heapAfterBytes: this.probes.heapUsed(),
      ms: performance.now() - started,
    };
    this.socketsHigh = sockets;
    this.heapKept = record.heapAfterBytes;
    this.nativeDue = this.nativeWorks;
    return record;
  }

  private releaseNative(): TrimRecord | null {
    this.nativeDue = false;
    const rssBefore = this.probes.rss();
    const started = performance.now();
    if (this.probes.releaseNative() === null) {
      this.nativeWorks = false;
      return null;
    }
    const ms = performance.now() - started;
    return { reason: 'native', rssBeforeBytes: rssBefore, rssAfterBytes: this.probes.rss(), ms };
  }
}

let collector: (() => void) | null = null;
/** A full collection: V8's gc() taken from a fresh context once --expose-gc is on (the main context's global stays
 * as it is; scripts/cli-loader.mjs sets the flag before it compiles, so the code cache's flag hash never changes). */
export function collect(): void {
  if (!collector) {
    v8.setFlagsFromString('--expose-gc');
    collector = vm.runInNewContext('gc') as () => void;
  }
  // First a plain one: the burst's garbage goes, and the pages it leaves empty are freed. A compacting collection
  // straight away moved the survivors into fresh pages while the garbage's were still held: RSS rose ~12 MiB for a
  // moment after a c=64 load (VmHWM 109 -> 120 MiB, the proxy bench's peak), against none this way, with the same
  // RSS after (docs/PERFORMANCE.md).
  collector();
  // Then compacting: V8 moves the survivors out of sparse old-generation pages and frees those pages (1,000 streams
  // released: old space 20.7 -> 14.7 MiB resident). Off again after, so V8's own collections and the code cache's
  // flag hash stay as they were.
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    collector();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

function openSockets(): number {
  let n = 0;
  for (const r of process.getActiveResourcesInfo()) if (r === 'TCPSocketWrap') n++;
  return n;
}

/** Starts the trim on this process; the returned function stops it. */
export function startMemoryTrim(
  requests: () => number,
  onTrim: (r: TrimRecord) => void = () => {},
  options: MemoryTrimOptions = MEMORY_TRIM_DEFAULTS,
): { trim: MemoryTrim; stop: () => void } {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const trim = new MemoryTrim(
    {
      now: () => performance.now(),
      sockets: openSockets,
      requests,
      heapUsed: () => process.memoryUsage().heapUsed,
      busy: () => {
        const now = performance.eventLoopUtilization();
        const share = performance.eventLoopUtilization(now, last).utilization;
        last = now;
        return share;
      },
      collect,
      rss: () => process.memoryUsage.rss(),
      releaseNative: () => mallocTrim()?.() ?? null,
      prepareNative: () => void mallocTrim(),
    },
    options,
  );
  const timer = setInterval(() => {
    const r = trim.tick();
    if (r) onTrim(r);
  }, options.intervalMs);
  timer.unref();
  return { trim, stop: () => clearInterval(timer) };
}
