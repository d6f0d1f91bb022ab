// Linux: finds which process holds a socket inode by scanning /proc/<pid>/fd links, stopping at the first hit.
import { readdir, readlink, stat } from 'node:fs/promises';

/** Processes scanned at once, and fd links read at once per process: enough to hide latency, few enough
 * to leave the libuv threadpool (4 threads by default) usable for the rest of the server. */
const parallelProcesses = 4;
const parallelLinks = 16;

/** Pids that owned a socket last time, checked first: a client such as an editor makes many connections. */
const recentOwners: number[] = [];
const recentOwnersKept = 8;

/**
 * Returns the pid of a process with an fd linking to `socket:[inode]` for one of `inodes`, or null.
 * Recent owners are scanned first, then processes running as one of `likelyUids` (the socket's owner),
 * then the rest, since a process may change uid after creating a socket. Unreadable processes are skipped.
 * Stops early when `signal` aborts.
 */
export async function findPidHoldingSocket(
  inodes: ReadonlySet<string>,
  likelyUids: ReadonlySet<number>,
  signal: AbortSignal,
): Promise<number | null> {
  const links = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  const pids = await scanOrder(likelyUids, signal);
  let found: number | null = null;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (found === null && !signal.aborted && next < pids.length) {
      const pid = pids[next++]!;
      if (await holdsAnyLink(pid, links, () => found !== null || signal.aborted)) found ??= pid;
    }
  };
  await Promise.all(Array.from({ length: parallelProcesses }, worker));
  signal.throwIfAborted();
  if (found !== null) rememberOwner(found);
  return found;
}

/** All readable pids: recent owners first, then those owned by `likelyUids`, then the others. */
async function scanOrder(likelyUids: ReadonlySet<number>, signal: AbortSignal): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  signal.throwIfAborted();
  const uids = await Promise.all(
    pids.map((pid) =>
      stat(`/proc/${pid}`).then(
        (s) => s.uid,
        () => undefined,
      ),
    ),
  );
  signal.throwIfAborted();
  const uidOf = new Map(pids.map((pid, i) => [pid, uids[i]]));
  const priority = (pid: number): number => {
    if (recentOwners.includes(pid)) return 0;
    return likelyUids.has(uidOf.get(pid) ?? -1) ? 1 : 2;
  };
  return pids.filter((pid) => uidOf.get(pid) !== undefined).sort((a, b) => priority(a) - priority(b));
}

function rememberOwner(pid: number): void {
  const index = recentOwners.indexOf(pid);
  if (index !== -1) recentOwners.splice(index, 1);
  recentOwners.unshift(pid);
  recentOwners.length = Math.min(recentOwners.length, recentOwnersKept);
}

/** Reads the process's fd links in small batches; gives up on it at the first permission error. */
async function holdsAnyLink(pid: number, links: ReadonlySet<string>, shouldStop: () => boolean): Promise<boolean> {
  const fdDir = `/proc/${pid}/fd`;
  const fds = await readdir(fdDir).catch(() => [] as string[]);
  for (let start = 0; start < fds.length; start += parallelLinks) {
    if (shouldStop()) return false;
    const targets = await Promise.all(
      fds.slice(start, start + parallelLinks).map((fd) => readlink(`${fdDir}/${fd}`).catch(linkError)),
    );
    if (targets.some((target) => typeof target === 'string' && links.has(target))) return true;
    if (targets.includes(permissionDenied)) return false;
  }
  return false;
}

const permissionDenied = Symbol('permission denied');

/** A closed fd (ENOENT) just means "not this one"; EACCES/EPERM means the whole process is off limits. */
function linkError(error: NodeJS.ErrnoException): typeof permissionDenied | null {
  return error.code === 'EACCES' || error.code === 'EPERM' ? permissionDenied : null;
}
