// Reading a file Switchboard did not write itself, or one someone may have planted or grown (another tool's settings,
// a backup in config-backups/, Connect's manifest): only a regular file is read (a FIFO, a socket, a device or a
// folder is refused at once: the open is non-blocking, so a FIFO never hangs a worker thread or shutdown), at most
// `maxBytes` (checked on the open handle before reading, and again while reading, so a file that grows meanwhile is
// cut off), within `timeoutMs`. With `noFollow`, a symbolic link is refused instead of followed. Shared by the rooms
// that read such files (docs/SECURITY.md, "Every input").
import { constants } from 'node:fs';
import fs from 'node:fs/promises';

// Undefined on Windows (no FIFOs to hang on, no O_NOFOLLOW): there the check of the open handle stands alone.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CHUNK = 64 * 1024;

export type ReadRefusal = 'not_regular' | 'symlink' | 'too_large' | 'timeout';

/** A file that was not read, and why; `size` is its size when that is known (a file too large). */
export class FileRefusedError extends Error {
  constructor(
    readonly file: string,
    readonly reason: ReadRefusal,
    message: string,
    readonly size: number | null = null,
  ) {
    super(message);
    this.name = 'FileRefusedError';
  }
}

export type BoundedReadOptions = {
  maxBytes: number;
  /** The whole read, open to close (default 5 s). */
  timeoutMs?: number;
  /** Refuse a symbolic link at the path itself instead of following it. */
  noFollow?: boolean;
};

/** "58 MB", "4 KB", "12 bytes". */
export function sizeText(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round(n / (1024 * 1024))} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/**
 * The bytes of `file`, refused (FileRefusedError) when it is not a regular file, is a link and `noFollow` is set, is
 * larger than `maxBytes`, or takes longer than `timeoutMs`. Other errors (ENOENT, EACCES) are thrown as fs throws them.
 */
export async function readBoundedFile(file: string, opts: BoundedReadOptions): Promise<Buffer> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5_000);
  const handle = await fs.open(file, constants.O_RDONLY | NONBLOCK | (opts.noFollow ? NOFOLLOW : 0)).catch((err) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (opts.noFollow && (code === 'ELOOP' || code === 'EMLINK'))
      throw new FileRefusedError(file, 'symlink', `${file} is a symbolic link; it was not followed`);
    if (code === 'ENXIO') throw new FileRefusedError(file, 'not_regular', `${file} is not a regular file`);
    throw err;
  });
  let stuck = false;
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new FileRefusedError(file, 'not_regular', `${file} is not a regular file`);
    const tooLarge = (size: number) =>
      new FileRefusedError(
        file,
        'too_large',
        `${file} is ${sizeText(size)}, more than the ${sizeText(opts.maxBytes)} Switchboard reads of it`,
        size,
      );
    if (st.size > opts.maxBytes) throw tooLarge(st.size);
    const parts: Buffer[] = [];
    let size = 0;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new FileRefusedError(file, 'timeout', `${file} could not be read in time`);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          stuck = true;
          reject(new FileRefusedError(file, 'timeout', `${file} could not be read in time`));
        }, left);
      });
      const { bytesRead, buffer } = await Promise.race([
        handle.read(Buffer.allocUnsafe(CHUNK), 0, CHUNK, null),
        timedOut,
      ]).finally(() => clearTimeout(timer));
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > opts.maxBytes) throw tooLarge(Math.max(size, st.size));
      parts.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(parts, size);
  } finally {
    // A read that is stuck (a hung network file system) keeps the handle until it returns: do not wait for it.
    const closing = handle.close().catch(() => {});
    if (!stuck) await closing;
  }
}
