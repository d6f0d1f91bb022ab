// Who holds a folder: a process named by its pid, the time it started (clock ticks after boot, field 22 of
// /proc/<pid>/stat) and the boot it started in (/proc/sys/kernel/random/boot_id). `kill(pid, 0)` alone takes a
// zombie (a process killed with -9 and not yet reaped, common in containers whose init does not reap) or an unrelated
// process that got the same pid after a crash or a reboot for the owner; the start time and boot tell them apart.
// Without /proc (macOS, Windows) only `kill(pid, 0)` is asked.
import fs from 'node:fs';

export type ProcessIdentity = { pid: number; start: string | null; boot: string | null };

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

const bootId = (): string | null => readText('/proc/sys/kernel/random/boot_id')?.trim() || null;

/** State (field 3) and start time (field 22) of a pid, or null when /proc has no such process. */
function statOf(pid: number): { state: string; start: string } | null {
  const text = readText(`/proc/${pid}/stat`);
  if (text === null) return null;
  // The command name (field 2) is in parentheses and may hold spaces or parentheses: fields go on after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0] ?? '', start: rest[19] ?? '' };
}

const hasProc = (): boolean => fs.existsSync('/proc/self/stat');

export function selfIdentity(): ProcessIdentity {
  const stat = hasProc() ? statOf(process.pid) : null;
  return { pid: process.pid, start: stat?.start ?? null, boot: bootId() };
}

/** The lock file's text: `<pid> <start> <boot>` (older files hold the pid alone, and are still read). */
export function identityText(id: ProcessIdentity): string {
  return `${[id.pid, id.start ?? '-', id.boot ?? '-'].join(' ')}\n`;
}

export function parseIdentity(text: string): ProcessIdentity | null {
  const [pid, start, boot] = text.trim().split(/\s+/);
  const n = Number.parseInt(pid ?? '', 10);
  if (!Number.isInteger(n) || n <= 0) return null;
  const field = (v: string | undefined) => (v && v !== '-' ? v : null);
  return { pid: n, start: field(start), boot: field(boot) };
}

function killZero(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

/**
 * Whether the process named is still the one that wrote it: not gone, not a zombie, not another process with its
 * pid (another start time), not from an earlier boot.
 */
export function isOwnerAlive(id: ProcessIdentity): boolean {
  if (!hasProc()) return killZero(id.pid);
  if (id.boot && id.boot !== bootId()) return false;
  const stat = statOf(id.pid);
  if (!stat) return false;
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  if (id.start && stat.start !== id.start) return false;
  return true;
}
