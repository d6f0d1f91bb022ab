// Spawns a diagnostic command (lsof, netstat, tasklist) and collects its stdout, killing it when aborted.
import { spawn } from 'node:child_process';

const maxOutputBytes = 16 * 1024 * 1024;

/**
 * Resolves with the command's stdout once it exits (whatever its exit code: lsof exits 1 when nothing
 * matched), or null if it could not start, wrote too much, or `signal` aborted. On abort the child and,
 * on POSIX, its whole process group (lsof forks helpers) are killed with SIGKILL.
 */
export function runCommand(file: string, args: readonly string[], signal: AbortSignal): Promise<string | null> {
  if (signal.aborted) return Promise.resolve(null);
  const ownGroup = process.platform !== 'win32';
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'ignore'], detached: ownGroup, windowsHide: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;

    const kill = (): void => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        if (ownGroup) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const finish = (stdout: string | null): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      if (stdout === null) kill();
      resolve(stdout);
    };
    const onAbort = (): void => finish(null);

    signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', () => finish(null));
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutputBytes) return finish(null);
      chunks.push(chunk);
    });
    child.on('close', () => finish(Buffer.concat(chunks).toString('utf8')));
  });
}
