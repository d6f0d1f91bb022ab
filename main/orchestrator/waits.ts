// Callers waiting for something to end (a task, a workflow run, a swarm task): `?wait=true` and the wait endpoints.
// The store tells the registry about every record it applies; a wait ends when its check passes, when its timeout
// passes, when its caller goes away (an aborted signal: the client hung up) or when the service closes. Each wait
// removes what it added (its entry, its timer, its abort listener) however it ends, so waits never pile up.

type Waiter = { check: () => boolean; done: (over: boolean) => void };

export class Waits {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private closed = false;

  /** Waits open now (for /health and the tests that check nothing is left behind). */
  get count(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  /**
   * Resolves true once `over()` holds (checked now and after each change of `id`), false when `timeoutMs` passes
   * first, `signal` aborts or the service closes.
   */
  wait(id: string, over: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (over()) return Promise.resolve(true);
    if (this.closed || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const set = this.waiting.get(id) ?? new Set<Waiter>();
      this.waiting.set(id, set);
      const onAbort = () => waiter.done(false);
      const timer = setTimeout(() => waiter.done(false), timeoutMs);
      const waiter: Waiter = {
        check: over,
        done: (result) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          set.delete(waiter);
          if (set.size === 0 && this.waiting.get(id) === set) this.waiting.delete(id);
          resolve(result);
        },
      };
      set.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Something about `id` changed: the waits on it whose check now passes end. */
  changed(id: string): void {
    const set = this.waiting.get(id);
    if (!set) return;
    for (const w of [...set]) if (w.check()) w.done(true);
  }

  /** Ends every wait (false) and refuses new ones: the service is closing. */
  close(): void {
    this.closed = true;
    for (const set of [...this.waiting.values()]) for (const w of [...set]) w.done(false);
  }
}
