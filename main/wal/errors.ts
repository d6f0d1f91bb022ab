// WalError: the one error the log raises for a storage fault; main/errors.ts maps it to HTTP 503 `wal_error`.

export type WalErrorCode =
  | 'disk_full' // ENOSPC / EDQUOT while writing
  | 'io_error' // EIO and every other failed write, fsync, read or rename
  | 'closed' // append or compact after close()
  | 'locked' // another live process holds the data folder
  | 'damaged'; // acknowledged data is no longer where the log left it

export class WalError extends Error {
  constructor(
    readonly code: WalErrorCode,
    message: string,
    /** What the operator can do about it. */
    readonly action: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WalError';
  }
}

export function isWalError(err: unknown): err is WalError {
  return err instanceof WalError;
}

/** The errno code of a Node file-system error, if any. */
export function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Wraps a failed file-system call (`what` says which, e.g. "fsync of /data/wal-….log") as a WalError. */
export function walErrorFromFs(err: unknown, what: string, dir: string): WalError {
  if (err instanceof WalError) return err;
  const code = errnoCode(err) ?? 'unknown';
  const detail = err instanceof Error ? err.message : String(err);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new WalError(
      'disk_full',
      `${what} failed: the disk is full (${code}); the records were not saved.`,
      `Free space on the disk that holds ${dir}; the log retries on the next append.`,
      { cause: err },
    );
  }
  return new WalError(
    'io_error',
    `${what} failed (${code}: ${detail}); the records were not saved.`,
    `Check the disk that holds ${dir} (dmesg, free space, permissions); the log reopens its file and retries on the next append.`,
    { cause: err },
  );
}
