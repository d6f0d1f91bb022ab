// glibc's malloc_trim(0), reached through koffi (a prebuilt N-API FFI package, an optional dependency). On Linux,
// memory that C++ code inside Node frees (sockets' read buffers, HTTP parsers, V8's compiler zones, ...) goes back to
// glibc's arenas, which hand the top of an arena back to the system but keep every free page below an allocation
// still in use. After a burst those holes stay resident for the life of the process: 1,000 streams released left
// ~13 MiB of free pages (docs/PERFORMANCE.md, "What glibc keeps after a burst"). malloc_trim(0) walks the arenas and
// gives those pages back (madvise), the call Deno makes after loading modules. It also pins the two thresholds glibc
// raises as the process runs (freeing one large mmap'd block, a code cache read at start, lifts the mmap threshold
// to its size and the trim threshold to twice that, up to 32 and 64 MiB): pinned at 1 MiB, an arena's top is given
// back when a free leaves more than that there, and blocks over 1 MiB are mapped on their own and unmapped when
// freed. Without that, the worker threads' arenas (V8's collector and compiler threads) each kept a few MiB of top
// after a burst, which malloc_trim does not touch. Loaded on first use only (koffi costs ~14 ms and ~3.8 MiB), never
// in Electron (Chromium brings its own allocator; electron-builder.yml leaves koffi out) and not where it cannot work
// (macOS and Windows return freed memory themselves; musl has no malloc_trim): there, or when koffi is not
// installed, the function is null and nothing is trimmed.
import { createRequire } from 'node:module';
import { logger } from './logger.ts';

/** Gives free pages of every malloc arena back to the system; true when some were. */
export type MallocTrim = () => boolean;

type Koffi = typeof import('koffi');

/** mallopt's parameters (malloc.h). */
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
/** Both thresholds. At glibc's initial 128 KiB, the worker threads' arenas were trimmed and regrown on nearly every
 * task (~0.09 madvise/mmap/munmap calls per proxied request at c=64, against none before); at 1 MiB ~0.03, with the
 * same memory back after a burst within 1-2 MiB (4 MiB kept ~7 MiB more). */
const THRESHOLD = 1024 * 1024;

let loaded: MallocTrim | null | undefined;
let whyNot = '';

/** The trim, loaded on the first call; null where it cannot run (whyNotTrimming says why). */
export function mallocTrim(): MallocTrim | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== 'linux') whyNot = `not on ${process.platform} (its allocator returns freed memory itself)`;
  else if (process.versions.electron) whyNot = 'not in Electron (Chromium brings its own allocator)';
  else {
    try {
      const libc = (createRequire(import.meta.url)('koffi') as Koffi).load('libc.so.6');
      const trim = libc.func('int malloc_trim(size_t pad)') as (pad: number) => number;
      const mallopt = libc.func('int mallopt(int param, int value)') as (param: number, value: number) => number;
      mallopt(M_TRIM_THRESHOLD, THRESHOLD);
      mallopt(M_MMAP_THRESHOLD, THRESHOLD);
      loaded = () => trim(0) === 1;
      logger.debug("memory trim: glibc's malloc_trim is ready (koffi)");
    } catch (err) {
      whyNot = `glibc's malloc_trim is not reachable: ${(err as Error).message.split('\n')[0]}`;
      logger.debug(`memory trim: ${whyNot}; freed native memory stays with glibc`);
    }
  }
  return loaded;
}

/** Why mallocTrim() is null ('' before the first call or when it is not). */
export function whyNotTrimming(): string {
  return whyNot;
}
