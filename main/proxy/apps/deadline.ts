// Runs an abortable lookup under a time limit: resolves null on timeout or error, never rejects.

/**
 * Calls `work` with a signal that aborts when `timeoutMs` elapses or when `work` settles (so leftover
 * parallel work stops). Resolves with its result, or null if it timed out, threw or rejected.
 */
export function withDeadline<T>(
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T | null>,
): Promise<T | null> {
  const controller = new AbortController();
  return new Promise<T | null>((resolve) => {
    const settle = (value: T | null): void => {
      clearTimeout(timer);
      resolve(value);
      controller.abort();
    };
    const timer = setTimeout(() => settle(null), Math.max(0, timeoutMs));
    try {
      work(controller.signal).then(settle, () => settle(null));
    } catch {
      settle(null);
    }
  });
}
